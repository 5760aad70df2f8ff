package org.searchlab.bench.experiment;

import java.util.Locale;

/**
 * A store with its settings, as the benchmark compared them. The segmented variants speak the
 * Elasticsearch dialect, the mutable one the Vespa dialect, each with the benchmark's bodies.
 */
public enum Variant {
  /** The mutable store with its defaults (the "Vespa" side). */
  MUTABLE("mutable", "mutable", false),
  /** The segmented store with Elasticsearch's defaults: tiered merges, 1 s refresh, concurrency. */
  SEGMENTED("segmented", "segmented", false),
  /** The same, force-merged to one segment before its query phase. */
  SEGMENTED_FORCEMERGED("segmented-forcemerged", "segmented", true);

  private final String label;
  private final String store;
  private final boolean forceMerged;

  Variant(String label, String store, boolean forceMerged) {
    this.label = label;
    this.store = store;
    this.forceMerged = forceMerged;
  }

  /** The name used in results and on the command line. */
  public String label() {
    return label;
  }

  /** The server's {@code --store} value. */
  public String store() {
    return store;
  }

  /** Whether the index is force-merged to one segment before the query phase. */
  public boolean forceMerged() {
    return forceMerged;
  }

  /** Whether this variant speaks the Elasticsearch dialect (else the Vespa one). */
  public boolean elasticsearchDialect() {
    return store.equals("segmented");
  }

  /** Parses a label such as {@code segmented-forcemerged}. */
  public static Variant parse(String label) {
    for (Variant v : values()) {
      if (v.label.equals(label.trim().toLowerCase(Locale.ROOT))) {
        return v;
      }
    }
    throw new IllegalArgumentException(
        "unknown variant '" + label + "'; use mutable, segmented or segmented-forcemerged");
  }
}
