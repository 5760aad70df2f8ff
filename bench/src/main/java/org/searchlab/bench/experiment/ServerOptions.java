package org.searchlab.bench.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.searchlab.core.VectorQuantization;
import org.searchlab.segmented.Slicing;

/**
 * The {@code searchlab serve} settings the experiments change, and the one place that turns them
 * into the server's command-line flags. Immutable; build one with {@link #builder()} or {@link
 * #defaults}, change one with {@link #toBuilder()}.
 *
 * @param store {@code mutable} or {@code segmented}
 * @param dimension the schema's embedding dimension ({@code --dims})
 * @param segmentPerBatch segmented: one segment per bulk request (the sweep sets it)
 * @param mergePolicyNone segmented: merge policy {@code none} instead of tiered (the sweep)
 * @param searchThreads segmented: concurrent segment search threads; {@code null} keeps the
 *     server's default (Elasticsearch's pool), 0 searches segments sequentially
 * @param slicing segmented: how concurrent search groups segments into slices ({@code serve
 *     --slicing}); {@code null} keeps the server's default ({@link Slicing#LUCENE_DEFAULT})
 * @param hnswM HNSW max links per node, or {@code null} for the default (16)
 * @param hnswEfConstruction HNSW beam width at insert, or {@code null} for the default (200)
 * @param refreshIntervalMs segmented: refresh interval, {@code null} for the default (1 s); -1
 *     refreshes only on request
 * @param quantization the vectors both stores keep ({@code serve --quantization}); {@code NONE},
 *     the server's default, adds no flag
 * @param defaultIndex whether the server creates its {@code product} index at start; false adds
 *     {@code --no-default-index} (a run on another mapping creates its own index)
 * @param mergePolicyFlags segmented: {@code --merge-policy} and its settings' flags ({@link
 *     MergePolicySpec#serveFlags()}, the merge-policy comparison), empty for the server's default;
 *     not together with {@code mergePolicyNone}
 * @param preload segmented: the Lucene file extensions the store loads as it maps them ({@code
 *     serve --preload}, {@code SegmentedConfig.preload}); empty, the default, adds no flag
 * @param inlineCodes mutable, with 1-bit codes: each node's row also holds its neighbours' codes
 *     ({@code serve --inline-codes}); false, the default, adds no flag
 * @param feedNiceness how much the server's write threads yield the cores ({@code serve
 *     --feed-niceness}, 0.0–1.0, checked by the profile that sets it and by {@code serve}); {@code
 *     null}, the default, adds no flag and keeps the store's own (1.0 for the mutable store, 0.0
 *     for the segmented one)
 */
public record ServerOptions(
    String store,
    int dimension,
    boolean segmentPerBatch,
    boolean mergePolicyNone,
    Integer searchThreads,
    Slicing slicing,
    Integer hnswM,
    Integer hnswEfConstruction,
    Integer refreshIntervalMs,
    VectorQuantization quantization,
    boolean defaultIndex,
    List<String> mergePolicyFlags,
    java.util.Set<String> preload,
    boolean inlineCodes,
    Double feedNiceness) {

  public ServerOptions {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(quantization, "quantization");
    mergePolicyFlags = List.copyOf(mergePolicyFlags);
    // Sorted, so that the flag reads the same whatever order the set was built in.
    preload = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(preload));
    if (mergePolicyNone && !mergePolicyFlags.isEmpty()) {
      throw new IllegalArgumentException(
          "merge policy none and merge policy flags " + mergePolicyFlags + " are both set");
    }
  }

  /** A store with all its defaults. */
  public static ServerOptions defaults(String store, int dimension) {
    return builder().store(store).dimension(dimension).build();
  }

  /** An empty builder: store and dimension must be set; the other options keep the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder preloaded with this option set's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.store = store;
    b.dimension = dimension;
    b.segmentPerBatch = segmentPerBatch;
    b.mergePolicyNone = mergePolicyNone;
    b.searchThreads = searchThreads;
    b.slicing = slicing;
    b.hnswM = hnswM;
    b.hnswEfConstruction = hnswEfConstruction;
    b.refreshIntervalMs = refreshIntervalMs;
    b.quantization = quantization;
    b.defaultIndex = defaultIndex;
    b.mergePolicyFlags = mergePolicyFlags;
    b.preload = preload;
    b.inlineCodes = inlineCodes;
    b.feedNiceness = feedNiceness;
    return b;
  }

  /**
   * Builds a {@link ServerOptions}, one setter per component; {@link #build()} runs the record's
   * validation. Not thread-safe.
   */
  public static final class Builder {
    private String store;
    private int dimension;
    private boolean segmentPerBatch;
    private boolean mergePolicyNone;
    private Integer searchThreads;
    private Slicing slicing;
    private Integer hnswM;
    private Integer hnswEfConstruction;
    private Integer refreshIntervalMs;
    private VectorQuantization quantization = VectorQuantization.NONE;
    private boolean defaultIndex = true;
    private List<String> mergePolicyFlags = List.of();
    private java.util.Set<String> preload = java.util.Set.of();
    private boolean inlineCodes;
    private Double feedNiceness;

    private Builder() {}

    public Builder store(String v) {
      store = v;
      return this;
    }

    public Builder dimension(int v) {
      dimension = v;
      return this;
    }

    public Builder segmentPerBatch(boolean v) {
      segmentPerBatch = v;
      return this;
    }

    public Builder mergePolicyNone(boolean v) {
      mergePolicyNone = v;
      return this;
    }

    public Builder searchThreads(Integer v) {
      searchThreads = v;
      return this;
    }

    public Builder slicing(Slicing v) {
      slicing = v;
      return this;
    }

    public Builder hnswM(Integer v) {
      hnswM = v;
      return this;
    }

    public Builder hnswEfConstruction(Integer v) {
      hnswEfConstruction = v;
      return this;
    }

    public Builder refreshIntervalMs(Integer v) {
      refreshIntervalMs = v;
      return this;
    }

    public Builder quantization(VectorQuantization v) {
      quantization = v;
      return this;
    }

    public Builder defaultIndex(boolean v) {
      defaultIndex = v;
      return this;
    }

    public Builder mergePolicyFlags(List<String> v) {
      mergePolicyFlags = v;
      return this;
    }

    public Builder preload(java.util.Set<String> v) {
      preload = v;
      return this;
    }

    public Builder inlineCodes(boolean v) {
      inlineCodes = v;
      return this;
    }

    public Builder feedNiceness(Double v) {
      feedNiceness = v;
      return this;
    }

    public ServerOptions build() {
      return new ServerOptions(
          store,
          dimension,
          segmentPerBatch,
          mergePolicyNone,
          searchThreads,
          slicing,
          hnswM,
          hnswEfConstruction,
          refreshIntervalMs,
          quantization,
          defaultIndex,
          mergePolicyFlags,
          preload,
          inlineCodes,
          feedNiceness);
    }
  }

  /** The flags after {@code serve}, without port and data directory. */
  public List<String> flags() {
    List<String> f =
        new ArrayList<>(List.of("--store", store, "--dims", Integer.toString(dimension)));
    boolean segmented = store.equals("segmented");
    if (segmented && segmentPerBatch) {
      f.add("--segment-per-batch");
    }
    if (segmented && mergePolicyNone) {
      f.addAll(List.of("--merge-policy", "none"));
    }
    if (segmented) {
      f.addAll(mergePolicyFlags);
    }
    if (segmented && searchThreads != null) {
      f.add("--segment-search-threads=" + searchThreads);
    }
    if (segmented && slicing != null) {
      f.add("--slicing=" + slicing.cliName());
    }
    if (segmented && !preload.isEmpty()) {
      f.add("--preload=" + String.join(",", preload));
    }
    if (segmented && refreshIntervalMs != null) {
      f.add("--refresh-interval-ms=" + refreshIntervalMs);
    }
    if (hnswM != null) {
      f.addAll(List.of("--hnsw-m", hnswM.toString()));
    }
    if (hnswEfConstruction != null) {
      f.addAll(List.of("--ef-construction", hnswEfConstruction.toString()));
    }
    if (quantization != VectorQuantization.NONE) {
      f.addAll(List.of("--quantization", quantization.flag()));
    }
    if (store.equals("mutable") && inlineCodes) {
      f.add("--inline-codes");
    }
    if (feedNiceness != null) {
      f.add("--feed-niceness=" + feedNiceness);
    }
    if (!defaultIndex) {
      f.add("--no-default-index");
    }
    return f;
  }
}
