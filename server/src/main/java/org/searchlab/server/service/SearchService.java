package org.searchlab.server.service;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.IndexStats;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.WriteResult;
import org.searchlab.core.embed.Embedder;
import org.searchlab.core.query.Knn;
import org.searchlab.server.metrics.ServerMetrics;

/**
 * The service both dialects call: it embeds query text when a request asks for it, runs the index
 * and counts feed operations. It does not validate: the store does, in one place, before anything
 * is written ({@link SearchIndex}'s contract), and its {@link InvalidRequestException} reaches the
 * dialect unchanged. Thread-safe when the index is (the {@link SearchIndex} contract) and the
 * embedder is; holds no other state.
 */
public final class SearchService {
  private final SearchIndex index;
  private final Embedder embedder;
  private final ServerMetrics metrics;
  private final java.util.concurrent.atomic.LongAdder indexed =
      new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder indexFailed =
      new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder deleted =
      new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder noops =
      new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder queries =
      new java.util.concurrent.atomic.LongAdder();

  /**
   * @param index the store
   * @param embedder the query-text embedder, or empty when the server has none (requests that need
   *     one then get 400)
   * @param metrics where feed operations and embedding time are counted
   */
  public SearchService(SearchIndex index, Optional<Embedder> embedder, ServerMetrics metrics) {
    this.index = Objects.requireNonNull(index, "index");
    this.embedder = embedder.orElse(null);
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  /** The metrics label of a rank profile: lexical, vector, hybrid or unranked. */
  public static String queryType(RankProfile profile) {
    return switch (profile) {
      case BM25 -> "lexical";
      case CLOSENESS -> "vector";
      case HYBRID -> "hybrid";
      case UNRANKED -> "unranked";
    };
  }

  public Schema schema() {
    return index.schema();
  }

  public SearchIndex index() {
    return index;
  }

  /**
   * Runs a search. When {@code embedText} is set, the text is embedded into the query vector of the
   * request's one kNN search first; see {@link #search(SearchRequest, List)}.
   *
   * @param request the request; its kNN search has no vector when {@code embedText} is set
   * @param embedText text to embed as the query vector, or {@code null}
   */
  public SearchResult search(SearchRequest request, String embedText) throws IOException {
    return search(request, embedText == null ? List.of() : List.of(new KnnText(0, embedText)));
  }

  /**
   * Runs a search. Each of {@code texts} is embedded into the query vector of the kNN search it
   * names ({@link org.searchlab.core.query.Knn#withVector}), a text repeated in several searches
   * once; the time is counted into {@link org.searchlab.core.Timings#embedNanos()}. Without an
   * embedder that is a 400 naming the missing embedder.
   *
   * @param request the request; the kNN searches {@code texts} name have no vector yet
   * @param texts which kNN searches take their vector from which text
   */
  public SearchResult search(SearchRequest request, List<KnnText> texts) throws IOException {
    long embedNanos = 0;
    if (!texts.isEmpty()) {
      if (embedder == null) {
        throw new InvalidRequestException(
            "the query asks to embed text ('"
                + abbreviate(texts.get(0).text())
                + "') but this server has no embedder; start it with --embedder");
      }
      List<Knn> knn = new ArrayList<>(request.knn());
      java.util.Map<String, float[]> embedded = new java.util.HashMap<>();
      long t0 = System.nanoTime();
      for (KnnText t : texts) {
        if (t.knn() >= knn.size()) {
          throw new IllegalArgumentException(
              "kNN index " + t.knn() + " is beyond the request's " + knn.size() + " kNN searches");
        }
        float[] vector = embedded.get(t.text());
        if (vector == null) {
          vector = embedder.embed(t.text());
          embedded.put(t.text(), vector);
        }
        knn.set(t.knn(), knn.get(t.knn()).withVector(vector));
      }
      // At least 1 ns, so "an embedding happened" survives a coarse clock.
      embedNanos = Math.max(1, System.nanoTime() - t0);
      metrics.embed(embedNanos);
      request = request.withKnn(knn);
    }
    SearchResult result = ProductShapeBridge.search(index, request);
    queries.increment();
    return embedNanos == 0
        ? result
        : new SearchResult(
            result.hits(),
            result.total(),
            result.plan(),
            result.timings().withEmbedNanos(embedNanos));
  }

  private static String abbreviate(String s) {
    return s.length() > 40 ? s.substring(0, 37) + "..." : s;
  }

  public WriteResult put(Document doc) throws IOException {
    return count("put", index.put(doc));
  }

  /** Put-if-absent; {@link org.searchlab.core.DocumentExistsException} when the id is present. */
  public WriteResult create(Document doc) throws IOException {
    try {
      return count("create", index.create(doc));
    } catch (InvalidRequestException e) {
      feed("create", "rejected", 1);
      throw e;
    }
  }

  public WriteResult update(PartialUpdate update) throws IOException {
    return count("update", index.update(update));
  }

  public WriteResult delete(String id) throws IOException {
    return count("delete", index.delete(id));
  }

  /**
   * A single put, create, update or delete answered when the store acknowledges it ({@link
   * org.searchlab.core.SearchIndex#writeAsync}), counted as the synchronous calls count.
   */
  public java.util.concurrent.CompletableFuture<WriteResult> writeAsync(Operation op)
      throws IOException {
    String name = opName(op);
    try {
      return index
          .writeAsync(op)
          .whenComplete(
              (r, e) -> {
                if (r != null) {
                  feed(name, r.outcome().esName(), 1);
                } else if (e instanceof java.util.concurrent.CompletionException c
                    && c.getCause() instanceof InvalidRequestException) {
                  feed(name, "rejected", 1);
                }
              });
    } catch (InvalidRequestException e) {
      feed(name, "rejected", 1);
      throw e;
    }
  }

  public Optional<Document> get(String id) throws IOException {
    return index.get(id);
  }

  /**
   * Applies the valid operations of a bulk in one index call and returns one result per input item
   * in order; {@code rejected} items (already failed while parsing, {@code null} in {@code ops})
   * keep their error.
   *
   * @param ops one entry per bulk item: the operation, or {@code null} where parsing failed
   * @param parseErrors one entry per bulk item: the parse error, or {@code null}
   */
  public List<BulkItemResult> bulk(List<Operation> ops, List<InvalidRequestException> parseErrors)
      throws IOException {
    if (ops.size() != parseErrors.size()) {
      throw new IllegalArgumentException(ops.size() + " ops but " + parseErrors.size() + " errors");
    }
    List<BulkItemResult> out = new ArrayList<>(ops.size());
    List<Operation> parsed = new ArrayList<>(ops.size());
    List<Integer> slots = new ArrayList<>(ops.size());
    for (int i = 0; i < ops.size(); i++) {
      InvalidRequestException err = parseErrors.get(i);
      if (err != null) {
        out.add(BulkItemResult.failed(ops.get(i), err));
        feed(opName(ops.get(i)), "rejected", 1);
      } else {
        out.add(null);
        parsed.add(Objects.requireNonNull(ops.get(i), "an item without a parse error has an op"));
        slots.add(i);
      }
    }
    if (!parsed.isEmpty()) {
      // The store validates each item and rejects bad ones alone (the contract's bulk).
      List<BulkItemResult> results = index.bulk(parsed);
      for (int j = 0; j < results.size(); j++) {
        BulkItemResult r = results.get(j);
        out.set(slots.get(j), r);
        feed(opName(parsed.get(j)), r.failed() ? "rejected" : r.result().outcome().esName(), 1);
      }
    }
    return out;
  }

  /**
   * Counts one feed outcome in the server's metrics and in this index's own counts ({@link
   * #operations}).
   */
  private void feed(String op, String outcome, int n) {
    metrics.feed(op, outcome, n);
    boolean indexOp = op.equals("put") || op.equals("create") || op.equals("update");
    switch (outcome) {
      case "created", "updated" -> {
        if (indexOp) {
          indexed.add(n);
        }
      }
      case "rejected" -> {
        if (indexOp) {
          indexFailed.add(n);
        }
      }
      case "deleted", "not_found" -> {
        if (op.equals("delete")) {
          deleted.add(n);
        }
      }
      case "noop" -> {
        if (indexOp) {
          noops.add(n);
        }
      }
      default -> {}
    }
  }

  /** This index's operation counts since the server opened it. */
  public org.searchlab.server.service.IndicesView.Operations operations() {
    return new org.searchlab.server.service.IndicesView.Operations(
        indexed.sum(), indexFailed.sum(), deleted.sum(), noops.sum(), queries.sum());
  }

  private static String opName(Operation op) {
    return switch (op) {
      case null -> "unknown";
      case Operation.Put p -> p.ifAbsent() ? "create" : "put";
      case Operation.Update u -> "update";
      case Operation.Delete d -> "delete";
    };
  }

  private WriteResult count(String op, WriteResult r) {
    feed(op, r.outcome().esName(), 1);
    return r;
  }

  public void refresh() throws IOException {
    index.refresh();
  }

  public void flush() throws IOException {
    index.flush();
  }

  /** Force-merges to at most {@code maxSegments}, 1 to 10,000. */
  public void forceMerge(int maxSegments) throws IOException {
    if (maxSegments < 1 || maxSegments > 10_000) {
      throw new InvalidRequestException(
          "max_num_segments " + maxSegments + " is outside [1, 10000]");
    }
    index.forceMerge(maxSegments);
  }

  public IndexStats stats() throws IOException {
    return index.stats();
  }

  /** The store's health: whether it takes writes, and its background failures. */
  public org.searchlab.core.StoreHealth health() {
    return index.health();
  }
}
