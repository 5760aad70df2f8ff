package org.searchlab.server.es;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.searchlab.core.StoreStoppedException;
import org.searchlab.server.ApiException;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.Json;
import org.searchlab.server.ServerLog;
import org.searchlab.server.Text;
import org.searchlab.server.service.IndicesView;
import org.searchlab.server.service.TaskRegistry;

/**
 * Background force-merges ({@code POST [/{index}]/_forcemerge?wait_for_completion=false}) and the
 * task API that reports on them ({@code GET /_tasks}, {@code GET /_tasks/{node}:{id}}), in
 * Elasticsearch's shapes: the merge answers {@code {"task":"<node>:<id>"}} at once and runs on the
 * server's write executor, where a synchronous {@code _forcemerge} runs too; the task reports
 * {@code completed: false} while it waits or runs, then {@code completed: true} with the {@code
 * response} a synchronous force-merge would have given ({@code _shards}, failures included). With
 * {@code flush=true} (the default, as in Elasticsearch) the task commits each index after merging
 * it.
 *
 * <p>Bounds: at most one force-merge per index waits for a thread. A second request for an index
 * whose merge still waits, with the same indexes and {@code max_num_segments}, gets that task's id
 * (the merge it waits for starts after both requests, so it does what each asked); with other
 * parameters it is 429. A full write queue is 429 too. The registry remembers {@link #MAX_FINISHED}
 * finished tasks, oldest forgotten first.
 *
 * <p>Thread-safe: the waiting merges are guarded by the instance's lock; the registry is
 * thread-safe.
 */
final class EsTasks {
  static final String FORCE_MERGE = "indices:admin/forcemerge";
  static final int MAX_FINISHED = 1000;
  static final Set<String> MERGE_PARAMS =
      Set.of(
          "wait_for_completion",
          "max_num_segments",
          "only_expunge_deletes",
          "flush",
          "ignore_unavailable",
          "allow_no_indices",
          "expand_wildcards");

  private final LocalNode node;
  private final IndicesView indices;
  private final Executor writePool;
  private final TaskRegistry<ObjectNode> registry = new TaskRegistry<>(MAX_FINISHED);

  /** Merges not yet started, by index: the one task that may wait for each. Guarded by this. */
  private final Map<String, Waiting> waiting = new HashMap<>();

  private record Waiting(
      TaskRegistry.Task<ObjectNode> task, List<String> indices, int segments, boolean flush) {}

  EsTasks(LocalNode node, IndicesView indices, Executor writePool) {
    this.node = node;
    this.indices = indices;
    this.writePool = writePool;
  }

  String taskId(TaskRegistry.Task<?> t) {
    return node.id() + ":" + t.id();
  }

  /** Starts a background force-merge of the indexes {@code expression} names; the answer's body. */
  ObjectNode forceMerge(ApiRequest r, String expression) {
    EsParams.allowOnly(r, MERGE_PARAMS);
    int segments = r.intParam("max_num_segments", 1);
    if (segments < 1 || segments > 10_000) {
      throw EsParams.bad("max_num_segments " + segments + " is outside [1, 10000]");
    }
    if (EsParams.bool(r, "only_expunge_deletes", false)) {
      throw EsParams.bad(
          "only_expunge_deletes=true is not supported: the stores merge down to"
              + " max_num_segments only");
    }
    boolean flush = EsParams.bool(r, "flush", true);
    List<String> names =
        IndexExpression.resolve(
            expression,
            indices.names(),
            IndexExpression.Options.of(r, IndexExpression.Options.LENIENT_WILDCARDS));
    String description =
        "Force-merge indices "
            + names
            + ", maxSegments["
            + segments
            + "], onlyExpungeDeletes[false], flush["
            + flush
            + "]";
    TaskRegistry.Task<ObjectNode> task;
    synchronized (this) {
      Waiting same = null;
      for (String n : names) {
        Waiting w = waiting.get(n);
        if (w == null) {
          continue;
        }
        if (w.indices.equals(names) && w.segments == segments && w.flush == flush) {
          same = w;
          continue;
        }
        throw new ApiException(
            429,
            "es_rejected_execution_exception",
            "a force-merge of ["
                + n
                + "] already waits for a thread (task "
                + taskId(w.task)
                + ") with other parameters; retry once it has started");
      }
      if (same != null) {
        return Json.MAPPER.createObjectNode().put("task", taskId(same.task));
      }
      try {
        task = registry.register(FORCE_MERGE, description);
      } catch (IllegalStateException e) {
        throw new ApiException(429, "es_rejected_execution_exception", e.getMessage());
      }
      Waiting w = new Waiting(task, names, segments, flush);
      names.forEach(n -> waiting.put(n, w));
      try {
        writePool.execute(() -> run(w));
      } catch (RejectedExecutionException e) {
        names.forEach(n -> waiting.remove(n, w));
        registry.unregister(task);
        throw new ApiException(
            429,
            "es_rejected_execution_exception",
            "the write queue is full; the force-merge was not started");
      }
    }
    return Json.MAPPER.createObjectNode().put("task", taskId(task));
  }

  /** The merge itself, on a write thread: each index in turn, its failure recorded, not thrown. */
  private void run(Waiting w) {
    synchronized (this) {
      w.indices.forEach(n -> waiting.remove(n, w));
    }
    TaskRegistry.Task<ObjectNode> task = w.task;
    task.started();
    try {
      ObjectNode response = Json.MAPPER.createObjectNode();
      ArrayNode failures = Json.MAPPER.createArrayNode();
      int ok = 0;
      for (String index : w.indices) {
        try {
          indices.forceMerge(index, w.segments);
          if (w.flush) {
            indices.flush(index); // as Elasticsearch's flush=true: commit the merged segments
          }
          ok++;
        } catch (Exception e) {
          ServerLog.warn("force-merge of " + index + " (task " + taskId(task) + ") failed: " + e);
          ObjectNode f = failures.addObject();
          f.put("shard", 0).put("index", index);
          f.put(
              "status",
              e instanceof StoreStoppedException ? "SERVICE_UNAVAILABLE" : "INTERNAL_SERVER_ERROR");
          f.set("reason", error(e));
        }
      }
      ObjectNode shards =
          response
              .putObject("_shards")
              .put("total", w.indices.size())
              .put("successful", ok)
              .put("failed", failures.size());
      if (!failures.isEmpty()) {
        shards.set("failures", failures);
      }
      task.complete(response);
    } catch (Throwable t) {
      ServerLog.error("task " + taskId(task) + " failed", t);
      task.fail(t);
    }
  }

  /**
   * An exception as Elasticsearch writes one into a task result: {@code type} and {@code reason}.
   */
  static ObjectNode error(Throwable e) {
    String type =
        e instanceof ApiException a
            ? a.type()
            : e instanceof StoreStoppedException
                ? "unavailable_shards_exception"
                : e instanceof org.searchlab.core.InvalidRequestException
                    ? "illegal_argument_exception"
                    : "exception";
    return Json.MAPPER
        .createObjectNode()
        .put("type", type)
        .put("reason", Text.reason(String.valueOf(e.getMessage())));
  }

  /** A task as Elasticsearch's {@code TaskInfo} renders it. */
  ObjectNode info(TaskRegistry.Task<?> t) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("node", node.id());
    o.put("id", t.id());
    o.put("type", "transport");
    o.put("action", t.action());
    o.put("description", t.description());
    o.put("start_time_in_millis", t.startMillis());
    o.put("running_time_in_nanos", t.runningNanos());
    o.put("cancellable", false);
    o.putObject("headers");
    return o;
  }

  /** The body of {@code GET /_tasks/{id}}: whether it completed, and its response or error. */
  ObjectNode result(TaskRegistry.Task<ObjectNode> t) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("completed", t.isDone());
    o.set("task", info(t));
    t.result().ifPresent(r -> o.set("response", r));
    t.failure().ifPresent(e -> o.set("error", error(e)));
    return o;
  }

  /**
   * The task a {@code node:number} id names.
   *
   * @throws ApiException 400 for a malformed id, 404 for another node's or a forgotten task
   */
  TaskRegistry.Task<ObjectNode> find(String id) {
    int colon = id.lastIndexOf(':');
    long number;
    try {
      if (colon <= 0) {
        throw new NumberFormatException();
      }
      number = Long.parseLong(id.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw EsParams.bad("malformed task id " + Text.quote(id));
    }
    String nodeId = id.substring(0, colon);
    if (!nodeId.equals(node.id())) {
      throw new ApiException(
          404,
          "resource_not_found_exception",
          "task ["
              + Text.quote(id)
              + "] belongs to node ["
              + Text.quote(nodeId)
              + "], which is not in this cluster (its one node is ["
              + node.id()
              + "])");
    }
    return registry
        .get(number)
        .orElseThrow(
            () ->
                new ApiException(
                    404,
                    "resource_not_found_exception",
                    "task ["
                        + Text.quote(id)
                        + "] isn't running and hasn't stored its results (this server remembers"
                        + " the last "
                        + MAX_FINISHED
                        + " finished tasks)"));
  }

  static final Set<String> LIST_PARAMS =
      Set.of(
          "actions",
          "detailed",
          "group_by",
          "nodes",
          "parent_task_id",
          "wait_for_completion",
          "timeout");

  /** The body of {@code GET /_tasks}: the running tasks, as Elasticsearch lists them. */
  ObjectNode list(ApiRequest r) {
    EsParams.allowOnly(r, LIST_PARAMS);
    EsParams.bool(r, "detailed", false);
    if (EsParams.bool(r, "wait_for_completion", false)) {
      throw EsParams.bad(
          "wait_for_completion=true is not supported when listing tasks; wait on one task with"
              + " GET /_tasks/{id}?wait_for_completion=true");
    }
    EsParams.time(r, "timeout", java.time.Duration.ZERO, java.time.Duration.ofDays(365));
    String groupBy = EsParams.oneOf(r, "group_by", "nodes", Set.of("nodes", "parents", "none"));
    String actions = r.param("actions");
    Set<String> patterns = actions == null ? Set.of("*") : EsParams.list(actions, "actions");
    String nodes = r.param("nodes");
    boolean selected = nodes == null || node.matches(nodes);
    String parent = r.param("parent_task_id");
    List<TaskRegistry.Task<ObjectNode>> shown = new ArrayList<>();
    if (selected && (parent == null || parent.equals("_none") || parent.isEmpty())) {
      for (TaskRegistry.Task<ObjectNode> t : registry.running()) {
        if (patterns.stream().anyMatch(p -> IndexExpression.glob(p, t.action()))) {
          shown.add(t);
        }
      }
    }
    ObjectNode o = Json.MAPPER.createObjectNode();
    switch (groupBy) {
      case "none" -> {
        ArrayNode a = o.putArray("tasks");
        shown.forEach(t -> a.add(info(t)));
      }
      case "parents" -> {
        ObjectNode m = o.putObject("tasks");
        shown.forEach(t -> m.set(taskId(t), info(t)));
      }
      default -> {
        ObjectNode m = o.putObject("nodes");
        if (!shown.isEmpty()) {
          ObjectNode n = m.putObject(node.id());
          n.put("name", LocalNode.NAME);
          n.put("host", node.ip());
          n.put("ip", node.ip());
          var roles = n.putArray("roles");
          LocalNode.ROLES.forEach(roles::add);
          n.putObject("attributes");
          ObjectNode ts = n.putObject("tasks");
          shown.forEach(t -> ts.set(taskId(t), info(t)));
        }
      }
    }
    return o;
  }
}
