package org.searchlab.bench.experiment;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.searchlab.core.VectorQuantization;

/**
 * A store or engine with its settings, as the experiment compares them: searchlab's two stores
 * (started as child servers), a real OpenSearch (started as child JVMs), or an external endpoint
 * given with {@code --target}. The segmented and OpenSearch variants speak the Elasticsearch
 * dialect, the mutable one the Vespa dialect, a target the one it was given. Immutable; equal when
 * all components are.
 *
 * @param label the name in results and on the command line
 * @param store {@value #MUTABLE_STORE}, {@value #SEGMENTED_STORE}, {@value #OPENSEARCH_STORE} or
 *     {@value #TARGET_STORE}
 * @param forceMerged whether the index is force-merged to one segment before the query phase
 * @param target the endpoint and its dialect, for {@value #TARGET_STORE} only (else null)
 * @param quantization for searchlab's stores, the vectors this variant keeps whatever {@code
 *     --quantization} says ({@code INT8} for the {@code -int8} variants, {@code INT4} for {@code
 *     -int4}, {@code BBQ} for {@code -bbq}), or {@code NONE}: the run's {@code --quantization}
 */
public record Variant(
    String label,
    String store,
    boolean forceMerged,
    Target target,
    VectorQuantization quantization) {
  public static final String MUTABLE_STORE = "mutable";
  public static final String SEGMENTED_STORE = "segmented";
  public static final String OPENSEARCH_STORE = "opensearch";
  public static final String TARGET_STORE = "target";

  /** The mutable store with its defaults (the "Vespa" side). */
  public static final Variant MUTABLE = new Variant("mutable", MUTABLE_STORE, false, null);

  /** The segmented store with Elasticsearch's defaults: tiered merges, 1 s refresh, concurrency. */
  public static final Variant SEGMENTED = new Variant("segmented", SEGMENTED_STORE, false, null);

  /** The same, force-merged to one segment before its query phase. */
  public static final Variant SEGMENTED_FORCEMERGED =
      new Variant("segmented-forcemerged", SEGMENTED_STORE, true, null);

  /**
   * A real OpenSearch 3.5 (embedded, k-NN plugin on the Lucene engine) as child JVM(s), with the
   * benchmark's index ({@link org.searchlab.opensearch.ProductIndex}).
   */
  public static final Variant OPENSEARCH = new Variant("opensearch", OPENSEARCH_STORE, false, null);

  /** The same, fed on its own cluster and force-merged to one segment before its query phase. */
  public static final Variant OPENSEARCH_FORCEMERGED =
      new Variant("opensearch-forcemerged", OPENSEARCH_STORE, true, null);

  /** The mutable store with int8 codes (floats in a mapped file, for rescoring). */
  public static final Variant MUTABLE_INT8 =
      new Variant("mutable-int8", MUTABLE_STORE, false, null, VectorQuantization.INT8);

  /**
   * The mutable store with 1-bit codes (Elasticsearch {@code bbq_hnsw}): its graph walks them with
   * a 4-bit query and reranks by the floats (in a mapped file) to the codes' error bounds.
   */
  public static final Variant MUTABLE_BBQ =
      new Variant("mutable-bbq", MUTABLE_STORE, false, null, VectorQuantization.BBQ);

  /**
   * The mutable store with 4-bit codes (Elasticsearch {@code int4_hnsw}): its graph walks them with
   * a 4-bit query and reranks by the floats (in a mapped file) to the codes' error bounds.
   */
  public static final Variant MUTABLE_INT4 =
      new Variant("mutable-int4", MUTABLE_STORE, false, null, VectorQuantization.INT4);

  /**
   * {@link #MUTABLE_BBQ} with each node's row also holding its neighbours' 1-bit codes ({@code
   * serve --inline-codes}), and its floats on the heap: the same hits, read from one row per
   * expanded node, for about 2 KB more a vector.
   */
  public static final Variant MUTABLE_BBQ_INLINE =
      new Variant("mutable-bbq-inline", MUTABLE_STORE, false, null, VectorQuantization.BBQ);

  /** The segmented store with Lucene's int8 HNSW format (Elasticsearch {@code int8_hnsw}). */
  public static final Variant SEGMENTED_INT8 =
      new Variant("segmented-int8", SEGMENTED_STORE, false, null, VectorQuantization.INT8);

  /** The same, force-merged to one segment before its query phase. */
  public static final Variant SEGMENTED_FORCEMERGED_INT8 =
      new Variant(
          "segmented-forcemerged-int8", SEGMENTED_STORE, true, null, VectorQuantization.INT8);

  /**
   * The segmented store with Lucene's 4-bit scalar-quantized HNSW format (Elasticsearch {@code
   * int4_hnsw}, through Lucene's optimized scalar quantization).
   */
  public static final Variant SEGMENTED_INT4 =
      new Variant("segmented-int4", SEGMENTED_STORE, false, null, VectorQuantization.INT4);

  /** The same, force-merged to one segment before its query phase. */
  public static final Variant SEGMENTED_FORCEMERGED_INT4 =
      new Variant(
          "segmented-forcemerged-int4", SEGMENTED_STORE, true, null, VectorQuantization.INT4);

  /**
   * The segmented store with Lucene's 1-bit codes and 4-bit queries (Elasticsearch {@code
   * bbq_hnsw}).
   */
  public static final Variant SEGMENTED_BBQ =
      new Variant("segmented-bbq", SEGMENTED_STORE, false, null, VectorQuantization.BBQ);

  /** The same, force-merged to one segment before its query phase. */
  public static final Variant SEGMENTED_FORCEMERGED_BBQ =
      new Variant("segmented-forcemerged-bbq", SEGMENTED_STORE, true, null, VectorQuantization.BBQ);

  /** The variants {@code --variants} knows by name. */
  public static final List<Variant> BUILT_IN =
      List.of(
          MUTABLE,
          SEGMENTED,
          SEGMENTED_FORCEMERGED,
          OPENSEARCH,
          OPENSEARCH_FORCEMERGED,
          MUTABLE_INT8,
          SEGMENTED_INT8,
          SEGMENTED_FORCEMERGED_INT8,
          SEGMENTED_INT4,
          SEGMENTED_FORCEMERGED_INT4,
          SEGMENTED_BBQ,
          SEGMENTED_FORCEMERGED_BBQ,
          MUTABLE_BBQ,
          MUTABLE_BBQ_INLINE,
          MUTABLE_INT4);

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_-]{0,39}");

  /** A variant that keeps the run's {@code --quantization}. */
  public Variant(String label, String store, boolean forceMerged, Target target) {
    this(label, store, forceMerged, target, VectorQuantization.NONE);
  }

  public Variant {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(quantization, "quantization");
    if (quantization != VectorQuantization.NONE
        && !store.equals(MUTABLE_STORE)
        && !store.equals(SEGMENTED_STORE)) {
      throw new IllegalArgumentException(
          "variant " + label + ": only searchlab's stores take a quantization");
    }
    if (store.equals(TARGET_STORE) != (target != null)) {
      throw new IllegalArgumentException(
          "variant " + label + ": a target needs an endpoint, and only a target has one");
    }
  }

  /**
   * An external endpoint.
   *
   * @param uri its base address, such as {@code http://host:9200}
   * @param dialect {@code es} (Elasticsearch, or OpenSearch when its root says so), {@code
   *     opensearch} or {@code vespa}
   */
  public record Target(URI uri, String dialect) {
    public static final List<String> DIALECTS = List.of("es", "opensearch", "vespa");

    public Target {
      Objects.requireNonNull(uri, "uri");
      if (!DIALECTS.contains(dialect)) {
        throw new IllegalArgumentException(
            "dialect '" + dialect + "' is not one of " + String.join(", ", DIALECTS));
      }
    }
  }

  /** Whether this variant speaks the Elasticsearch dialect (else the Vespa one). */
  public boolean elasticsearchDialect() {
    return target == null ? !store.equals(MUTABLE_STORE) : !target.dialect().equals("vespa");
  }

  /** Whether this is an external endpoint given with {@code --target}. */
  public boolean isTarget() {
    return target != null;
  }

  /** Parses a built-in label such as {@code segmented-forcemerged}. */
  public static Variant parse(String label) {
    for (Variant v : BUILT_IN) {
      if (v.label.equals(label.trim().toLowerCase(Locale.ROOT))) {
        return v;
      }
    }
    throw new IllegalArgumentException(
        "unknown variant '"
            + label
            + "'; use "
            + String.join(", ", BUILT_IN.stream().map(Variant::label).toList()));
  }

  /**
   * Parses {@code --target NAME=URL[,dialect=es|opensearch|vespa]}: NAME becomes the variant's
   * label (lowercase letters, digits, '-' and '_', up to 40, not a built-in label), URL its
   * endpoint (http or https with a host), the dialect {@code es} unless given.
   */
  public static Variant parseTarget(String spec) {
    int eq = spec.indexOf('=');
    if (eq <= 0) {
      throw new IllegalArgumentException(
          "target '" + spec + "' is not NAME=URL[,dialect=es|opensearch|vespa]");
    }
    String name = spec.substring(0, eq).trim();
    String[] parts = spec.substring(eq + 1).split(",");
    String dialect = "es";
    for (int i = 1; i < parts.length; i++) {
      String p = parts[i].trim();
      if (!p.startsWith("dialect=")) {
        throw new IllegalArgumentException(
            "target " + name + ": unknown option '" + p + "'; the only option is dialect=");
      }
      dialect = p.substring("dialect=".length()).trim().toLowerCase(Locale.ROOT);
    }
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "target name '"
              + name
              + "' must be 1 to 40 of a-z, 0-9, '-', '_', starting with a letter");
    }
    if (BUILT_IN.stream().anyMatch(v -> v.label.equals(name))) {
      throw new IllegalArgumentException("target name '" + name + "' is a built-in variant");
    }
    URI uri;
    try {
      uri = URI.create(parts[0].trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("target " + name + ": '" + parts[0] + "' is not a URL");
    }
    if (uri.getHost() == null
        || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
      throw new IllegalArgumentException(
          "target " + name + ": '" + uri + "' is not an http(s) URL with a host");
    }
    return new Variant(name, TARGET_STORE, false, new Target(uri, dialect));
  }
}
