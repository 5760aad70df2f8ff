package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.Hit;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.WriteResult;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.ApiResponse;
import org.searchlab.server.Json;
import org.searchlab.server.Text;
import org.searchlab.server.index.IndexHandle;
import org.searchlab.server.service.SearchService;

/**
 * Elasticsearch's {@code _delete_by_query} and {@code _update_by_query}: the documents a query
 * matches, deleted or partially updated in batches through the store's ordinary bulk path, so each
 * batch is acknowledged (durable under the store's sync policy) before the next starts and the
 * answer comes only after the last one is. The request runs to completion inside the HTTP request
 * ({@code wait_for_completion=false} is refused: no task is made).
 *
 * <p><b>Which documents.</b> The contract has no point-in-time reader across searches, so the two
 * operations read their matches differently:
 *
 * <ol>
 *   <li>Delete: rounds. Each round searches the store's current view for the next {@code
 *       scroll_size} matches (with their documents), deletes them in one bulk, and refreshes, so
 *       the next round's search no longer sees them. Documents skipped for a conflict are kept out
 *       of a round by asking for that many more hits. The first round's exact total bounds the
 *       work: at most that many documents are handled, so a concurrent feeder of matching documents
 *       cannot keep it running; such documents may be deleted too (within that bound), where
 *       Elasticsearch's scroll would not see them.
 *   <li>Update: one search on one view collects every match with its document (an updated document
 *       still matches, so rounds would find it again), then batches of updates. At most {@link
 *       SearchRequest#MAX_WINDOW} matches ({@code index.max_result_window}); more, without a {@code
 *       max_docs} at or under it, is refused before anything is written.
 * </ol>
 *
 * <p><b>Version conflicts.</b> The contract has no versions or sequence numbers, so a conflict is
 * defined by content: just before a batch is written, each document is read again in real time
 * ({@code get}); one that is gone, or whose source differs from the version the search matched,
 * changed between the search and the write, and is a version conflict (Elasticsearch's {@code
 * if_seq_no} check). A delete or update the store then answers {@code not_found} is one too. The
 * window between that read and the bulk is not closed: a write landing in it is overwritten or
 * deleted. {@code conflicts=abort} (the default) stops at the first batch with a conflict and
 * answers 409 with the conflicts in {@code failures}; {@code proceed} counts them and goes on.
 *
 * <p>Stateless and thread-safe; the caller holds each index's lease.
 */
final class EsByQuery {
  /** Elasticsearch's default {@code scroll_size}: documents per batch. */
  static final int DEFAULT_BATCH = 1000;

  /** The URL parameters both operations accept. */
  static final Set<String> PARAMS =
      Set.of(
          "refresh",
          "conflicts",
          "max_docs",
          "wait_for_completion",
          "scroll_size",
          "slices",
          "timeout",
          "wait_for_active_shards",
          "requests_per_second",
          "scroll",
          "routing",
          "allow_no_indices",
          "expand_wildcards",
          "ignore_unavailable",
          "search_timeout",
          "request_cache",
          "preference",
          "q");

  private EsByQuery() {}

  /** What the request asks, read and checked before anything is written. */
  record Job(
      EsSearch search, boolean proceed, long maxDocs, int batch, boolean refresh, ObjectNode doc) {}

  /**
   * Reads and checks the parameters and body of either operation.
   *
   * @param update whether this is {@code _update_by_query} (which takes a {@code script})
   */
  static Job parse(ApiRequest r, int maxDepth, boolean update) {
    EsParams.allowOnly(r, PARAMS);
    if (!EsParams.bool(r, "wait_for_completion", true)) {
      throw EsParams.bad(
          "[wait_for_completion=false] is not supported: this server runs the operation to the"
              + " end within the request and makes no task; omit the parameter");
    }
    String slices = r.param("slices");
    if (slices != null && !slices.equals("1") && !slices.equals("auto")) {
      throw EsParams.bad(
          "parameter [slices] is ["
              + Text.quote(slices)
              + "]; this server has one shard per index and runs one slice: use 1 or auto");
    }
    String rps = r.param("requests_per_second");
    if (rps != null && !rps.equals("-1") && !rps.equals("-1.0")) {
      throw EsParams.bad(
          "parameter [requests_per_second] is ["
              + Text.quote(rps)
              + "]; this server does not throttle: use -1 (unlimited)");
    }
    boolean proceed =
        EsParams.oneOf(r, "conflicts", "abort", Set.of("abort", "proceed")).equals("proceed");
    int batch = r.intParam("scroll_size", DEFAULT_BATCH);
    if (batch < 1 || batch > SearchRequest.MAX_WINDOW) {
      throw EsParams.bad(
          "parameter [scroll_size] is " + batch + "; expected 1 to " + SearchRequest.MAX_WINDOW);
    }
    long maxDocs = -1;
    if (r.param("max_docs") != null) {
      maxDocs = r.intParam("max_docs", -1);
      if (maxDocs < 1) {
        throw EsParams.bad("parameter [max_docs] is " + maxDocs + "; expected at least 1");
      }
    }
    JsonNode body =
        r.hasBody()
            ? EsParsing.object(Json.parse(r.body(), "by-query body"), "body")
            : Json.MAPPER.createObjectNode();
    ObjectNode query = Json.MAPPER.createObjectNode();
    ObjectNode doc = null;
    for (var it = body.fields(); it.hasNext(); ) {
      var f = it.next();
      switch (f.getKey()) {
        case "query" -> query.set("query", f.getValue());
        case "max_docs" -> {
          long v = Json.integer(f.getValue(), "[max_docs]", 1, Integer.MAX_VALUE);
          if (maxDocs > 0 && maxDocs != v) {
            throw EsParams.bad("[max_docs] set to two different values: " + maxDocs + " and " + v);
          }
          maxDocs = v;
        }
        case "conflicts" -> {
          String c = f.getValue().asText();
          if (!c.equals("abort") && !c.equals("proceed")) {
            throw EsParams.bad("[conflicts] is [" + Text.quote(c) + "]; expected abort or proceed");
          }
          proceed = c.equals("proceed");
        }
        case "script" -> {
          if (!update) {
            throw EsParsing.parsing("unknown key [script]: _delete_by_query takes no script");
          }
          doc = EsUpdateScript.parse(f.getValue());
        }
        case "slice" -> throw EsParams.bad("[slice] is not supported: this server runs one slice");
        default ->
            throw EsParsing.parsing(
                "unknown key ["
                    + Text.quote(f.getKey())
                    + "] in the body; supported: query, max_docs, conflicts"
                    + (update ? ", script" : ""));
      }
    }
    EsSearch search = EsSearchParser.parseCount(query, r, maxDepth);
    return new Job(
        search,
        proceed,
        maxDocs < 0 ? Long.MAX_VALUE : maxDocs,
        batch,
        r.param("refresh") != null && !"false".equals(r.param("refresh")),
        doc);
  }

  /** The counters of one run, summed over its indexes; the answer's body. */
  static final class Progress {
    final long t0 = System.nanoTime();
    long total;
    long done;
    long conflicts;
    long noops;
    int batches;
    boolean aborted;
    final ArrayNode failures = Json.MAPPER.createArrayNode();

    void failure(String index, String id, int status, String type, String reason) {
      ObjectNode f = failures.addObject();
      f.put("index", index).put("id", id);
      f.putObject("cause")
          .put("type", type)
          .put("reason", Text.bounded(reason, Text.MAX_QUOTE))
          .put("index", index);
      f.put("status", status);
    }

    ApiResponse answer(String doneKey, String endpoint) {
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.put("took", (System.nanoTime() - t0) / 1_000_000);
      o.put("timed_out", false);
      o.put("total", total);
      o.put(doneKey, done);
      o.put("batches", batches);
      o.put("version_conflicts", conflicts);
      o.put("noops", noops);
      o.putObject("retries").put("bulk", 0).put("search", 0);
      o.put("throttled_millis", 0);
      o.put("requests_per_second", -1.0);
      o.put("throttled_until_millis", 0);
      o.set("failures", failures);
      // As Elasticsearch's by-query listener: the highest status among the failures, else 200.
      int status = 200;
      for (JsonNode f : failures) {
        status = Math.max(status, f.get("status").asInt());
      }
      return EsResponses.json(status, o).tagged(endpoint, "none");
    }
  }

  /** Deletes what {@code job}'s query matches in {@code h}; the caller holds its lease. */
  static void delete(IndexHandle h, Job job, Progress p) throws IOException {
    SearchService service = h.service();
    // parseCount's request counts exactly (track_total_hits is unbounded).
    SearchRequest base = job.search().request().withFetchDocuments(true);
    Set<String> skipped = new HashSet<>();
    long bound = -1; // the first round's total: the most documents this run handles
    long handled = 0;
    long deleted = 0;
    while (!p.aborted && deleted < job.maxDocs()) {
      long want = Math.min(job.batch(), job.maxDocs() - deleted);
      if (bound >= 0) {
        want = Math.min(want, bound - handled);
      }
      if (want <= 0) {
        break;
      }
      if (skipped.size() + want > SearchRequest.MAX_WINDOW) {
        p.aborted = true;
        p.failure(
            h.name(),
            null,
            409,
            "version_conflict_engine_exception",
            skipped.size()
                + " documents were skipped for conflicts; past "
                + SearchRequest.MAX_WINDOW
                + " (index.max_result_window) the run cannot search beyond them");
        break;
      }
      SearchResult res =
          service.search(
              base.withPage(0, (int) (skipped.size() + want)), job.search().embedTexts());
      if (bound < 0) {
        bound = res.total().value();
        p.total += Math.min(bound, job.maxDocs());
      }
      List<Hit> batch = new ArrayList<>();
      for (Hit hit : res.hits()) {
        if (batch.size() < want && !skipped.contains(hit.id())) {
          batch.add(hit);
        }
      }
      if (batch.isEmpty()) {
        break;
      }
      p.batches++;
      List<Hit> fresh = unchanged(h, batch, job, p, skipped);
      List<Operation> ops = new ArrayList<>(fresh.size());
      for (Hit hit : fresh) {
        ops.add(new Operation.Delete(hit.id()));
      }
      long before = p.done;
      apply(h, fresh, ops, job, p, skipped);
      deleted += p.done - before;
      handled += batch.size();
      // Makes this batch's deletes invisible to the next round's search (a no-op for a store
      // whose searches are real-time).
      service.refresh();
    }
    if (job.refresh()) {
      service.refresh();
    }
  }

  /**
   * What {@code job}'s query matches in {@code h}, for {@link #update}; refused when it is more
   * than one search can return, so that a caller can check every index before it writes to any. The
   * caller holds the index's lease.
   */
  static List<Hit> matchesToUpdate(IndexHandle h, Job job) throws IOException {
    int window = (int) Math.min(job.maxDocs(), SearchRequest.MAX_WINDOW);
    SearchRequest request = job.search().request().withFetchDocuments(true).withPage(0, window);
    SearchResult res = h.service().search(request, job.search().embedTexts());
    long total = Math.min(res.total().value(), job.maxDocs());
    if (total > SearchRequest.MAX_WINDOW) {
      throw new InvalidRequestException(
          "the query matches "
              + res.total().value()
              + " documents of ["
              + h.name()
              + "]; this server's _update_by_query updates at most "
              + SearchRequest.MAX_WINDOW
              + " (index.max_result_window) per request: narrow the query or set max_docs");
    }
    return List.copyOf(res.hits().subList(0, (int) Math.min(total, res.hits().size())));
  }

  /**
   * Updates {@code hits}, what {@link #matchesToUpdate} found in {@code h}; the caller holds its
   * lease.
   */
  static void update(IndexHandle h, List<Hit> hits, Job job, Progress p) throws IOException {
    SearchService service = h.service();
    p.total += hits.size();
    Set<String> skipped = new HashSet<>();
    for (int from = 0; from < hits.size() && !p.aborted; from += job.batch()) {
      List<Hit> batch = hits.subList(from, Math.min(hits.size(), from + job.batch()));
      p.batches++;
      List<Hit> fresh = unchanged(h, batch, job, p, skipped);
      List<Operation> ops = new ArrayList<>(fresh.size());
      for (Hit hit : fresh) {
        ops.add(
            job.doc() == null
                // No script: the document written again as it is (a reindex in place, which
                // picks up mapping changes, as Elasticsearch's update by query without a script).
                ? new Operation.Put(hit.document(), false)
                : new Operation.Update(EsDocuments.update(hit.id(), job.doc())));
      }
      apply(h, fresh, ops, job, p, skipped);
    }
    if (job.refresh()) {
      service.refresh();
    }
  }

  /**
   * The hits of {@code batch} whose document is still the version the search matched; the others
   * are version conflicts, counted and added to {@code skipped}.
   */
  private static List<Hit> unchanged(
      IndexHandle h, List<Hit> batch, Job job, Progress p, Set<String> skipped) throws IOException {
    List<Hit> fresh = new ArrayList<>(batch.size());
    for (Hit hit : batch) {
      Optional<Document> now = h.service().get(hit.id());
      if (now.isPresent() && sameSource(now.get(), hit.document())) {
        fresh.add(hit);
      } else {
        conflict(h, hit.id(), job, p, skipped, now.isEmpty() ? "is gone" : "changed");
      }
    }
    return fresh;
  }

  private static boolean sameSource(Document a, Document b) {
    return b != null
        && (a.source().equals(b.source())
            || EsDocuments.source(a).toString().equals(EsDocuments.source(b).toString()));
  }

  private static void conflict(
      IndexHandle h, String id, Job job, Progress p, Set<String> skipped, String what) {
    p.conflicts++;
    skipped.add(id);
    if (!job.proceed()) {
      p.aborted = true;
      p.failure(
          h.name(),
          id,
          409,
          "version_conflict_engine_exception",
          "["
              + Text.quote(id)
              + "]: version conflict, the document "
              + what
              + " between the search and the write");
    }
  }

  /** Writes one batch through the store's bulk (one log write) and counts its outcomes. */
  private static void apply(
      IndexHandle h, List<Hit> hits, List<Operation> ops, Job job, Progress p, Set<String> skipped)
      throws IOException {
    if (ops.isEmpty()) {
      return;
    }
    List<BulkItemResult> results =
        h.service().bulk(ops, new ArrayList<>(Collections.nCopies(ops.size(), null)));
    for (int i = 0; i < results.size(); i++) {
      BulkItemResult r = results.get(i);
      String id = hits.get(i).id();
      if (r.failed()) {
        InvalidRequestException e = r.error();
        int status = e instanceof EsBulkParser.ItemError ie ? ie.status() : 400;
        p.aborted = true; // as Elasticsearch: a failure other than a conflict always aborts
        skipped.add(id);
        p.failure(h.name(), id, status, e.type(), e.getMessage());
      } else if (r.result().outcome() == WriteResult.Outcome.NOT_FOUND) {
        conflict(h, id, job, p, skipped, "is gone");
      } else {
        p.done++;
      }
    }
  }
}
