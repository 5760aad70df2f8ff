package org.searchlab.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The scale report's restart and memory-check tables, from the probes the runner wrote into the
 * scale section ({@code per_size[].servers.<label>.probe}, design-68 §5.4): per store and size the
 * timed restarts with the store's open phases, and the probe JVM's readings with the growth of the
 * store's accounting against the growth of its resident set since the base size, and the verdict.
 * Stateless; thread-safe.
 */
final class ScaleProbeTables {
  /** The sentence the restart table comes with. */
  static final String WARM_CACHE =
      "Restart times are with a warm page cache: each start opens files the server it replaced had"
          + " just read, so they are a restart on the same machine, not a cold boot.";

  private ScaleProbeTables() {}

  /** One probe: the size, the server's label and its {@code probe} node. */
  record Probe(int docs, String server, JsonNode node) {}

  /** The probes of the scale section, by size then server, as the runner wrote them. */
  static List<Probe> probes(JsonNode scale) {
    List<Probe> out = new ArrayList<>();
    for (JsonNode size : scale.path("per_size")) {
      int n = size.path("docs").asInt();
      size.path("servers")
          .fields()
          .forEachRemaining(
              e -> {
                if (e.getValue().path("probe").isObject()) {
                  out.add(new Probe(n, e.getKey(), e.getValue().path("probe")));
                }
              });
    }
    return out;
  }

  /**
   * The section {@code ## Restart and memory probe}: what the plan was, the restart table and the
   * memory-check table, or one line saying no size was probed.
   */
  static String markdown(JsonNode scale) {
    StringBuilder md = new StringBuilder("## Restart and memory probe\n\n");
    List<Probe> probes = probes(scale);
    String plan = scale.path("probe").asText("");
    if (probes.isEmpty()) {
      return md.append(plan.isEmpty() ? "No size was probed." : plan).append("\n\n").toString();
    }
    md.append(plan)
        .append(
            ". At each size probed, each grown store's measurement server is stopped (SIGTERM →"
                + " exit: the close), its index opened by a probe JVM whose heap shrinks to what"
                + " is live (the segmented store preloading its index files), warmed, collected"
                + " and read, then the measurement server is started again (the return restart)."
                + " The force-merged copy is not probed. ")
        .append(WARM_CACHE)
        .append("\n\n### Restarts (ms)\n\n")
        .append("| documents | store | close | probe start → /health | /health → first query |")
        .append(" open phases | return: probe close | return start → first query |")
        .append(" return open total |\n|---:|---|---:|---:|---:|---|---:|---:|---:|\n");
    for (Probe p : probes) {
      JsonNode in = p.node().path("probe_restart");
      JsonNode back = p.node().path("return_restart");
      md.append(
          String.format(
              Locale.ROOT,
              "| %,d | %s | %s | %s | %s | %s | %s | %s | %s |%n",
              p.docs(),
              p.server(),
              ms(in.path("close_ms")),
              ms(in.path("to_health_ms")),
              ms(in.path("to_first_query_ms")),
              phases(in),
              ms(back.path("close_ms")),
              ms(back.path("start_to_first_query_ms")),
              ms(back.path("open_total_ms"))));
    }
    md.append("\n### Memory check (MiB)\n\n")
        .append("The probe's readings after a full collection, and the check of design-68 §5.4:")
        .append(" the growth of the accounting since the base size against the growth of VmRSS,")
        .append(" within 10%, judged only where VmRSS grew by 256 MiB or more. The accounting is")
        .append(" the store's own (its parts + the bytes of the index files, every one preloaded)")
        .append(" plus the JVM's heap overhead as the JVM reports it: the free heap it keeps")
        .append(" committed after the collection and its collector's structures (native memory")
        .append(" tracking's GC and GCCardSet). A heap store pays that overhead on every byte it")
        .append(" holds. The last column gives the error of the store's own accounting alone.\n\n")
        .append("| documents | store | VmRSS | RssAnon | RssFile | mapped | heap used after GC |")
        .append(" parts | preloaded files | JVM heap overhead | accounting growth | RSS growth |")
        .append(" verdict | store alone |\n")
        .append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
    for (Probe p : probes) {
      JsonNode r = p.node().path("reading");
      JsonNode c = p.node().path("check");
      md.append(
          String.format(
              Locale.ROOT,
              "| %,d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
              p.docs(),
              p.server(),
              mib(r.path("vm_rss_bytes")),
              mib(r.path("rss_anon_bytes")),
              mib(r.path("rss_file_bytes")),
              mib(r.path("mapped_bytes")),
              mib(r.path("heap_used_after_gc_bytes")),
              mib(r.path("parts_total_bytes")),
              mib(r.path("preloaded_file_bytes")),
              mib(r.path("heap_overhead_bytes")),
              mib(c.path("accounted_growth_bytes")),
              mib(c.path("rss_growth_bytes")),
              c.path("verdict").asText("–"),
              percent(c.path("store_only_relative_error"))));
    }
    return md.append('\n').toString();
  }

  /** The store's open phases, {@code total (phase ms, …)}. */
  private static String phases(JsonNode restart) {
    List<String> parts = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : iterable(restart)) {
      String k = e.getKey();
      if (k.startsWith("open_") && k.endsWith("_ms") && !k.equals("open_total_ms")) {
        parts.add(k.substring(5, k.length() - 3) + " " + e.getValue().asLong());
      }
    }
    if (parts.isEmpty()) {
      return "–";
    }
    return restart.path("open_total_ms").asLong() + " (" + String.join(", ", parts) + ")";
  }

  private static Iterable<Map.Entry<String, JsonNode>> iterable(JsonNode n) {
    return n::fields;
  }

  private static String ms(JsonNode n) {
    return n.isNumber() ? String.format(Locale.ROOT, "%.0f", n.asDouble()) : "–";
  }

  private static String percent(JsonNode n) {
    return n.isNumber() ? String.format(Locale.ROOT, "%+.1f%%", 100 * n.asDouble()) : "–";
  }

  private static String mib(JsonNode n) {
    return n.isNumber() ? String.format(Locale.ROOT, "%.1f", n.asDouble() / (1 << 20)) : "–";
  }
}
