package org.searchlab.server.es;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.searchlab.core.StoreHealth;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.Json;
import org.searchlab.server.Text;
import org.searchlab.server.service.IndicesView;

/**
 * {@code GET /_cluster/health[/{index}]}: the health of one node's indexes as Elasticsearch reports
 * a cluster's, and the conditions a request may wait for. The model: every index has its shards
 * (primaries) on this node, and its replicas nowhere, since Elasticsearch never puts a replica on
 * its primary's node; so an index with replicas is yellow, and one without is green, as long as its
 * store takes writes. A store that stopped after a failure (its writer or write-ahead log failed;
 * {@link StoreHealth#writable()} is false) counts as a failed primary: the index is red, its shards
 * unassigned. The cluster's status is its worst index's, green without indexes. There are no
 * relocating, initializing or delayed shards, no pending cluster-state tasks and no in-flight
 * fetches on one node, so those counts are zero by construction, not by measurement.
 *
 * <p>A request waits (up to {@code timeout}, default 30 s, at most {@link #MAX_TIMEOUT}) until all
 * its conditions hold: {@code wait_for_status}, {@code wait_for_nodes} ({@code N}, {@code >=N},
 * {@code <=N}, {@code >N}, {@code <N}, {@code ge(N)}, ...), {@code wait_for_active_shards} ({@code
 * all} or a number), {@code wait_for_no_relocating_shards}, {@code
 * wait_for_no_initializing_shards}, {@code wait_for_events}, and, when it names indexes, that they
 * all exist. A wait that runs out answers 408 with {@code timed_out: true}, as Elasticsearch does.
 *
 * <p>Immutable and thread-safe.
 */
final class ClusterHealth {
  /** The longest {@code timeout} a health request may ask for. */
  static final Duration MAX_TIMEOUT = Duration.ofMinutes(5);

  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  static final Set<String> PARAMS =
      Set.of(
          "level",
          "local",
          "master_timeout",
          "timeout",
          "wait_for_active_shards",
          "wait_for_events",
          "wait_for_nodes",
          "wait_for_no_relocating_shards",
          "wait_for_no_initializing_shards",
          "wait_for_status",
          "expand_wildcards");

  /** A health status; declared best first. */
  enum Status {
    GREEN,
    YELLOW,
    RED;

    String json() {
      return name().toLowerCase(Locale.ROOT);
    }

    static Status worst(Status a, Status b) {
      return a.compareTo(b) >= 0 ? a : b;
    }
  }

  /** A {@code wait_for_nodes} condition on the node count. */
  record NodeCount(String op, int n) {
    boolean holds(int nodes) {
      return switch (op) {
        case ">=" -> nodes >= n;
        case "<=" -> nodes <= n;
        case ">" -> nodes > n;
        case "<" -> nodes < n;
        default -> nodes == n;
      };
    }

    /** Parses {@code N}, {@code >=N}, {@code <=N}, {@code >N}, {@code <N}, {@code ge(N)}, ... */
    static NodeCount parse(String v) {
      String t = v.trim();
      String op = "==";
      String num = t;
      for (String[] form :
          new String[][] {
            {">=", ">="}, {"<=", "<="}, {">", ">"}, {"<", "<"},
            {"ge(", ">="}, {"le(", "<="}, {"gt(", ">"}, {"lt(", "<"}
          }) {
        if (t.startsWith(form[0])) {
          op = form[1];
          num = t.substring(form[0].length());
          if (form[0].endsWith("(")) {
            if (!num.endsWith(")")) {
              throw badNodes(v);
            }
            num = num.substring(0, num.length() - 1);
          }
          break;
        }
      }
      try {
        int n = Integer.parseInt(num.trim());
        if (n < 0) {
          throw badNodes(v);
        }
        return new NodeCount(op, n);
      } catch (NumberFormatException e) {
        throw badNodes(v);
      }
    }

    private static RuntimeException badNodes(String v) {
      return EsParams.bad(
          "wait_for_nodes ["
              + Text.quote(v)
              + "] is not a node count: use N, >=N, <=N, >N, <N, ge(N), le(N), gt(N) or lt(N)");
    }
  }

  /**
   * One health request's parameters.
   *
   * @param indices the index expression of the path, or null for the whole cluster
   * @param status the status to wait for, or null
   * @param nodes the node count to wait for, or null
   * @param activeShards active shards to wait for: -1 for all, 0 for no condition
   * @param level {@code cluster}, {@code indices} or {@code shards}
   */
  record Request(
      String indices,
      Status status,
      NodeCount nodes,
      int activeShards,
      boolean events,
      Duration timeout,
      String level) {

    /** Reads the parameters; 400 naming the first bad one. */
    static Request of(ApiRequest r, String indices) {
      EsParams.allowOnly(r, PARAMS);
      Status status = null;
      String ws = r.param("wait_for_status");
      if (ws != null) {
        try {
          status = Status.valueOf(ws.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
          throw EsParams.bad(
              "wait_for_status [" + Text.quote(ws) + "] is not one of green, yellow, red");
        }
      }
      String wn = r.param("wait_for_nodes");
      NodeCount nodes = wn == null || wn.isEmpty() ? null : NodeCount.parse(wn);
      int active = 0;
      String wa = r.param("wait_for_active_shards");
      if (wa != null && !wa.equals("0")) {
        if (wa.equals("all")) {
          active = -1;
        } else {
          try {
            active = Integer.parseInt(wa);
          } catch (NumberFormatException e) {
            active = -2;
          }
          if (active < 0) {
            throw EsParams.bad(
                "wait_for_active_shards [" + Text.quote(wa) + "] is not 'all' or a number ≥ 0");
          }
        }
      }
      // Nothing relocates or initializes on one node: these always hold; read them to check them.
      EsParams.bool(r, "wait_for_no_relocating_shards", false);
      EsParams.bool(r, "wait_for_no_initializing_shards", false);
      EsParams.bool(r, "local", false);
      EsParams.time(r, "master_timeout", DEFAULT_TIMEOUT, Duration.ofDays(365));
      String events =
          EsParams.oneOf(
              r,
              "wait_for_events",
              null,
              Set.of("immediate", "urgent", "high", "normal", "low", "languid"));
      if (r.param("expand_wildcards") != null) {
        IndexExpression.Options.of(r, IndexExpression.Options.LENIENT_WILDCARDS);
      }
      String level = EsParams.oneOf(r, "level", "cluster", Set.of("cluster", "indices", "shards"));
      Duration timeout = EsParams.time(r, "timeout", DEFAULT_TIMEOUT, MAX_TIMEOUT);
      return new Request(indices, status, nodes, active, events != null, timeout, level);
    }

    /** Whether the request has a condition that might not hold yet (and so may wait). */
    boolean waits() {
      return indices != null || status != null || nodes != null || activeShards != 0;
    }
  }

  /** One index's health. */
  record IndexHealth(
      String name, Status status, int shards, int replicas, int activePrimaries, int active) {
    int unassigned() {
      return shards * (1 + replicas) - active;
    }

    int unassignedPrimaries() {
      return shards - activePrimaries;
    }

    static IndexHealth of(String name, IndicesView.IndexSettings s, StoreHealth h) {
      if (!h.writable()) {
        return new IndexHealth(name, Status.RED, s.numberOfShards(), s.numberOfReplicas(), 0, 0);
      }
      Status st = s.numberOfReplicas() > 0 ? Status.YELLOW : Status.GREEN;
      return new IndexHealth(
          name,
          st,
          s.numberOfShards(),
          s.numberOfReplicas(),
          s.numberOfShards(),
          s.numberOfShards());
    }
  }

  /**
   * The health seen at one moment.
   *
   * @param missing whether the request named indexes of which some do not exist (red, and a
   *     condition that does not hold)
   */
  record Snapshot(List<IndexHealth> indices, boolean missing) {
    Status status() {
      Status s = missing ? Status.RED : Status.GREEN;
      for (IndexHealth i : indices) {
        s = Status.worst(s, i.status());
      }
      return s;
    }

    int sum(java.util.function.ToIntFunction<IndexHealth> f) {
      return indices.stream().mapToInt(f).sum();
    }

    /** Whether every condition of {@code q} holds. */
    boolean satisfies(Request q) {
      if (missing) {
        return false;
      }
      if (q.status() != null && status().compareTo(q.status()) > 0) {
        return false;
      }
      if (q.nodes() != null && !q.nodes().holds(1)) {
        return false;
      }
      int active = sum(IndexHealth::active);
      int all = active + sum(IndexHealth::unassigned);
      return q.activeShards() == 0
          || (q.activeShards() < 0 ? active == all : active >= q.activeShards());
    }
  }

  private ClusterHealth() {}

  /** Reads the indexes' health now. */
  static Snapshot read(IndicesView view, String expression) {
    List<String> all = view.names();
    boolean missing = false;
    List<String> names = all;
    if (expression != null) {
      try {
        // Existence is checked strictly (a wildcard matching nothing is missing too) ...
        IndexExpression.resolve(expression, all, new IndexExpression.Options(false, false, true));
      } catch (org.searchlab.server.ApiException e) {
        missing = true;
      }
      // ... and the health is over whatever does exist.
      names =
          IndexExpression.resolve(expression, all, new IndexExpression.Options(true, true, true));
    }
    List<IndexHealth> out = new ArrayList<>(names.size());
    for (String n : names) {
      out.add(IndexHealth.of(n, view.settings(n), view.health(n)));
    }
    return new Snapshot(out, missing);
  }

  /** The answer's body. */
  static ObjectNode render(Snapshot s, boolean timedOut, String level) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("cluster_name", LocalNode.NAME);
    o.put("status", s.status().json());
    o.put("timed_out", timedOut);
    o.put("number_of_nodes", 1);
    o.put("number_of_data_nodes", 1);
    int active = s.sum(IndexHealth::active);
    int unassigned = s.sum(IndexHealth::unassigned);
    o.put("active_primary_shards", s.sum(IndexHealth::activePrimaries));
    o.put("active_shards", active);
    o.put("relocating_shards", 0);
    o.put("initializing_shards", 0);
    o.put("unassigned_shards", unassigned);
    o.put("unassigned_primary_shards", s.sum(IndexHealth::unassignedPrimaries));
    o.put("delayed_unassigned_shards", 0);
    o.put("number_of_pending_tasks", 0);
    o.put("number_of_in_flight_fetch", 0);
    o.put("task_max_waiting_in_queue_millis", 0);
    o.put(
        "active_shards_percent_as_number",
        active + unassigned == 0 ? 100.0 : 100.0 * active / (active + unassigned));
    if (!level.equals("cluster")) {
      ObjectNode indices = o.putObject("indices");
      for (IndexHealth i : s.indices()) {
        ObjectNode x = indices.putObject(i.name());
        x.put("status", i.status().json());
        x.put("number_of_shards", i.shards());
        x.put("number_of_replicas", i.replicas());
        x.put("active_primary_shards", i.activePrimaries());
        x.put("active_shards", i.active());
        x.put("relocating_shards", 0);
        x.put("initializing_shards", 0);
        x.put("unassigned_shards", i.unassigned());
        x.put("unassigned_primary_shards", i.unassignedPrimaries());
        if (level.equals("shards")) {
          ObjectNode shards = x.putObject("shards");
          boolean primary = i.activePrimaries() > 0;
          for (int shard = 0; shard < i.shards(); shard++) {
            ObjectNode sh = shards.putObject(Integer.toString(shard));
            Status st = !primary ? Status.RED : i.replicas() > 0 ? Status.YELLOW : Status.GREEN;
            sh.put("status", st.json());
            sh.put("primary_active", primary);
            sh.put("active_shards", primary ? 1 : 0);
            sh.put("relocating_shards", 0);
            sh.put("initializing_shards", 0);
            sh.put("unassigned_shards", primary ? i.replicas() : 1 + i.replicas());
            sh.put("unassigned_primary_shards", primary ? 0 : 1);
          }
        }
      }
    }
    return o;
  }
}
