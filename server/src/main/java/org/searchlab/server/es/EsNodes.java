package org.searchlab.server.es;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadPoolExecutor;
import org.searchlab.core.SearchRequest;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.Json;
import org.searchlab.server.ServerConfig;
import org.searchlab.server.Text;
import org.searchlab.server.metrics.ServerMetrics;
import org.searchlab.server.service.IndicesView;

/**
 * {@code GET /_nodes[/{filter}][/{metrics}]} (node info) and {@code GET /_nodes[/{filter}]/stats[/
 * {metrics}[/{index_metrics}]]} (node stats) for the one node this server is. Info: name, version,
 * roles, the settings the server runs with, {@code os}, {@code process}, {@code jvm} ({@link
 * JvmProbe}), {@code thread_pool} (the search and write executors), {@code http} (the bound
 * address), no plugins or modules, no ingest processors. Stats: {@code jvm}, {@code os}, {@code
 * process}, {@code fs} (the data directory's file system) from the platform; {@code thread_pool}
 * from the executors; {@code indices} ({@link EsIndexStats}) from the indexes; {@code ingest} from
 * the server's feed counters. There are no ingest pipelines, so {@code ingest.pipelines} is empty,
 * and {@code ingest.total} counts what every document written takes instead, the feed: {@code
 * count} the index, create and update operations received, {@code failed} those refused (no time:
 * the feed is not timed per document). Sections the server cannot fill (transport, breakers,
 * scripts, ...) are left out, also when asked for by name. Thread-safe: stateless over thread-safe
 * parts.
 */
final class EsNodes {
  static final Set<String> INFO_METRICS =
      Set.of(
          "settings",
          "os",
          "process",
          "jvm",
          "thread_pool",
          "transport",
          "http",
          "remote_cluster_server",
          "plugins",
          "ingest",
          "aggregations",
          "indices");

  static final Set<String> STATS_METRICS =
      Set.of(
          "indices",
          "os",
          "process",
          "jvm",
          "thread_pool",
          "fs",
          "transport",
          "http",
          "breaker",
          "script",
          "discovery",
          "ingest",
          "adaptive_selection",
          "script_cache",
          "indexing_pressure",
          "repositories",
          "allocations");

  static final Set<String> INFO_PARAMS = Set.of("flat_settings", "timeout", "master_timeout");
  static final Set<String> STATS_PARAMS =
      Set.of(
          "level",
          "timeout",
          "types",
          "groups",
          "fields",
          "completion_fields",
          "fielddata_fields",
          "include_segment_file_sizes",
          "include_unloaded_segments");

  private static final Set<String> INDEX_OPS = Set.of("put", "create", "update");

  private final LocalNode node;
  private final ServerConfig config;
  private final IndicesView indices;
  private final ServerMetrics serverMetrics;
  private final Map<String, ThreadPoolExecutor> pools;
  private final Optional<Path> dataDir;

  EsNodes(
      LocalNode node,
      ServerConfig config,
      IndicesView indices,
      ServerMetrics metrics,
      Map<String, ThreadPoolExecutor> pools,
      Optional<Path> dataDir) {
    this.node = node;
    this.config = config;
    this.indices = indices;
    this.serverMetrics = metrics;
    this.pools = pools;
    this.dataDir = dataDir;
  }

  /**
   * The settings the server runs with, flat, as node info and {@code _cluster/settings
   * ?include_defaults} report them: every value read from the server's configuration.
   */
  Map<String, String> settings() {
    Map<String, String> s = new TreeMap<>();
    s.put("cluster.name", LocalNode.NAME);
    s.put("node.name", LocalNode.NAME);
    dataDir.ifPresent(d -> s.put("path.data", d.toAbsolutePath().toString()));
    s.put("http.host", config.host());
    node.http().ifPresent(a -> s.put("http.port", Integer.toString(a.getPort())));
    s.put("http.max_content_length", byteSize(config.maxContentLength()));
    s.put("thread_pool.search.size", Integer.toString(config.searchThreads()));
    s.put("thread_pool.search.queue_size", Integer.toString(config.searchQueue()));
    s.put("thread_pool.write.size", Integer.toString(config.writeThreads()));
    s.put("thread_pool.write.queue_size", Integer.toString(config.writeQueue()));
    s.put("indices.query.bool.max_clause_count", Integer.toString(SearchRequest.maxClauseCount()));
    s.put("indices.query.bool.max_nested_depth", Integer.toString(config.limits().maxQueryDepth()));
    return s;
  }

  /** A byte count as Elasticsearch writes a byte-size setting: {@code 100mb}, {@code 512kb}. */
  static String byteSize(long bytes) {
    String[] units = {"gb", "mb", "kb"};
    long[] sizes = {1L << 30, 1L << 20, 1L << 10};
    for (int i = 0; i < units.length; i++) {
      if (bytes > 0 && bytes % sizes[i] == 0) {
        return bytes / sizes[i] + units[i];
      }
    }
    return bytes + "b";
  }

  private ObjectNode envelope(boolean selected) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    int n = selected ? 1 : 0;
    o.putObject("_nodes").put("total", n).put("successful", n).put("failed", 0);
    o.put("cluster_name", LocalNode.NAME);
    o.putObject("nodes");
    return o;
  }

  private ObjectNode identity(ObjectNode nodes) {
    ObjectNode n = nodes.putObject(node.id());
    n.put("name", LocalNode.NAME);
    n.put("host", node.ip());
    n.put("ip", node.ip());
    return n;
  }

  /** The body of a node info request. */
  ObjectNode info(ApiRequest r, String filter, Set<String> metrics) {
    EsParams.allowOnly(r, INFO_PARAMS);
    boolean flat = EsParams.bool(r, "flat_settings", false);
    EsParams.time(r, "timeout", java.time.Duration.ZERO, java.time.Duration.ofDays(365));
    EsParams.time(r, "master_timeout", java.time.Duration.ZERO, java.time.Duration.ofDays(365));
    boolean selected = node.matches(filter);
    ObjectNode o = envelope(selected);
    if (!selected) {
      return o;
    }
    ObjectNode n = identity((ObjectNode) o.get("nodes"));
    n.put("version", EsResponses.VERSION);
    n.put("build_flavor", "default");
    n.put("build_type", "searchlab");
    n.put("build_hash", "searchlab");
    var roles = n.putArray("roles");
    LocalNode.ROLES.forEach(roles::add);
    n.putObject("attributes");
    if (metrics.contains("settings")) {
      n.set("settings", ClusterSettings.render(settings(), flat));
    }
    if (metrics.contains("os")) {
      n.set("os", JvmProbe.osInfo());
    }
    if (metrics.contains("process")) {
      // The server never locks its memory (no mlockall).
      n.putObject("process")
          .put("refresh_interval_in_millis", 0) // no cache, as for os
          .put("id", ProcessHandle.current().pid())
          .put("mlockall", false);
    }
    if (metrics.contains("jvm")) {
      n.set("jvm", JvmProbe.jvmInfo());
    }
    if (metrics.contains("thread_pool")) {
      ObjectNode tp = n.putObject("thread_pool");
      pools.forEach(
          (name, p) ->
              tp.putObject(name)
                  .put("type", "fixed")
                  .put("size", p.getMaximumPoolSize())
                  .put(
                      "queue_size",
                      name.equals("search") ? config.searchQueue() : config.writeQueue()));
    }
    if (metrics.contains("http")) {
      ObjectNode http = n.putObject("http");
      http.putArray("bound_address").add(node.publishAddress());
      http.put("publish_address", node.publishAddress());
      http.put("max_content_length_in_bytes", config.maxContentLength());
    }
    if (metrics.contains("plugins")) {
      n.putArray("plugins");
      n.putArray("modules");
    }
    if (metrics.contains("ingest")) {
      n.putObject("ingest").putArray("processors");
    }
    return o;
  }

  /** The body of a node stats request. */
  ObjectNode stats(ApiRequest r, String filter, Set<String> metrics, Set<String> indexMetrics)
      throws IOException {
    EsParams.allowOnly(r, STATS_PARAMS);
    String level = EsParams.oneOf(r, "level", "node", Set.of("node", "indices", "shards"));
    EsParams.time(r, "timeout", java.time.Duration.ZERO, java.time.Duration.ofDays(365));
    for (String p : Set.of("include_segment_file_sizes", "include_unloaded_segments")) {
      EsParams.bool(r, p, false);
    }
    boolean selected = node.matches(filter);
    ObjectNode o = envelope(selected);
    if (!selected) {
      return o;
    }
    ObjectNode n = identity((ObjectNode) o.get("nodes"));
    n.put("timestamp", System.currentTimeMillis());
    var roles = n.putArray("roles");
    LocalNode.ROLES.forEach(roles::add);
    n.putObject("attributes");
    if (metrics.contains("indices")) {
      var snaps = EsIndexStats.read(indices, indices.names());
      ObjectNode ix = EsIndexStats.sections(snaps, indexMetrics);
      if (level.equals("indices")) {
        ObjectNode per = ix.putObject("indices");
        for (var s : snaps) {
          per.set(s.name(), EsIndexStats.sections(java.util.List.of(s), indexMetrics));
        }
      } else if (level.equals("shards")) {
        ObjectNode per = ix.putObject("shards");
        for (var s : snaps) {
          ObjectNode shard = EsIndexStats.sections(java.util.List.of(s), indexMetrics);
          shard
              .putObject("routing")
              .put("state", s.health().writable() ? "STARTED" : "UNASSIGNED")
              .put("primary", true)
              .put("node", node.id())
              .putNull("relocating_node");
          per.putArray(s.name()).addObject().set("0", shard);
        }
      }
      n.set("indices", ix);
    }
    if (metrics.contains("os")) {
      n.set("os", JvmProbe.osStats());
    }
    if (metrics.contains("process")) {
      n.set("process", JvmProbe.processStats());
    }
    if (metrics.contains("jvm")) {
      n.set("jvm", JvmProbe.jvmStats());
    }
    if (metrics.contains("thread_pool")) {
      ObjectNode tp = n.putObject("thread_pool");
      for (Map.Entry<String, ThreadPoolExecutor> e : new TreeMap<>(pools).entrySet()) {
        ThreadPoolExecutor p = e.getValue();
        tp.putObject(e.getKey())
            .put("threads", p.getPoolSize())
            .put("queue", p.getQueue().size())
            .put("active", p.getActiveCount())
            .put("rejected", serverMetrics.rejectedCount(e.getKey()))
            .put("largest", p.getLargestPoolSize())
            .put("completed", p.getCompletedTaskCount());
      }
    }
    if (metrics.contains("fs")) {
      JvmProbe.fsStats(dataDir).ifPresent(fs -> n.set("fs", fs));
    }
    if (metrics.contains("ingest")) {
      ObjectNode ingest = n.putObject("ingest");
      ingest
          .putObject("total")
          .put(
              "count",
              serverMetrics.feedCount(
                  INDEX_OPS, Set.of("created", "updated", "noop", "not_found", "rejected")))
          .put("failed", serverMetrics.feedCount(INDEX_OPS, Set.of("rejected")));
      ingest.putObject("pipelines");
    }
    return o;
  }

  /** A map of the executors by Elasticsearch thread pool name, in a stable order. */
  static Map<String, ThreadPoolExecutor> pools(
      ThreadPoolExecutor search, ThreadPoolExecutor write) {
    Map<String, ThreadPoolExecutor> m = new LinkedHashMap<>();
    m.put("search", search);
    m.put("write", write);
    return m;
  }

  private static final Set<String> NOT_NODES =
      Set.of(
          "usage", "hot_threads", "reload_secure_settings", "shutdown", "_repositories_metering");

  /**
   * The body of {@code GET /_nodes/...}; {@code rest} is the path after {@code _nodes}: info for
   * {@code [filter-or-metrics]} or {@code [filter, metrics]}, stats for {@code [[filter,] stats [,
   * metrics [, index metrics]]]}.
   */
  ObjectNode route(ApiRequest r, String[] rest) throws IOException {
    for (String part : rest) {
      if (NOT_NODES.contains(part)) {
        throw EsParams.unknownEndpoint(r);
      }
    }
    if (rest.length == 0) {
      return info(r, "_all", EsNodes.INFO_METRICS);
    }
    int stats = Arrays.asList(rest).indexOf("stats");
    if (stats == 0 || stats == 1) {
      String filter = stats == 1 ? rest[0] : "_all";
      String[] m = Arrays.copyOfRange(rest, stats + 1, rest.length);
      if (m.length > 2) {
        throw EsParams.unknownEndpoint(r);
      }
      Set<String> metrics =
          m.length == 0 ? EsNodes.STATS_METRICS : EsParams.metrics(r, m[0], EsNodes.STATS_METRICS);
      Set<String> indexMetrics = EsIndexStats.METRICS;
      if (m.length == 2) {
        if (!metrics.contains("indices")) {
          throw EsParams.bad(
              "request ["
                  + Text.quote(r.path())
                  + "] names index metrics but not the indices metric");
        }
        indexMetrics = EsParams.metrics(r, m[1], EsIndexStats.METRICS);
      }
      return stats(r, filter, metrics, indexMetrics);
    }
    if (rest.length == 1) {
      // /_nodes/{x}: metrics when every item is one, else a node filter (as Elasticsearch reads it)
      Set<String> items = EsParams.list(rest[0], "node filter or metrics");
      if (EsNodes.INFO_METRICS.containsAll(items)) {
        return info(r, "_all", items);
      }
      return info(r, rest[0], EsNodes.INFO_METRICS);
    }
    if (rest.length == 2) {
      return info(r, rest[0], EsParams.metrics(r, rest[1], EsNodes.INFO_METRICS));
    }
    throw EsParams.unknownEndpoint(r);
  }
}
