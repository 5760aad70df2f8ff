// Just over 500 lines: both feed clients (Vespa's and _bulk) and the refeed loop share their
// document bodies and accounting here.
package org.searchlab.bench.experiment;

import ai.vespa.feed.client.DocumentId;
import ai.vespa.feed.client.FeedClient;
import ai.vespa.feed.client.FeedClientBuilder;
import ai.vespa.feed.client.OperationParameters;
import ai.vespa.feed.client.Result;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.searchlab.bench.load.CpuMeter;
import org.searchlab.bench.load.ProcessCpu;
import org.searchlab.core.Document;
import org.searchlab.core.SourceJson;

/**
 * Feeds documents as the benchmark did: Elasticsearch {@code _bulk} requests of {@link #ES_BATCH}
 * documents from {@link #ES_THREADS} client threads, or Vespa {@code /document/v1} operations, one
 * per document, with Vespa's feed client over HTTP/2 (up to {@link #VESPA_IN_FLIGHT} in flight). A
 * 429 is retried (after its {@code Retry-After} for bulks, by the feed client's throttling for
 * Vespa operations), and so is a bulk's 503 with {@code Retry-After}: the server's answer to a
 * request that waited in its queue past the request timeout and was not run (Elasticsearch's Python
 * client retries 503 too). Other rejections are counted; a feed that builds an index refuses them
 * ({@link FeedStats#requireComplete}).
 *
 * <p>Thread-safe: each call uses its own threads; the HTTP client is shared.
 */
public final class Feeder {
  /** The benchmark's Elasticsearch feed: 16 client threads. */
  public static final int ES_THREADS = 16;

  /** The benchmark's Elasticsearch bulk size. */
  public static final int ES_BATCH = 6_000;

  private final HttpClient http;
  private final URI base;
  private final boolean elasticsearch;
  private final int batchSize;
  private final BenchMapping mapping;

  /**
   * @param batchSize documents per {@code _bulk} request (Elasticsearch dialect only)
   */
  public Feeder(HttpClient http, URI base, boolean elasticsearch, int batchSize) {
    this(http, base, elasticsearch, batchSize, BenchMapping.PRODUCT);
  }

  /**
   * @param batchSize documents per {@code _bulk} request (Elasticsearch dialect only)
   * @param mapping the index fed (its name, and the field the update operation changes)
   */
  public Feeder(
      HttpClient http, URI base, boolean elasticsearch, int batchSize, BenchMapping mapping) {
    this.http = http;
    this.base = base;
    this.elasticsearch = elasticsearch;
    this.batchSize = batchSize;
    this.mapping = mapping;
  }

  /** Feeds every document once. */
  public FeedStats feed(List<Document> docs, FeedOp op, CpuMeter cpu) throws InterruptedException {
    return run(docs, op, cpu, new AtomicBoolean(false), false, ES_THREADS, new AtomicLong());
  }

  /** Feeds with an explicit number of client threads (the sweep feeds batches one at a time). */
  public FeedStats feed(List<Document> docs, FeedOp op, CpuMeter cpu, int threads)
      throws InterruptedException {
    return run(docs, op, cpu, new AtomicBoolean(false), false, threads, new AtomicLong());
  }

  /**
   * Refeeds the documents over and over until {@code stop} is set (refeed under query load). Bulk
   * requests carry at most {@link #LOOP_BATCH} documents from {@link #LOOP_THREADS} threads here,
   * so that the requests still in flight when the queries end drain in seconds, while still keeping
   * the server's write threads busy.
   *
   * @param acked counts the documents the engine acknowledged as they are answered, so that the
   *     caller can read the feed's rate over any stretch of it (the query cells it runs beside)
   */
  public FeedStats feedUntil(
      List<Document> docs, CpuMeter cpu, AtomicBoolean stop, AtomicLong acked)
      throws InterruptedException {
    Feeder small = new Feeder(http, base, elasticsearch, Math.min(batchSize, LOOP_BATCH), mapping);
    return small.run(docs, FeedOp.PUT, cpu, stop, true, LOOP_THREADS, acked);
  }

  /**
   * Encodes the bodies {@link #feedUntil} sends, so that a caller can do it before it starts the
   * queries the refeed runs beside: encoded in the refeed's own thread, they competed with those
   * queries for the cores and could take longer than the whole refeed period (a run measured 0
   * documents for the segmented store that way).
   */
  public void prepareLoop(List<Document> docs) {
    if (elasticsearch) {
      bulkBodies(mapping).of(docs, FeedOp.PUT, Math.min(batchSize, LOOP_BATCH));
    } else {
      vespaBodies(mapping).of(docs, FeedOp.PUT, 1);
    }
  }

  /** Elasticsearch-dialect client threads of the looping refeed. */
  public static final int LOOP_THREADS = 4;

  /** Bulk size of the looping refeed under queries. */
  public static final int LOOP_BATCH = 1_000;

  /**
   * @param done counts acknowledged documents (a fresh counter, or the caller's of {@link
   *     #feedUntil}); the returned stats count what it gained during this feed
   */
  private FeedStats run(
      List<Document> docs,
      FeedOp op,
      CpuMeter cpu,
      AtomicBoolean stop,
      boolean loop,
      int esThreads,
      AtomicLong done)
      throws InterruptedException {
    if (!elasticsearch) {
      return runVespa(
          docs, op, cpu, stop, loop ? LOOP_VESPA_IN_FLIGHT : VESPA_IN_FLIGHT, loop, done);
    }
    int unitSize = batchSize;
    int units = (docs.size() + unitSize - 1) / unitSize;
    // The request bodies are encoded before the clock starts (once per corpus, operation and batch
    // size): the feeder shares the machine with the server, and re-encoding 24 MB of JSON per bulk
    // request while the server works would take cores from the server and, in the refeed under
    // queries, stall the query clients of this JVM with garbage collections.
    // Past a memory budget (the full profile's million documents) they are encoded per request.
    List<byte[]> bodies = bulkBodies(mapping).of(docs, op, unitSize);
    int threads = esThreads;
    AtomicLong next = new AtomicLong();
    long done0 = done.get();
    AtomicLong errors = new AtomicLong();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    Window window = Window.start(cpu, !loop);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      workers.add(
          Thread.ofPlatform()
              .name("feed-" + t)
              .daemon(true)
              .start(
                  () -> {
                    try {
                      while (!stop.get()) {
                        long u = next.getAndIncrement();
                        if (!loop && u >= units) {
                          return;
                        }
                        int from = (int) (u % units) * unitSize;
                        List<Document> slice =
                            docs.subList(from, Math.min(docs.size(), from + unitSize));
                        long failed =
                            bulk(
                                bodies != null
                                    ? bodies.get((int) (u % units))
                                    : body(slice, op, mapping),
                                slice.size());
                        errors.addAndGet(failed);
                        done.addAndGet(slice.size() - failed);
                      }
                    } catch (IOException | RuntimeException e) {
                      failures.add(e);
                      stop.set(true);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }));
    }
    for (Thread w : workers) {
      w.join();
    }
    return window.stats(done.get() - done0, errors.get(), loop ? List.of() : failures);
  }

  /**
   * The measured window of a feed: wall clock, the server's CPU at its start, and the runner's own
   * CPU (-1 when not measured: in the looping refeed the query clients share the runner's JVM).
   */
  private record Window(CpuMeter cpu, long cpu0, long second0, long client0, long t0) {
    static Window start(CpuMeter cpu, boolean measureClient) {
      long second0 = cpu.second().map(CpuMeter::cpuNanos).orElse(0L);
      long client0 = measureClient ? ProcessCpu.thisJvmNanos() : -1;
      return new Window(cpu, cpu.cpuNanos(), second0, client0, System.nanoTime());
    }

    /** The window's figures; throws the first failure when there is one. */
    FeedStats stats(long done, long errors, List<Throwable> failures) {
      long wall = System.nanoTime() - t0;
      long cpu1 = cpu.cpuNanos();
      Double secondCores =
          cpu.second().map(m -> ProcessCpu.cores(second0, m.cpuNanos(), wall)).orElse(null);
      if (!failures.isEmpty()) {
        throw new IllegalStateException("feed failed: " + failures.get(0), failures.get(0));
      }
      Double clientCores =
          client0 < 0 ? null : ProcessCpu.cores(client0, ProcessCpu.thisJvmNanos(), wall);
      return new FeedStats(
          done, errors, wall / 1e9, ProcessCpu.cores(cpu0, cpu1, wall), secondCores, clientCores);
    }
  }

  /** Vespa operations in flight in a feed (the feed client's own throttling may send fewer). */
  public static final int VESPA_IN_FLIGHT = 128;

  /** Vespa operations in flight in the looping refeed under queries. */
  public static final int LOOP_VESPA_IN_FLIGHT = 16;

  /**
   * Feeds a Vespa-dialect engine with Vespa's own feed client (HTTP/2, asynchronous, retries on 429
   * and 503), as the benchmark fed Vespa: one {@code /document/v1} operation per document, up to
   * {@code inFlight} at a time, uncompressed like the {@code _bulk} bodies. The operations' JSON is
   * encoded before the clock starts.
   */
  private FeedStats runVespa(
      List<Document> docs,
      FeedOp op,
      CpuMeter cpu,
      AtomicBoolean stop,
      int inFlight,
      boolean loop,
      AtomicLong done)
      throws InterruptedException {
    List<byte[]> bodies = vespaBodies(mapping).of(docs, op, 1);
    Semaphore slots = new Semaphore(inFlight);
    long done0 = done.get();
    AtomicLong errors = new AtomicLong();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    Window window = Window.start(cpu, !loop);
    try (FeedClient client =
        FeedClientBuilder.create(base)
            .setMaxStreamPerConnection(inFlight)
            .setConnectionsPerEndpoint(1)
            // Plain JSON, as the _bulk feeder sends: the client's default (auto) gzips every body
            // over 512 bytes, which on one machine's loopback buys nothing and costs the client
            // and the server CPU on the cores being measured, on one dialect's side only.
            .setCompression(FeedClientBuilder.Compression.none)
            .build()) {
      for (long i = 0; !stop.get() && (loop || i < docs.size()); i++) {
        int k = (int) (i % docs.size());
        Document d = docs.get(k);
        String json =
            new String(
                bodies != null ? bodies.get(k) : vespaBody(List.of(d), op, mapping),
                StandardCharsets.UTF_8);
        DocumentId id = DocumentId.of(mapping.index(), mapping.index(), d.id());
        slots.acquire();
        java.util.concurrent.CompletableFuture<Result> f =
            op == FeedOp.PUT
                ? client.put(id, json, OperationParameters.empty())
                : client.update(id, json, OperationParameters.empty());
        f.whenComplete(
            (r, e) -> {
              if (e == null && r.type() == Result.Type.success) {
                done.incrementAndGet();
              } else {
                errors.incrementAndGet();
                if (e != null && !loop) {
                  failures.add(e);
                }
              }
              slots.release();
            });
      }
      slots.acquire(inFlight); // every operation answered
    }
    return window.stats(done.get() - done0, errors.get(), failures);
  }

  /** Encoded Vespa operations ({@code {"fields":...}}), one per document. */
  private static final BulkBodies VESPA_BODIES = new BulkBodies(Feeder::vespaBody);

  /** The Vespa operation body of the one document in {@code one}. */
  static byte[] vespaBody(List<Document> one, FeedOp op) {
    return vespaBody(one, op, BenchMapping.PRODUCT);
  }

  /** The Vespa operation body of the one document in {@code one}, for an index of {@code m}. */
  static byte[] vespaBody(List<Document> one, FeedOp op, BenchMapping m) {
    Document d = one.get(0);
    ObjectNode body = Json.object();
    if (op == FeedOp.PUT) {
      body.set("fields", source(d, m));
    } else if (m.product()) {
      body.putObject("fields").putObject("price").put("assign", d.price() + 100);
    } else {
      body.putObject("fields")
          .putObject(m.updateField())
          .set("assign", SourceJson.json(m.updatedValue(d)));
    }
    return body.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Encoded {@code _bulk} bodies, shared by every feeder of this JVM. */
  private static final BulkBodies BODIES = new BulkBodies(Feeder::body);

  /** Encoded bodies of the indexes of other mappings, by mapping (one a run, in practice). */
  private static final Map<BenchMapping, BulkBodies> MAPPED_BODIES =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static final Map<BenchMapping, BulkBodies> MAPPED_VESPA_BODIES =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static BulkBodies bulkBodies(BenchMapping m) {
    return m.product()
        ? BODIES
        : MAPPED_BODIES.computeIfAbsent(m, k -> new BulkBodies((s, op) -> body(s, op, k)));
  }

  private static BulkBodies vespaBodies(BenchMapping m) {
    return m.product()
        ? VESPA_BODIES
        : MAPPED_VESPA_BODIES.computeIfAbsent(
            m, k -> new BulkBodies((s, op) -> vespaBody(s, op, k)));
  }

  /**
   * The {@code _bulk} bodies of a corpus for one operation and batch size, in batch order, kept for
   * the corpus's lifetime (the same documents are fed, refed and updated several times a run), up
   * to {@link #budget(long)} in all. Thread-safe: computed once per key under the map's lock.
   */
  static final class BulkBodies {
    private final Map<Key, List<byte[]>> cache = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicLong bytes = new AtomicLong();
    private final long budget;
    private final java.util.function.BiFunction<List<Document>, FeedOp, byte[]> encoder;

    /** Bodies made by {@code encoder} from a batch, kept up to {@link #budget(long)}. */
    BulkBodies(java.util.function.BiFunction<List<Document>, FeedOp, byte[]> encoder) {
      this(encoder, budget(Runtime.getRuntime().maxMemory()));
    }

    /** The most the bodies of all corpora may take in a heap of {@code maxHeap} bytes. */
    static final long MAX_BUDGET = 1L << 30;

    /**
     * The bodies' budget in a heap of {@code maxHeap} bytes: a third of it, at most {@link
     * #MAX_BUDGET}. Up to a 3 GB heap (the runner's default, the standard profile's 100k documents
     * of about 0.5 GB of bodies) that is the third it always was; the 6 GB runner of the 1M profile
     * needs the rest for the corpus and the exact oracle (design-68 §2.3), and bodies of 1M
     * documents (about 5 GB) would not fit in any case: they are then encoded batch by batch.
     */
    static long budget(long maxHeap) {
      return Math.min(maxHeap / 3, MAX_BUDGET);
    }

    /** With a budget in (estimated) bytes, for tests. */
    BulkBodies(java.util.function.BiFunction<List<Document>, FeedOp, byte[]> encoder, long budget) {
      this.encoder = encoder;
      this.budget = budget;
    }

    /** The corpus by identity: equal lists of other documents must not share bodies. */
    private record Key(IdentityRef docs, FeedOp op, int batch) {}

    private record IdentityRef(List<Document> docs) {
      @Override
      public boolean equals(Object o) {
        return o instanceof IdentityRef r && r.docs == docs;
      }

      @Override
      public int hashCode() {
        return System.identityHashCode(docs);
      }
    }

    /** The bodies, or null when they would not fit the budget. */
    List<byte[]> of(List<Document> docs, FeedOp op, int batch) {
      Key key = new Key(new IdentityRef(docs), op, batch);
      List<byte[]> cached = cache.get(key);
      if (cached != null) {
        return cached;
      }
      long estimate = 0;
      for (Document d : docs) {
        estimate += op == FeedOp.PRICE_UPDATE ? 100 : estimate(d);
      }
      if (bytes.get() + estimate > budget) {
        return null;
      }
      return cache.computeIfAbsent(
          key,
          k -> {
            List<byte[]> out = new ArrayList<>();
            long size = 0;
            for (int from = 0; from < docs.size(); from += batch) {
              byte[] b = encoder.apply(docs.subList(from, Math.min(docs.size(), from + batch)), op);
              size += b.length;
              out.add(b);
            }
            bytes.addAndGet(size);
            return List.copyOf(out);
          });
    }

    /** A document's line pair, about: its text, and a vector component in at most 12 chars. */
    static long estimate(Document d) {
      int vector = d.embedding() == null ? 0 : d.embedding().length * 12;
      return 200 + d.title().length() + d.description().length() + vector;
    }
  }

  /** One {@code _bulk} request's NDJSON body for {@code slice}. */
  static byte[] body(List<Document> slice, FeedOp op) {
    return body(slice, op, BenchMapping.PRODUCT);
  }

  /**
   * One {@code _bulk} request's NDJSON body for {@code slice} into the index of {@code m}; an
   * update adds {@value BenchMapping#UPDATE_DELTA} to its update field.
   */
  static byte[] body(List<Document> slice, FeedOp op, BenchMapping m) {
    // Written as UTF-8 straight into one buffer sized from the documents: at the full profile's 1M
    // documents the bodies are encoded per request by 16 threads, and a StringBuilder, its String
    // and the String's bytes (three copies of 30 MB each, six where the text is not Latin-1) ran
    // the runner's 6 GB heap out of memory beside the corpus (2026-12-06).
    long size = 0;
    for (Document d : slice) {
      size += op == FeedOp.PUT ? BulkBodies.estimate(d) : 120 + d.id().length();
    }
    ByteArrayOutputStream body =
        new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 16, size));
    try {
      for (Document d : slice) {
        ObjectNode meta = Json.object();
        meta.putObject(op == FeedOp.PUT ? "index" : "update")
            .put("_index", m.index())
            .put("_id", d.id());
        line(body, meta);
        if (op == FeedOp.PUT) {
          line(body, source(d, m));
        } else if (m.product()) {
          ObjectNode upd = Json.object();
          upd.putObject("doc").put("price", d.price() + 100);
          line(body, upd);
        } else {
          ObjectNode upd = Json.object();
          upd.putObject("doc").set(m.updateField(), SourceJson.json(m.updatedValue(d)));
          line(body, upd);
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return body.toByteArray();
  }

  /** Writes {@code node} as one NDJSON line, the bytes {@code node.toString()} would give. */
  private static void line(ByteArrayOutputStream out, JsonNode node) throws IOException {
    LINE_WRITER.writeValue(out, node);
    out.write('\n');
  }

  /** Compact JSON as {@link JsonNode#toString()} writes it, leaving the stream open. */
  private static final com.fasterxml.jackson.databind.ObjectWriter LINE_WRITER =
      new com.fasterxml.jackson.databind.ObjectMapper()
          .configure(com.fasterxml.jackson.core.JsonGenerator.Feature.AUTO_CLOSE_TARGET, false)
          .writer();

  private long bulk(byte[] body, int docs) throws IOException, InterruptedException {
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve("/" + mapping.index() + "/_bulk"))
            .timeout(Json.REQUEST_TIMEOUT)
            .header("Content-Type", "application/x-ndjson")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    HttpResponse<byte[]> r = sendRetrying(req);
    if (r.statusCode() != 200) {
      return docs;
    }
    JsonNode json = Json.MAPPER.readTree(r.body());
    if (!json.path("errors").asBoolean(false)) {
      return 0;
    }
    long failed = 0;
    for (JsonNode item : json.path("items")) {
      JsonNode result = item.elements().hasNext() ? item.elements().next() : item;
      if (result.path("status").asInt(500) / 100 != 2) {
        failed++;
      }
    }
    return failed;
  }

  private HttpResponse<byte[]> sendRetrying(HttpRequest req)
      throws IOException, InterruptedException {
    for (int attempt = 0; ; attempt++) {
      HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
      if (!retryable(r) || attempt >= 1_000) {
        return r;
      }
      // Retry-After is in whole seconds; a tenth of it (10 ms to 1 s) keeps the queue busy
      // without hammering it.
      long waitMs = 50;
      try {
        waitMs =
            r.headers()
                .firstValue("Retry-After")
                .map(v -> Long.parseLong(v.trim()) * 100)
                .orElse(50L);
      } catch (NumberFormatException e) {
        // keep the default
      }
      Thread.sleep(Math.min(1_000, Math.max(10, waitMs)));
    }
  }

  /**
   * Whether a bulk's answer says it was not applied and may be sent again: 429 (a full queue), or
   * 503 with {@code Retry-After} (it waited past the request timeout and was not run). A 503
   * without it may have been applied in part, so it is counted as rejected.
   */
  static boolean retryable(HttpResponse<?> r) {
    return r.statusCode() == 429
        || (r.statusCode() == 503 && r.headers().firstValue("Retry-After").isPresent());
  }

  /** The document's source in an index of {@code m}: the product's, or its own as it came. */
  static ObjectNode source(Document d, BenchMapping m) {
    return m.product() ? source(d) : SourceJson.json(d.source());
  }

  /** The document as the benchmark's source: every field, the embedding as a JSON array. */
  static ObjectNode source(Document d) {
    ObjectNode s = Json.object();
    s.put("id", d.id());
    s.put("title", d.title());
    s.put("description", d.description());
    if (d.category() != null) {
      s.put("category", d.category());
    }
    s.put("price", d.price());
    s.put("average_rating", d.averageRating());
    if (d.embedding() != null) {
      s.set("embedding", Json.vector(d.embedding()));
    }
    return s;
  }
}
