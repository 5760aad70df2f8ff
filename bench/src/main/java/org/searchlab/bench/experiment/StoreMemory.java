package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A store's own accounting of the bytes its index takes, grouped into the parts of design-68 §5.2:
 * vectors, graph, postings, attributes, document store, compound files, write-ahead log and other.
 * The mutable store reports its parts on the heap ({@code memory_bytes} of {@code /_admin/stats});
 * the segmented store reports its segments' files by Lucene extension ({@code files_bytes_<ext>},
 * mapped by the searches, on disk) and its few heap buffers ({@code indexing_buffer}, {@code
 * version_map}); both report their log ({@code wal_bytes}, on disk). Every reported figure goes
 * into exactly one part, so the parts sum to the reported total; an extension or key not named here
 * goes to {@code other} rather than being dropped. Small Lucene segments are written as compound
 * files ({@code .cfs}), whose contents no extension separates: they are a part of their own.
 * Immutable.
 *
 * @param store the store ({@link Variant#MUTABLE_STORE} or {@link Variant#SEGMENTED_STORE})
 * @param parts bytes by part, in {@link #PARTS} order, the parts with no bytes left out
 * @param reported every figure read, by its name in {@code /_admin/stats}
 */
record StoreMemory(String store, Map<String, Long> parts, Map<String, Long> reported) {
  /** The parts, in report order. */
  static final List<String> PARTS =
      List.of(
          "vectors",
          "graph",
          "postings",
          "attributes",
          "document_store",
          "compound_files",
          "wal",
          "other");

  /** The {@code counters} prefix of the segmented store's bytes per file extension. */
  static final String FILES_BYTES = "files_bytes_";

  /** Lucene file extensions by part (Lucene 10's codecs; norms count with the postings). */
  private static final Map<String, String> EXTENSIONS = extensions();

  StoreMemory {
    parts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(parts));
    reported = java.util.Collections.unmodifiableMap(new TreeMap<>(reported));
  }

  private static Map<String, String> extensions() {
    Map<String, String> m = new java.util.HashMap<>();
    for (String e : List.of("vec", "veq", "vemf", "vemq", "veb", "vemb")) {
      m.put(e, "vectors");
    }
    for (String e : List.of("vex", "vem")) {
      m.put(e, "graph");
    }
    for (String e : List.of("doc", "pos", "pay", "tim", "tip", "tmd", "psm", "nvd", "nvm")) {
      m.put(e, "postings");
    }
    for (String e : List.of("dvd", "dvm", "dvs", "dvp", "kdd", "kdi", "kdm", "liv")) {
      m.put(e, "attributes");
    }
    for (String e : List.of("fdt", "fdx", "fdm")) {
      m.put(e, "document_store");
    }
    for (String e : List.of("cfs", "cfe")) {
      m.put(e, "compound_files");
    }
    return Map.copyOf(m);
  }

  /** Where a store keeps the parts, as the report says it. */
  String tier() {
    return store.equals(Variant.MUTABLE_STORE)
        ? "heap (the log on disk)"
        : "files on disk, mapped (a few heap buffers under other; the log on disk)";
  }

  /** The sum of the parts, which is the sum of the figures reported. */
  long total() {
    return parts.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Each part's bytes divided by {@code docs}. */
  Map<String, Double> perDocument(long docs) {
    Map<String, Double> out = new LinkedHashMap<>();
    parts.forEach((p, b) -> out.put(p, (double) b / docs));
    return out;
  }

  /**
   * Reads a store's accounting from its {@code /_admin/stats} answer.
   *
   * @param store {@link Variant#MUTABLE_STORE} or {@link Variant#SEGMENTED_STORE}
   * @param stats the whole answer ({@link ServerAdmin#stats()})
   */
  static StoreMemory of(String store, JsonNode stats) {
    Map<String, Long> reported = new TreeMap<>();
    Map<String, Long> sums = new java.util.HashMap<>();
    stats
        .path("memory_bytes")
        .fields()
        .forEachRemaining(
            e -> {
              reported.put("memory_bytes." + e.getKey(), e.getValue().asLong());
              sums.merge(heapPart(e.getKey()), e.getValue().asLong(), Long::sum);
            });
    stats
        .path("counters")
        .fields()
        .forEachRemaining(
            e -> {
              if (e.getKey().startsWith(FILES_BYTES)) {
                String ext = e.getKey().substring(FILES_BYTES.length());
                reported.put("counters." + e.getKey(), e.getValue().asLong());
                sums.merge(EXTENSIONS.getOrDefault(ext, "other"), e.getValue().asLong(), Long::sum);
              }
            });
    if (stats.path("wal_bytes").isNumber()) {
      reported.put("wal_bytes", stats.path("wal_bytes").asLong());
      sums.merge("wal", stats.path("wal_bytes").asLong(), Long::sum);
    }
    Map<String, Long> parts = new LinkedHashMap<>();
    for (String p : PARTS) {
      long b = sums.getOrDefault(p, 0L);
      if (b > 0) {
        parts.put(p, b);
      }
    }
    return new StoreMemory(store, parts, reported);
  }

  /**
   * The part of a {@code memory_bytes} key: the mutable store's parts by name (its vectors in any
   * representation are vectors), the segmented store's heap buffers and anything unknown other.
   */
  private static String heapPart(String key) {
    if (key.startsWith("vectors")) {
      return "vectors";
    }
    return switch (key) {
      case "graph", "postings", "attributes", "document_store" -> key;
      default -> "other";
    };
  }
}
