package org.searchlab.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.searchlab.core.IndexStats;
import org.searchlab.core.SearchIndex;

/**
 * The server's meters in one Prometheus registry. Meter names follow Micrometer's dotted style and
 * come out as {@code searchlab_requests_seconds_bucket{dialect,endpoint,query_type,status}} and so
 * on. Thread-safe: Micrometer meters are, and index gauges read an immutable {@link IndexStats}
 * snapshot taken once per scrape.
 */
public final class ServerMetrics implements AutoCloseable {
  /** The request timer's name. */
  public static final String REQUESTS = "searchlab.requests";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, IndexMeters> indexes = new ConcurrentHashMap<>();

  /** One index's gauges, tagged with its name, and the stats snapshot they read. */
  private final class IndexMeters {
    final String name;
    final SearchIndex index;
    final AtomicReference<IndexStats> stats = new AtomicReference<>();
    final Set<String> memoryParts = ConcurrentHashMap.newKeySet();
    final Set<String> counterNames = ConcurrentHashMap.newKeySet();
    final Set<String> perVectorParts = ConcurrentHashMap.newKeySet();
    final java.util.List<io.micrometer.core.instrument.Meter> meters =
        new java.util.concurrent.CopyOnWriteArrayList<>();

    IndexMeters(String name, SearchIndex index) {
      this.name = name;
      this.index = index;
    }

    void gauge(
        String meter, String description, java.util.function.ToDoubleFunction<IndexStats> f) {
      meters.add(
          Gauge.builder(meter, stats, s -> value(s, f))
              .description(description)
              .tag("index", name)
              .register(registry));
    }

    /**
     * Takes a fresh snapshot and registers gauges for parts and counters seen for the first time.
     */
    void refresh() throws IOException {
      IndexStats s = index.stats();
      stats.set(s);
      for (String part : s.memoryBytes().keySet()) {
        if (memoryParts.add(part)) {
          meters.add(
              Gauge.builder(
                      "searchlab.index.memory.bytes",
                      stats,
                      r -> value(r, st -> st.memoryBytes().getOrDefault(part, 0L)))
                  .description("estimated heap bytes per part of the index")
                  .tag("index", name)
                  .tag("part", part)
                  .register(registry));
        }
      }
      for (String part : s.vectorBytesPerVector().keySet()) {
        if (perVectorParts.add(part)) {
          meters.add(
              Gauge.builder(
                      "searchlab.index.vector.bytes.per.vector",
                      stats,
                      r -> value(r, st -> st.vectorBytesPerVector().getOrDefault(part, 0L)))
                  .description(
                      "bytes each indexed vector costs per representation (float, int8, graph)")
                  .tag("index", name)
                  .tag("part", part)
                  .register(registry));
        }
      }
      for (String counter : s.counters().keySet()) {
        if (counterNames.add(counter)) {
          meters.add(
              FunctionCounter.builder(
                      "searchlab.index.events", stats, r -> value(r, st -> st.counter(counter)))
                  .description("the index's own monotonic counters")
                  .tag("index", name)
                  .tag("name", counter)
                  .register(registry));
        }
      }
    }
  }

  public ServerMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
  }

  /**
   * Publishes an index's statistics under its name (tag {@code index}); they are read once per
   * scrape ({@link #scrape()}), not per meter.
   */
  public void bindIndex(String name, SearchIndex searchIndex) {
    IndexMeters m = new IndexMeters(name, searchIndex);
    if (indexes.putIfAbsent(name, m) != null) {
      throw new IllegalStateException("index " + name + " is bound already");
    }
    m.gauge("searchlab.index.documents", "live documents visible to search", IndexStats::docCount);
    m.gauge(
        "searchlab.index.deleted.documents",
        "deleted documents still occupying space",
        IndexStats::deletedDocs);
    m.gauge("searchlab.index.segments", "searchable segments", IndexStats::segmentCount);
    m.gauge(
        "searchlab.index.wal.bytes", "bytes of the write-ahead log on disk", IndexStats::walBytes);
    m.gauge(
        "searchlab.index.last.serial",
        "the newest acknowledged log serial",
        IndexStats::lastSerial);
    m.meters.add(
        Gauge.builder("searchlab.index.writable", searchIndex, i -> i.health().writable() ? 1 : 0)
            .description(
                "1 while the store accepts writes; 0 once its writer or write-ahead log stopped"
                    + " after a failure (GET /health says which)")
            .tag("index", name)
            .register(registry));
  }

  /** Removes an index's meters (the index was deleted). */
  public void unbindIndex(String name) {
    IndexMeters m = indexes.remove(name);
    if (m != null) {
      for (io.micrometer.core.instrument.Meter meter : m.meters) {
        registry.remove(meter);
      }
    }
  }

  private static double value(
      AtomicReference<IndexStats> ref, java.util.function.ToDoubleFunction<IndexStats> f) {
    IndexStats s = ref.get();
    return s == null ? Double.NaN : f.applyAsDouble(s);
  }

  /** Publishes an executor's queue depth, active threads and completed tasks. */
  public void bindExecutor(String pool, ThreadPoolExecutor executor) {
    Gauge.builder("searchlab.executor.queued", executor, e -> e.getQueue().size())
        .tag("pool", pool)
        .register(registry);
    Gauge.builder("searchlab.executor.active", executor, ThreadPoolExecutor::getActiveCount)
        .tag("pool", pool)
        .register(registry);
    FunctionCounter.builder(
            "searchlab.executor.completed", executor, ThreadPoolExecutor::getCompletedTaskCount)
        .tag("pool", pool)
        .register(registry);
  }

  /** Records one request. */
  public void request(String dialect, String endpoint, String queryType, int status, long nanos) {
    String key = dialect + '\0' + endpoint + '\0' + queryType + '\0' + status;
    timers
        .computeIfAbsent(
            key,
            k ->
                Timer.builder(REQUESTS)
                    .description("HTTP requests by dialect, endpoint, query type and status")
                    .tag("dialect", dialect)
                    .tag("endpoint", endpoint)
                    .tag("query_type", queryType)
                    .tag("status", Integer.toString(status))
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofMillis(1))
                    .maximumExpectedValue(Duration.ofSeconds(30))
                    .register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /** Counts {@code n} feed operations of one type ({@code put}, {@code update}, {@code delete}). */
  public void feed(String op, String outcome, long n) {
    counter("searchlab.feed.operations", "op", op, "outcome", outcome).increment(n);
  }

  /** Counts a request refused with 429 because {@code pool}'s queue was full. */
  /**
   * Counts a connection-level refusal or failure: {@code reason} is {@code internal_error} (a
   * {@code Throwable} at the task boundary, answered 500), {@code too_many_connections}, {@code
   * read_timeout}, {@code idle_timeout}, {@code queue_timeout}, {@code malformed} or {@code
   * store_stopped} (a write to a store that stopped after a failure, answered 503).
   */
  public void refused(String reason) {
    counter("searchlab.server.refused", "reason", reason, "outcome", "closed_or_answered")
        .increment();
  }

  public void rejected(String pool) {
    counter("searchlab.executor.rejected", "pool", pool, "outcome", "429").increment();
  }

  /** Counts the nanoseconds spent embedding query text. */
  public void embed(long nanos) {
    Timer.builder("searchlab.embed")
        .description("query text embedding")
        .publishPercentileHistogram()
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  private Counter counter(String name, String k1, String v1, String k2, String v2) {
    return counters.computeIfAbsent(
        name + '\0' + v1 + '\0' + v2,
        k -> Counter.builder(name).tag(k1, v1).tag(k2, v2).register(registry));
  }

  /**
   * The feed operations counted so far ({@link #feed}) whose operation is one of {@code ops} and
   * whose outcome is one of {@code outcomes}. Reads the counters; thread-safe.
   */
  public long feedCount(Set<String> ops, Set<String> outcomes) {
    double n = 0;
    for (Counter c : registry.find("searchlab.feed.operations").counters()) {
      if (ops.contains(c.getId().getTag("op")) && outcomes.contains(c.getId().getTag("outcome"))) {
        n += c.count();
      }
    }
    return (long) n;
  }

  /**
   * The requests recorded so far ({@link #request}) whose endpoint label is one of {@code
   * endpoints} and whose status is in [{@code fromStatus}, {@code toStatus}), over every dialect
   * and query type. A request is recorded once its answer is written, so a client can see its
   * answer a moment before the count moves. Thread-safe.
   */
  public long requestCount(Set<String> endpoints, int fromStatus, int toStatus) {
    long n = 0;
    for (Timer t : registry.find(REQUESTS).timers()) {
      String status = t.getId().getTag("status");
      if (status == null || !endpoints.contains(t.getId().getTag("endpoint"))) {
        continue;
      }
      int s = Integer.parseInt(status);
      if (s >= fromStatus && s < toStatus) {
        n += t.count();
      }
    }
    return n;
  }

  /** The requests refused with 429 so far because {@code pool}'s queue was full. Thread-safe. */
  public long rejectedCount(String pool) {
    double n = 0;
    for (Counter c : registry.find("searchlab.executor.rejected").tag("pool", pool).counters()) {
      n += c.count();
    }
    return (long) n;
  }

  /**
   * The Prometheus exposition text. Takes one fresh {@link IndexStats} snapshot of each index
   * first, so all of an index's gauges in a scrape agree.
   */
  public String scrape() throws IOException {
    for (IndexMeters m : indexes.values()) {
      try {
        m.refresh();
      } catch (IllegalStateException closed) {
        // Deleted while this scrape ran: its meters are being removed.
      }
    }
    return registry.scrape();
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
