package org.searchlab.opensearch;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;
import org.searchlab.core.Schema;
import org.searchlab.core.analysis.TextAnalysis;

/**
 * The benchmark's index in OpenSearch, built so that it scores like searchlab's stores: the body of
 * {@code PUT /<name>} ({@link #body()}). Immutable.
 *
 * <ul>
 *   <li>Analysis: the custom analyzer {@value TextAnalysis#NAME} = standard tokenizer, {@code
 *       lowercase}, {@code asciifolding} and a {@code stemmer} filter with language {@code
 *       porter2}, which OpenSearch (analysis-common) builds as Lucene's {@code
 *       SnowballFilter(EnglishStemmer)}: the chain of {@link TextAnalysis}, token for token.
 *   <li>Scoring: BM25 with k1 1.2 and b 0.75 as the default similarity (OpenSearch 3.5's {@code
 *       BM25} is Lucene's {@code BM25Similarity}, without the legacy (k1 + 1) factor), so lexical
 *       scores equal the stores' to float rounding.
 *   <li>Fields: {@code title} and {@code description} text; {@code category} keyword; {@code price}
 *       integer; {@code average_rating} float; {@code id} kept in {@code _source} only (the
 *       document id is {@code _id}); {@code embedding} a {@code knn_vector} on the Lucene engine
 *       (the only one without native libraries) with HNSW and {@code innerproduct} space, Lucene's
 *       {@code MAXIMUM_INNER_PRODUCT}: score 1 + dot for dot ≥ 0, which {@link OpenSearchDialect}
 *       halves back to the stores' (1 + dot) / 2. Unknown fields are rejected ({@code strict}).
 * </ul>
 *
 * @param name the index name; the benchmark's is {@value #DEFAULT_NAME}
 * @param dimension the embedding dimension, 1 to {@value Schema#MAX_DIMENSION}
 * @param shards primary shards, 1 to 1024; the benchmark uses 1
 * @param replicas copies of each shard, 0 to 8; 0 on one node, 1 on a three-node cluster
 * @param refreshIntervalMs how often new writes become searchable, 1 to 3,600,000 ms, or -1 for
 *     explicit refreshes only; the segmented store's default is 1000. Set explicitly, so the shard
 *     never goes "search idle" (OpenSearch skips scheduled refreshes of a shard nobody searched for
 *     30 s only when the interval is left unset)
 * @param durableWrites true fsyncs the translog before acknowledging each request ({@code
 *     translog.durability: request}, as the segmented store's write-ahead log does by default);
 *     false fsyncs every 5 s ({@code async}), faster and loses up to 5 s in a crash
 * @param hnswM HNSW links per node (the paper's M), 2 to 512; the benchmark's 16. Higher is more
 *     accurate, larger and slower to build
 * @param hnswEfConstruction HNSW beam width while building (efConstruction), 1 to 3200; the
 *     benchmark's 200. Higher is more accurate and slower to build
 * @param mergeLikeSegmented true sets the tiered merge policy to the segmented store's defaults
 *     (Elasticsearch 8's: 10 segments per tier, 10 merged at once, 2 MB floor, 5 GB largest, 20 %
 *     deletes), so both engines merge alike; false keeps OpenSearch 3.5's (30 at once, 16 MB
 *     floor), which leaves fewer, larger segments after a feed
 */
public record ProductIndex(
    String name,
    int dimension,
    int shards,
    int replicas,
    long refreshIntervalMs,
    boolean durableWrites,
    int hnswM,
    int hnswEfConstruction,
    boolean mergeLikeSegmented) {

  public static final String DEFAULT_NAME = "product";

  /** The benchmark's index: 384 dimensions, one shard, no replica, the segmented defaults. */
  public static final ProductIndex DEFAULT =
      new ProductIndex(DEFAULT_NAME, Schema.DEFAULT_DIMENSION, 1, 0, 1000, true, 16, 200, true);

  public ProductIndex {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty() || !name.equals(name.toLowerCase(java.util.Locale.ROOT))) {
      throw new IllegalArgumentException("index name '" + name + "' must be non-empty lowercase");
    }
    range("dimension", dimension, 1, Schema.MAX_DIMENSION);
    range("shards", shards, 1, 1024);
    range("replicas", replicas, 0, 8);
    if (refreshIntervalMs != -1) {
      range("refreshIntervalMs", refreshIntervalMs, 1, 3_600_000);
    }
    range("hnswM", hnswM, 2, 512);
    range("hnswEfConstruction", hnswEfConstruction, 1, 3200);
  }

  private static void range(String what, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          what + " " + value + " is outside [" + min + ", " + max + "]");
    }
  }

  /** The JSON body of {@code PUT /<name>}: settings, analysis, similarity and mappings. */
  public String body() {
    ObjectNode root = OpenSearchHttp.MAPPER.createObjectNode();
    ObjectNode settings = root.putObject("settings");
    ObjectNode index = settings.putObject("index");
    index.put("number_of_shards", shards);
    index.put("number_of_replicas", replicas);
    index.put("refresh_interval", refreshIntervalMs == -1 ? "-1" : refreshIntervalMs + "ms");
    index.put("translog.durability", durableWrites ? "request" : "async");
    // Required by the k-NN plugin for knn_vector fields.
    index.put("knn", true);
    if (mergeLikeSegmented) {
      index.put("merge.policy.segments_per_tier", 10);
      index.put("merge.policy.max_merge_at_once", 10);
      index.put("merge.policy.floor_segment", "2mb");
      index.put("merge.policy.max_merged_segment", "5gb");
      index.put("merge.policy.deletes_pct_allowed", 20);
    }
    ObjectNode bm25 = index.putObject("similarity").putObject("default");
    bm25.put("type", "BM25");
    bm25.put("k1", 1.2);
    bm25.put("b", 0.75);
    ObjectNode analysis = index.putObject("analysis");
    ObjectNode analyzer = analysis.putObject("analyzer").putObject(TextAnalysis.NAME);
    analyzer.put("type", "custom");
    analyzer.put("tokenizer", "standard");
    analyzer.putArray("filter").add("lowercase").add("asciifolding").add("porter2_stemmer");
    ObjectNode stemmer = analysis.putObject("filter").putObject("porter2_stemmer");
    stemmer.put("type", "stemmer");
    stemmer.put("language", "porter2");

    ObjectNode mappings = root.putObject("mappings");
    mappings.put("dynamic", "strict");
    ObjectNode props = mappings.putObject("properties");
    ObjectNode id = props.putObject(Schema.ID);
    id.put("type", "keyword");
    id.put("index", false);
    id.put("doc_values", false);
    for (String text : Schema.TEXT_FIELDS) {
      ObjectNode f = props.putObject(text);
      f.put("type", "text");
      f.put("analyzer", TextAnalysis.NAME);
    }
    props.putObject(Schema.CATEGORY).put("type", "keyword");
    props.putObject(Schema.PRICE).put("type", "integer");
    props.putObject(Schema.AVERAGE_RATING).put("type", "float");
    ObjectNode vector = props.putObject(Schema.EMBEDDING);
    vector.put("type", "knn_vector");
    vector.put("dimension", dimension);
    ObjectNode method = vector.putObject("method");
    method.put("name", "hnsw");
    method.put("engine", "lucene");
    method.put("space_type", "innerproduct");
    ObjectNode params = method.putObject("parameters");
    params.put("m", hnswM);
    params.put("ef_construction", hnswEfConstruction);
    return root.toString();
  }

  /** A builder starting from {@link #DEFAULT}. */
  public static Builder builder() {
    return DEFAULT.toBuilder();
  }

  /** A builder starting from this configuration. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.name = name;
    b.dimension = dimension;
    b.shards = shards;
    b.replicas = replicas;
    b.refreshIntervalMs = refreshIntervalMs;
    b.durableWrites = durableWrites;
    b.hnswM = hnswM;
    b.hnswEfConstruction = hnswEfConstruction;
    b.mergeLikeSegmented = mergeLikeSegmented;
    return b;
  }

  /** Builds a {@link ProductIndex}; {@link #build()} validates as the record's constructor does. */
  public static final class Builder {
    private String name;
    private int dimension;
    private int shards;
    private int replicas;
    private long refreshIntervalMs;
    private boolean durableWrites;
    private int hnswM;
    private int hnswEfConstruction;
    private boolean mergeLikeSegmented;

    private Builder() {}

    public Builder name(String v) {
      this.name = v;
      return this;
    }

    public Builder dimension(int v) {
      this.dimension = v;
      return this;
    }

    public Builder shards(int v) {
      this.shards = v;
      return this;
    }

    public Builder replicas(int v) {
      this.replicas = v;
      return this;
    }

    public Builder refreshIntervalMs(long v) {
      this.refreshIntervalMs = v;
      return this;
    }

    public Builder durableWrites(boolean v) {
      this.durableWrites = v;
      return this;
    }

    public Builder hnswM(int v) {
      this.hnswM = v;
      return this;
    }

    public Builder hnswEfConstruction(int v) {
      this.hnswEfConstruction = v;
      return this;
    }

    public Builder mergeLikeSegmented(boolean v) {
      this.mergeLikeSegmented = v;
      return this;
    }

    public ProductIndex build() {
      return new ProductIndex(
          name,
          dimension,
          shards,
          replicas,
          refreshIntervalMs,
          durableWrites,
          hnswM,
          hnswEfConstruction,
          mergeLikeSegmented);
    }
  }
}
