// Just over 500 lines: every cluster-level route (health, settings, nodes, tasks, stats,
// segments), each a short translation; _segments' rendering already lives in EsSegments.
package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.searchlab.server.ApiException;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.ApiResponse;
import org.searchlab.server.Dialect;
import org.searchlab.server.Json;
import org.searchlab.server.ServerConfig;
import org.searchlab.server.Text;
import org.searchlab.server.metrics.ServerMetrics;
import org.searchlab.server.service.IndicesView;
import org.searchlab.server.service.TaskRegistry;

/**
 * The Elasticsearch cluster-level routes, for the tools that check a cluster before and after they
 * use it (Rally, the official clients): {@code /_cluster/health}, {@code /_cluster/settings},
 * {@code /_cluster/state/master_node}, {@code /_nodes} (info and stats), {@code /_tasks}, {@code
 * [/{index}]/_stats}, {@code [/{index}]/_segments}, {@code
 * [/{index}]/_forcemerge?wait_for_completion=false}, and a {@code _search} or {@code _count} over
 * an index expression that matches no index (200 with nothing, as Elasticsearch answers with {@code
 * allow_no_indices}). {@link EsDialect} hands it every request {@link #owns} says is its own;
 * everything per index comes through {@link IndicesView}.
 *
 * <p>Waiting: a health request with conditions, or a task request with {@code
 * wait_for_completion=true}, does not hold a thread while it waits: its answer is a future ({@link
 * Waits}) completed once the condition holds (health is read again every {@link #POLL}) or the
 * timeout runs out. At most {@link #MAX_WAITERS} requests wait at once; one more is 429.
 *
 * <p>Thread-safe: its parts are, and it holds no other mutable state. {@link #close} ends the waits
 * and answers the requests still waiting.
 */
public final class EsClusterApi implements AutoCloseable {
  /** How often a waiting health request looks again. */
  static final Duration POLL = Duration.ofMillis(100);

  /** The most requests that may wait at once. */
  public static final int MAX_WAITERS = 256;

  /** The largest {@code PUT /_cluster/settings} body read. */
  static final int MAX_SETTINGS_BODY = 1 << 20;

  private final ServerConfig config;
  private final IndicesView indices;
  private final LocalNode node;
  private final ClusterSettings settings;
  private final EsNodes nodes;
  private final EsTasks tasks;
  private final Waits waits = new Waits(MAX_WAITERS, POLL);

  /**
   * What the cluster routes need.
   *
   * @param config the server's settings
   * @param indices the indexes the server holds
   * @param metrics the server's meters (feed counts, executor rejections)
   * @param searchPool the search executor, reported as thread pool {@code search}
   * @param writePool the write executor, reported as thread pool {@code write}, where background
   *     force-merges run
   * @param dataDir the data directory, where the node keeps its id and persistent settings ({@code
   *     _state/}); empty keeps both in memory
   */
  public record Setup(
      ServerConfig config,
      IndicesView indices,
      ServerMetrics metrics,
      ThreadPoolExecutor searchPool,
      ThreadPoolExecutor writePool,
      Optional<Path> dataDir) {}

  private EsClusterApi(Setup s, LocalNode node, ClusterSettings settings) {
    this.config = s.config();
    this.indices = s.indices();
    this.node = node;
    this.settings = settings;
    this.nodes =
        new EsNodes(
            node,
            s.config(),
            s.indices(),
            s.metrics(),
            EsNodes.pools(s.searchPool(), s.writePool()),
            s.dataDir());
    this.tasks = new EsTasks(node, s.indices(), s.writePool());
  }

  /**
   * Opens the cluster routes: reads (or makes) the node id and reads the persistent settings from
   * {@code dataDir/_state/}.
   *
   * @throws IOException if that state cannot be read or written
   */
  public static EsClusterApi open(Setup setup) throws IOException {
    LocalNode node = LocalNode.open(setup.dataDir(), new SecureRandom());
    return new EsClusterApi(setup, node, ClusterSettings.open(node.stateDir()));
  }

  /** Records the address the server bound, for {@code _nodes} and the tasks' nodes. */
  public void bound(InetSocketAddress address) {
    node.bound(address);
  }

  /** Whether {@code r} is a request these routes answer. Cheap: called on the event loop. */
  public boolean owns(ApiRequest r) {
    String[] s = r.segments();
    if (s.length == 0) {
      return false;
    }
    switch (s[0]) {
      case "_cluster", "_nodes", "_tasks", "_stats", "_segments" -> {
        return true;
      }
      default -> {}
    }
    if (s.length >= 2 && (s[1].equals("_stats") || s[1].equals("_segments"))) {
      return true;
    }
    boolean background = "false".equals(r.param("wait_for_completion"));
    if (background && s.length <= 2 && s[s.length - 1].equals("_forcemerge")) {
      return true;
    }
    if (s.length == 2 && (s[1].equals("_search") || s[1].equals("_count"))) {
      return IndexExpression.isMulti(s[0]) && matchesNothing(r, s[0]);
    }
    return false;
  }

  /**
   * Whether an index expression resolves to no index (or is refused: then these routes say why).
   */
  private boolean matchesNothing(ApiRequest r, String expression) {
    try {
      return IndexExpression.resolve(
              expression,
              indices.names(),
              IndexExpression.Options.of(r, IndexExpression.Options.LENIENT_WILDCARDS))
          .isEmpty();
    } catch (ApiException e) {
      return true;
    }
  }

  /** The executor a request of these routes runs on; see {@link #owns}. */
  public Dialect.Work work(ApiRequest r) {
    String[] s = r.segments();
    return switch (s[0]) {
      case "_cluster" -> {
        if (s.length >= 2 && s[1].equals("health") && (s.length > 2 || healthWaits(r))) {
          yield Dialect.Work.SEARCH; // it may wait: off the event loop, and answered by a future
        }
        if (s.length >= 2 && s[1].equals("settings") && !r.method().equals(HttpMethod.GET)) {
          yield Dialect.Work.WRITE; // writes the persistent settings to disk
        }
        yield Dialect.Work.INLINE;
      }
      case "_tasks" ->
          "true".equals(r.param("wait_for_completion")) ? Dialect.Work.SEARCH : Dialect.Work.INLINE;
      default ->
          s[s.length - 1].equals("_forcemerge")
              ? Dialect.Work.INLINE // only hands the merge to the write executor
              : Dialect.Work.SEARCH; // stats read the stores; an empty search reads its body
    };
  }

  private static boolean healthWaits(ApiRequest r) {
    for (String p :
        List.of("wait_for_status", "wait_for_nodes", "wait_for_active_shards", "timeout")) {
      if (r.param(p) != null) {
        return true;
      }
    }
    return false;
  }

  /** Answers {@code r} and blocks if it waits; {@link #handleAsync} is what the dispatcher uses. */
  public ApiResponse handle(ApiRequest r) throws IOException {
    try {
      return handleAsync(r).join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw e;
    }
  }

  /**
   * Answers {@code r}; the future fails with an {@link ApiException} (or what a store throws) where
   * a synchronous answer would have thrown. Reads the request's body before it returns.
   */
  public CompletableFuture<ApiResponse> handleAsync(ApiRequest r) throws IOException {
    String[] s = r.segments();
    String[] rest = Arrays.copyOfRange(s, 1, s.length);
    return switch (s[0]) {
      case "_cluster" -> cluster(r, rest);
      case "_nodes" -> {
        EsParams.method(r, HttpMethod.GET);
        yield done(
            ok(
                r,
                nodes.route(r, rest),
                rest.length > 0 && List.of(rest).contains("stats") ? "_nodes_stats" : "_nodes"));
      }
      case "_tasks" -> tasksRoute(r, rest);
      case "_stats" -> done(stats(r, "_all", rest));
      case "_segments" -> done(segments(r, "_all", rest.length));
      default -> {
        if (s.length >= 2 && s[1].equals("_stats")) {
          yield done(stats(r, s[0], Arrays.copyOfRange(s, 2, s.length)));
        }
        if (s.length >= 2 && s[1].equals("_segments")) {
          yield done(segments(r, s[0], s.length - 2));
        }
        if (s[s.length - 1].equals("_forcemerge")) {
          EsParams.method(r, HttpMethod.POST);
          yield done(ok(r, tasks.forceMerge(r, s.length == 1 ? "_all" : s[0]), "_forcemerge_task"));
        }
        yield done(noIndices(r, s[0], s[1]));
      }
    };
  }

  private static CompletableFuture<ApiResponse> done(ApiResponse r) {
    return CompletableFuture.completedFuture(r);
  }

  /** A 200 answer with {@code filter_path} applied. */
  private static ApiResponse ok(ApiRequest r, JsonNode body, String endpoint) {
    return status(r, 200, body, endpoint);
  }

  /**
   * An answer with {@code filter_path} applied, indented when {@code pretty} asks (as Elasticsearch
   * does for any request).
   */
  private static ApiResponse status(ApiRequest r, int status, JsonNode body, String endpoint) {
    JsonNode out = FilterPath.apply(body, r.param("filter_path"));
    if (!EsParams.bool(r, "pretty", false)) {
      return EsResponses.json(status, out).tagged(endpoint, "none");
    }
    try {
      byte[] bytes = Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(out);
      return new ApiResponse(
              status, ApiResponse.JSON, bytes, EsResponses.PRODUCT_HEADER, endpoint, "none")
          .tagged(endpoint, "none");
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot write a JSON tree", e);
    }
  }

  // ---- _cluster -------------------------------------------------------------------------------

  private CompletableFuture<ApiResponse> cluster(ApiRequest r, String[] rest) throws IOException {
    if (rest.length == 0) {
      throw EsParams.unknownEndpoint(r);
    }
    switch (rest[0]) {
      case "health" -> {
        if (rest.length > 2) {
          throw EsParams.unknownEndpoint(r);
        }
        EsParams.method(r, HttpMethod.GET);
        return health(r, rest.length == 2 ? rest[1] : null);
      }
      case "settings" -> {
        if (rest.length != 1) {
          throw EsParams.unknownEndpoint(r);
        }
        return done(clusterSettings(r));
      }
      case "state" -> {
        EsParams.method(r, HttpMethod.GET);
        return done(state(r, rest));
      }
      default -> throw EsParams.unknownEndpoint(r);
    }
  }

  private CompletableFuture<ApiResponse> health(ApiRequest r, String expression) {
    ClusterHealth.Request q = ClusterHealth.Request.of(r, expression);
    Supplier<ClusterHealth.Snapshot> read = () -> ClusterHealth.read(indices, expression);
    Predicate<ClusterHealth.Snapshot> holds = snap -> snap.satisfies(q);
    CompletableFuture<ClusterHealth.Snapshot> seen =
        q.waits()
            ? waits.poll(read, holds, q.timeout())
            : CompletableFuture.completedFuture(read.get());
    return seen.thenApply(
        snap -> {
          // A wait that ran out is 408 with timed_out, as Elasticsearch answers it.
          boolean timedOut = q.waits() && !snap.satisfies(q);
          return status(
              r,
              timedOut ? 408 : 200,
              ClusterHealth.render(snap, timedOut, q.level()),
              "_cluster_health");
        });
  }

  private ApiResponse clusterSettings(ApiRequest r) throws IOException {
    if (r.method().equals(HttpMethod.GET)) {
      EsParams.allowOnly(
          r, Set.of("flat_settings", "include_defaults", "master_timeout", "timeout", "local"));
      boolean flat = EsParams.bool(r, "flat_settings", false);
      boolean defaults = EsParams.bool(r, "include_defaults", false);
      EsParams.bool(r, "local", false);
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.set(
          "persistent",
          ClusterSettings.render(settings.get(ClusterSettings.Scope.PERSISTENT), flat));
      o.set(
          "transient", ClusterSettings.render(settings.get(ClusterSettings.Scope.TRANSIENT), flat));
      if (defaults) {
        Map<String, String> d = new java.util.TreeMap<>(nodes.settings());
        // Elasticsearch 8's default; here it guards nothing, as no index is ever deleted.
        d.put("action.destructive_requires_name", "true");
        o.set("defaults", ClusterSettings.render(d, flat));
      }
      return ok(r, o, "_cluster_settings");
    }
    EsParams.method(r, HttpMethod.PUT);
    EsParams.allowOnly(r, Set.of("flat_settings", "master_timeout", "timeout"));
    boolean flat = EsParams.bool(r, "flat_settings", false);
    if (r.body().readableBytes() > MAX_SETTINGS_BODY) {
      throw new ApiException(
          413,
          "illegal_argument_exception",
          "the cluster settings body has "
              + r.body().readableBytes()
              + " bytes, more than "
              + MAX_SETTINGS_BODY);
    }
    ClusterSettings.Applied a = settings.update(Json.parse(r.body(), "cluster settings body"));
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("acknowledged", true);
    o.set("persistent", ClusterSettings.render(a.persistent(), flat));
    o.set("transient", ClusterSettings.render(a.transientMap(), flat));
    return ok(r, o, "_cluster_settings");
  }

  private static final Set<String> STATE_METRICS = Set.of("master_node", "nodes");

  private ApiResponse state(ApiRequest r, String[] rest) {
    EsParams.allowOnly(
        r,
        Set.of(
            "local",
            "master_timeout",
            "flat_settings",
            "wait_for_metadata_version",
            "wait_for_timeout",
            "ignore_unavailable",
            "allow_no_indices",
            "expand_wildcards"));
    if (rest.length < 2 || rest.length > 3) {
      throw EsParams.bad(
          "this server reports the cluster state's metrics "
              + STATE_METRICS
              + " only; ask for them by name, such as /_cluster/state/master_node");
    }
    Set<String> asked = EsParams.list(rest[1], "cluster state metrics");
    for (String m : asked) {
      if (!STATE_METRICS.contains(m)) {
        throw EsParams.bad(
            "cluster state metric ["
                + Text.quote(m)
                + "] is not available here; this server reports "
                + STATE_METRICS);
      }
    }
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("cluster_name", LocalNode.NAME);
    o.set("cluster_uuid", EsResponses.root(config.indexName()).get("cluster_uuid"));
    if (asked.contains("master_node")) {
      o.put("master_node", node.id());
    }
    if (asked.contains("nodes")) {
      ObjectNode n = o.putObject("nodes").putObject(node.id());
      n.put("name", LocalNode.NAME);
      n.putObject("attributes");
      var roles = n.putArray("roles");
      LocalNode.ROLES.forEach(roles::add);
    }
    return ok(r, o, "_cluster_state");
  }

  // ---- _tasks ---------------------------------------------------------------------------------

  private CompletableFuture<ApiResponse> tasksRoute(ApiRequest r, String[] rest) {
    EsParams.method(r, HttpMethod.GET);
    if (rest.length == 0) {
      return done(ok(r, tasks.list(r), "_tasks"));
    }
    if (rest.length != 1) {
      throw EsParams.unknownEndpoint(r);
    }
    EsParams.allowOnly(r, Set.of("wait_for_completion", "timeout"));
    boolean wait = EsParams.bool(r, "wait_for_completion", false);
    Duration timeout =
        EsParams.time(r, "timeout", ClusterHealth.DEFAULT_TIMEOUT, ClusterHealth.MAX_TIMEOUT);
    TaskRegistry.Task<ObjectNode> task = tasks.find(rest[0]);
    if (!wait || task.isDone()) {
      return done(ok(r, tasks.result(task), "_tasks_get"));
    }
    CompletableFuture<Void> ended = waits.until(task.whenDone(), timeout);
    return ended.thenApply(
        v -> {
          if (!task.isDone()) {
            // As Elasticsearch since 8.17 answers a timeout the client chose: 429, retry.
            throw new ApiException(
                429,
                "timeout_exception",
                "timed out after "
                    + timeout.toMillis()
                    + " ms waiting for completion of task ["
                    + tasks.taskId(task)
                    + "]");
          }
          return ok(r, tasks.result(task), "_tasks_get");
        });
  }

  // ---- _stats ---------------------------------------------------------------------------------

  private static final Set<String> STATS_PARAMS =
      Set.of(
          "level",
          "completion_fields",
          "fielddata_fields",
          "fields",
          "groups",
          "include_segment_file_sizes",
          "include_unloaded_segments",
          "forbid_closed_indices",
          "ignore_unavailable",
          "allow_no_indices",
          "expand_wildcards");

  private ApiResponse stats(ApiRequest r, String expression, String[] rest) throws IOException {
    EsParams.method(r, HttpMethod.GET);
    if (rest.length > 1) {
      throw EsParams.unknownEndpoint(r);
    }
    EsParams.allowOnly(r, STATS_PARAMS);
    String level = EsParams.oneOf(r, "level", "indices", Set.of("cluster", "indices", "shards"));
    for (String p :
        List.of(
            "include_segment_file_sizes", "include_unloaded_segments", "forbid_closed_indices")) {
      EsParams.bool(r, p, false);
    }
    Set<String> metrics =
        rest.length == 0
            ? EsIndexStats.METRICS
            : EsParams.metrics(r, rest[0], EsIndexStats.METRICS);
    List<String> names =
        IndexExpression.resolve(
            expression,
            indices.names(),
            IndexExpression.Options.of(r, IndexExpression.Options.LENIENT_WILDCARDS));
    return ok(
        r,
        EsIndexStats.render(EsIndexStats.read(indices, names), metrics, level, node.id()),
        "_stats");
  }

  // ---- _segments ------------------------------------------------------------------------------

  /** {@code GET [/{index}]/_segments}; {@code extra} path segments after it are no route. */
  private ApiResponse segments(ApiRequest r, String expression, int extra) throws IOException {
    if (extra > 0) {
      throw EsParams.unknownEndpoint(r);
    }
    EsParams.method(r, HttpMethod.GET);
    EsParams.allowOnly(r, IndexExpression.PARAMS);
    List<String> names =
        IndexExpression.resolve(
            expression,
            indices.names(),
            IndexExpression.Options.of(r, IndexExpression.Options.LENIENT_WILDCARDS));
    return ok(r, EsSegments.render(EsIndexStats.read(indices, names), node.id()), "_segments");
  }

  // ---- searches over no index -----------------------------------------------------------------

  /**
   * {@code _search} or {@code _count} over an expression that resolves to no index: the empty
   * answer Elasticsearch gives with no shard to ask. The body must still be a JSON object; what it
   * asks is not read, since nothing is searched.
   */
  private ApiResponse noIndices(ApiRequest r, String expression, String op) {
    EsParams.method(r, HttpMethod.GET, HttpMethod.POST);
    long t0 = System.nanoTime();
    // A concrete missing name (or allow_no_indices=false) is the 404 resolving throws here.
    IndexExpression.resolve(
        expression,
        indices.names(),
        IndexExpression.Options.of(r, IndexExpression.Options.LENIENT_WILDCARDS));
    if (r.hasBody()) {
      Json.object(Json.parse(r.body(), op.substring(1) + " body"), op.substring(1) + " body");
    }
    ObjectNode o = Json.MAPPER.createObjectNode();
    ObjectNode shards =
        Json.MAPPER
            .createObjectNode()
            .put("total", 0)
            .put("successful", 0)
            .put("skipped", 0)
            .put("failed", 0);
    if (op.equals("_count")) {
      o.put("count", 0);
      o.set("_shards", shards);
      return ok(r, o, "_count_no_indices");
    }
    o.put("took", (System.nanoTime() - t0) / 1_000_000);
    o.put("timed_out", false);
    o.set("_shards", shards);
    ObjectNode hits = o.putObject("hits");
    hits.putObject("total").put("value", 0).put("relation", "eq");
    hits.put("max_score", 0.0);
    hits.putArray("hits");
    return ok(r, o, "_search_no_indices");
  }

  /** Stops the waits; every request still waiting is answered 503. */
  @Override
  public void close() {
    waits.close();
  }
}
