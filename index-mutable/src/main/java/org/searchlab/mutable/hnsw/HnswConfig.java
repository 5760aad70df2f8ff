package org.searchlab.mutable.hnsw;

import java.util.Objects;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.mapping.VectorSimilarity;

/**
 * The tuning parameters of a {@link MutableHnswGraph}. Immutable; build one with {@link #builder()}
 * (which starts from {@link #DEFAULT}) or change one with {@link #toBuilder()}.
 *
 * @param m maximum links per node on the upper levels, 2·m on level 0 (the paper's {@code M},
 *     Lucene's {@code maxConn}); a new node selects at most m on every level, as hnswlib and Vespa
 *     insert, and level 0's lists fill up to 2·m with links back; in [2, 512]. Higher gives better
 *     recall at a given {@code ef} and costs memory and build time. Default 16.
 * @param efConstruction candidates kept by the insert-time beam search (the paper's {@code
 *     efConstruction}, Lucene's {@code beamWidth}); in [1, 4096]. Higher gives a better graph and a
 *     slower build. Default 200.
 * @param seed seed of the level generator; equal seeds and equal insert orders give equal graphs on
 *     the single-threaded path.
 * @param buildThreads threads searching for neighbours in {@link MutableHnswGraph#insertAll}; in
 *     [1, 256]. More threads build faster up to the core count; 1 builds exactly like sequential
 *     inserts. Default 1.
 * @param approximateThreshold below this filter hit ratio (accepted nodes / live nodes) a filtered
 *     search is an exact scan of the accepted nodes (Vespa's {@code approximate-threshold}); in [0,
 *     1]. Higher makes more filtered queries exact (recall 1, cost linear in accepted nodes).
 *     Default 0.005.
 * @param filterFirstThreshold below this hit ratio (and at or above {@code approximateThreshold})
 *     the graph is explored filter-first with two-hop expansion (ACORN-1, Vespa's {@code
 *     filter-first-threshold}); in [0, 1]. Higher uses filter-first for more queries. Default
 *     0.005, the approximate threshold, so filter-first is off unless asked for: measured on 100k
 *     documents (FilteredVectorPlanBenchmark), plain filtered HNSW beat it at 1% and 10% hit ratios
 *     in both recall@10 (.995 vs .803, .955 vs .892) and time per query.
 * @param exactScanPerBeam whatever the graph walks, and unless the request sets its own approximate
 *     threshold, a filtered search is also exact when the filter accepts fewer than this many nodes
 *     per unit of its beam: a filtered graph search costs more the wider its beam, a scan does not;
 *     in [0, 100000], 0 for the hit ratio alone. Default {@value #EXACT_SCAN_PER_BEAM}.
 * @param quantization what the graph search reads: the float vectors ({@link
 *     VectorQuantization#NONE}, the default), their int8 codes ({@link VectorQuantization#INT8},
 *     see {@code Int8Codes}), which quarter the bytes each visited node costs, their 4-bit codes
 *     ({@link VectorQuantization#INT4}, see {@code Int4Codes}), 13.5% of them at 384 dimensions, or
 *     their 1-bit codes searched with a 4-bit query ({@link VectorQuantization#BBQ}, see {@code
 *     BinaryCodes}), a twenty-fourth of them; the floats stay in memory for rescoring and for
 *     reading documents back. Inserts search the graph the same way with int8 codes, so an int8
 *     graph is also built on int8 distances, as Lucene builds its quantized graphs; with 4-bit and
 *     1-bit codes they search the floats, since links chosen by estimates that coarse make a worse
 *     graph.
 * @param oversample with quantization, a search keeps {@code k × oversample} candidates by their
 *     int8 scores (its beam is at least that wide) and reorders them by their exact float scores
 *     (Elasticsearch's {@code rescore_vector.oversample}); in [1, 10]. Higher recovers more of what
 *     quantization loses and costs more float reads. Default {@value
 *     VectorQuantization#DEFAULT_OVERSAMPLE}. Ignored without quantization.
 * @param rerankConfidence with 1-bit or 4-bit codes ({@link VectorQuantization#BBQ}, {@link
 *     VectorQuantization#INT4}), RaBitQ's {@code ε₀}: a search takes the beam's nodes in descending
 *     order of their estimate plus {@code ε₀} times its error's scale ({@code CodeQuery#bound}), at
 *     least {@code k × oversample} of them, and stops at the first whose upper end is below the
 *     k-th lower end of the taken nodes' int8 brackets (a 4-bit graph of at least 384 dimensions:
 *     their own codes' brackets at the same {@code ε₀}), then rescores by their floats those whose
 *     bracket reaches it; in [0, 10]. Higher takes more and misses fewer neighbours that the codes
 *     placed low. Default {@value #RERANK_CONFIDENCE}, the RaBitQ paper's. Ignored without 1-bit or
 *     4-bit codes.
 * @param similarity how the graph compares vectors, with Elasticsearch's names and {@code _score}s
 *     ({@link VectorSimilarity}): {@link VectorSimilarity#DOT_PRODUCT} (the default; unit vectors),
 *     {@link VectorSimilarity#L2_NORM} or {@link VectorSimilarity#MAX_INNER_PRODUCT} (any finite
 *     vectors). {@link VectorSimilarity#COSINE} is accepted and is {@code DOT_PRODUCT} here: the
 *     caller normalises documents and queries before they reach the graph, as Elasticsearch indexes
 *     cosine fields. Every distance the graph computes, to build or to search, is this one. None is
 *     faster: a squared distance costs a subtraction more per component than a dot product, which a
 *     memory-bound search does not notice (20,000 random unit vectors of 384 dimensions, l2 and dot
 *     product alternately in one JVM: builds 9.3–9.7 s of CPU and searches at ef 128 95–100 ns per
 *     visited node, either way). A snapshot records it, and loading one with another similarity is
 *     refused.
 * @param inlineCodes with 1-bit codes ({@link VectorQuantization#BBQ}), each node's bottom-level
 *     row also holds the 1-bit codes of its neighbours ({@code InlineCodeRows}, SymphonyQG's
 *     layout), so that a search estimates all of a node's neighbours from one contiguous row
 *     instead of reaching each neighbour's own code: the same estimates and hits, for about {@code
 *     2M·(D/8 + 12)} more bytes per node (2 KB at M 16 and 384 dimensions, 1.3× the floats).
 *     Default false. Ignored without 1-bit codes, so that one store config serves a mapping's float
 *     and {@code bbq_hnsw} fields alike.
 */
public record HnswConfig(
    int m,
    int efConstruction,
    long seed,
    int buildThreads,
    double approximateThreshold,
    double filterFirstThreshold,
    int exactScanPerBeam,
    VectorQuantization quantization,
    int oversample,
    float rerankConfidence,
    VectorSimilarity similarity,
    boolean inlineCodes) {

  /** The default {@code rerankConfidence}: RaBitQ's {@code ε₀} of 1.9. */
  public static final float RERANK_CONFIDENCE = 1.9f;

  /**
   * The default {@code exactScanPerBeam}: over float vectors a filtered search whose filter accepts
   * fewer nodes than this times its beam scans them exactly. First measured on the Debian corpus
   * (100,000 documents, 384-d, M 16, one thread, 1,000 filtered queries, CPU per query by category
   * size) when the scan read the floats: the scan and the filtered graph search (with its
   * fall-back) cost the same at about 700 accepted documents for beam 10, 2,000–2,500 for beam 30
   * and 5,000 for beam 100, hence 50. Since the scan reads the int8 codes and rescores few floats
   * (about 0.14 µs per accepted document instead of 0.2), 50, 80 and 120 were compared again on the
   * same queries, alternating in one JVM (4 passes, medians): 80 cut the CPU per filtered vector
   * query at beam 100 by 8% and per filtered hybrid query (k 100, beam 100) by 4.5% against 50,
   * with recall@10 0.9987 against 0.9982, and left beams 10 and 25 within ±2%; 120 gained no more
   * at beam 100 and lost it on hybrid queries.
   */
  public static final int EXACT_SCAN_PER_BEAM = 80;

  /**
   * M 16, efConstruction 200, seed 42, one build thread, thresholds 0.005 and 0.005, exact scans
   * below 80 accepted nodes per unit of beam, float vectors (oversample 3 if quantized, rerank
   * confidence 1.9 with 1-bit codes), dot product over unit vectors.
   */
  public static final HnswConfig DEFAULT =
      new HnswConfig(
          16,
          200,
          42L,
          1,
          0.005,
          0.005,
          EXACT_SCAN_PER_BEAM,
          VectorQuantization.NONE,
          VectorQuantization.DEFAULT_OVERSAMPLE,
          RERANK_CONFIDENCE,
          VectorSimilarity.DOT_PRODUCT,
          false);

  public HnswConfig {
    Objects.requireNonNull(quantization, "quantization");
    Objects.requireNonNull(similarity, "similarity");
    VectorQuantization.checkOversample(oversample);
    range("m", m, 2, 512);
    range("efConstruction", efConstruction, 1, 4096);
    range("buildThreads", buildThreads, 1, 256);
    ratio("approximateThreshold", approximateThreshold);
    ratio("filterFirstThreshold", filterFirstThreshold);
    range("exactScanPerBeam", exactScanPerBeam, 0, 100_000);
    if (!(rerankConfidence >= 0 && rerankConfidence <= 10)) {
      throw new InvalidRequestException(
          "rerankConfidence " + rerankConfidence + " is outside [0, 10]");
    }
  }

  private static void range(String what, int v, int min, int max) {
    if (v < min || v > max) {
      throw new InvalidRequestException(what + " " + v + " is outside [" + min + ", " + max + "]");
    }
  }

  private static void ratio(String what, double v) {
    if (!(v >= 0 && v <= 1)) {
      throw new InvalidRequestException(what + " " + v + " is outside [0, 1]");
    }
  }

  /** A builder starting from {@link #DEFAULT}. */
  public static Builder builder() {
    return DEFAULT.toBuilder();
  }

  /** A builder preloaded with this config's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.m = m;
    b.efConstruction = efConstruction;
    b.seed = seed;
    b.buildThreads = buildThreads;
    b.approximateThreshold = approximateThreshold;
    b.filterFirstThreshold = filterFirstThreshold;
    b.exactScanPerBeam = exactScanPerBeam;
    b.quantization = quantization;
    b.oversample = oversample;
    b.rerankConfidence = rerankConfidence;
    b.similarity = similarity;
    b.inlineCodes = inlineCodes;
    return b;
  }

  /**
   * Builds a {@link HnswConfig}, one setter per component; {@link #build()} runs the record's
   * validation. Not thread-safe.
   */
  public static final class Builder {
    private int m;
    private int efConstruction;
    private long seed;
    private int buildThreads;
    private double approximateThreshold;
    private double filterFirstThreshold;
    private int exactScanPerBeam;
    private VectorQuantization quantization;
    private int oversample;
    private float rerankConfidence;
    private VectorSimilarity similarity;
    private boolean inlineCodes;

    private Builder() {}

    public Builder m(int v) {
      m = v;
      return this;
    }

    public Builder efConstruction(int v) {
      efConstruction = v;
      return this;
    }

    public Builder seed(long v) {
      seed = v;
      return this;
    }

    public Builder buildThreads(int v) {
      buildThreads = v;
      return this;
    }

    public Builder approximateThreshold(double v) {
      approximateThreshold = v;
      return this;
    }

    public Builder filterFirstThreshold(double v) {
      filterFirstThreshold = v;
      return this;
    }

    public Builder exactScanPerBeam(int v) {
      exactScanPerBeam = v;
      return this;
    }

    public Builder quantization(VectorQuantization v) {
      quantization = v;
      return this;
    }

    public Builder oversample(int v) {
      oversample = v;
      return this;
    }

    public Builder rerankConfidence(float v) {
      rerankConfidence = v;
      return this;
    }

    public Builder similarity(VectorSimilarity v) {
      similarity = v;
      return this;
    }

    public Builder inlineCodes(boolean v) {
      inlineCodes = v;
      return this;
    }

    public HnswConfig build() {
      return new HnswConfig(
          m,
          efConstruction,
          seed,
          buildThreads,
          approximateThreshold,
          filterFirstThreshold,
          exactScanPerBeam,
          quantization,
          oversample,
          rerankConfidence,
          similarity,
          inlineCodes);
    }
  }

  /** Maximum links of a node on {@code level}: 2·m on level 0, m above. */
  int maxLinks(int level) {
    return level == 0 ? 2 * m : m;
  }
}
