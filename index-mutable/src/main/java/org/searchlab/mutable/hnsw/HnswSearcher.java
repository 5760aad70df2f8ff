// Over 500 lines: the descent, the level-0 beam searches (plain, filtered, filter-first, over
// float, int8, 4-bit or 1-bit rows, or rows of the neighbours' 1-bit codes), the low-bit rerank
// and the exact scan share this searcher's visited set, heaps and batch arrays, one instance per
// thread; splitting them would pass that state between classes on the hot path.
package org.searchlab.mutable.hnsw;

import java.util.Arrays;
import org.apache.lucene.util.VectorUtil;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.VectorQuantization;

/**
 * The graph search: greedy descent through the upper levels, then a beam search on level 0 (Malkov
 * &amp; Yashunin Algorithm 2), plain, filtered, filter-first (ACORN-1 two-hop), or an exact scan,
 * chosen by the filter's hit ratio. Also the neighbour search of inserts.
 *
 * <p>Internally scores are the raw scores of the configured similarity ({@link GraphSimilarity}:
 * the dot product, or the negated squared distance, higher is closer); results are converted to
 * that similarity's {@code _score} at the end. The similarity picks its kernels once per batch
 * ({@link #scoreBatch}), never per distance.
 *
 * <p>With {@link VectorQuantization#INT8} vectors the beam (and the greedy descent, and so the
 * inserts that use them) scores nodes by their {@link Int8Codes} against the query's code, encoded
 * once per call. A graph search keeps at least {@code k × oversample} candidates and reorders them
 * by their float scores before the top {@code k} are cut ({@link #collect}), so reported scores are
 * exact.
 *
 * <p>With {@link VectorQuantization#BBQ} a query searcher's beam and descent score nodes by their
 * 1-bit codes against the query rotated and rounded to 4 bits ({@link BinaryCodes}), with {@link
 * VectorQuantization#INT4} by their 4-bit codes against the same query ({@link Int4Codes}), both
 * through {@link CodeQuery}; with {@link HnswConfig#inlineCodes()} and 1-bit codes an expansion
 * estimates all of a node's neighbours from its row ({@link InlineCodeRows}). The beam's nodes are
 * rescored by their floats to a depth chosen by the codes' error bounds ({@link #rerank}); the
 * searchers of inserts walk the floats ({@link HnswBuilder#newBuildSearcher}).
 *
 * <p>Thread-safety: confined to one thread at a time (it owns the heaps and the visited set). It
 * reads the graph without locks: a neighbour list is an immutable snapshot, a node whose vector is
 * gone (removed under us) is skipped as infinitely far, and nodes added after the visited set was
 * sized are skipped.
 */
final class HnswSearcher implements GraphSearcher {
  static final int MAX_K = 10_000;
  static final int MAX_EF = 100_000;

  /**
   * From this many dimensions a 4-bit beam's rerank brackets each node by its own code at the
   * rerank confidence instead of by its int8 code ({@link #rerank}): the int8 code's rigorous bound
   * grows with the query's L1 norm, about as the dimension, the 4-bit code's statistical one as its
   * square root. Measured at both ends: at 384 dimensions the two are about as wide (the own
   * brackets read 21.6 floats a query at ef 32 against 22.3 on Debian's MiniLM vectors, 34 against
   * 31 for a query of Int4RerankTest's clusters), and the own ones spare the int8 codes' reads; at
   * 96 dimensions (the same clusters) they read 34 floats against 17.
   */
  static final int OWN_BRACKETS_DIMENSION = 384;

  /** Share of rejected neighbours above which a filter-first expansion looks two hops out. */
  private static final float EXPANDED_EXPLORATION_SHARE = 0.10f;

  private final HnswAdjacency graph;
  private final VectorStore vectors;
  private final HnswConfig config;
  private final GraphSimilarity similarity;
  private final boolean int8;
  // Whether the beam walks low-bit codes, 1-bit (BBQ) or 4-bit (INT4), in a query searcher;
  // inserts walk the floats.
  private final boolean lowBit;
  // A 4-bit beam's rerank brackets by its own codes (OWN_BRACKETS_DIMENSION).
  private final boolean ownBrackets;
  // The bound query rotated and rounded to 4 bits for those codes; null without them.
  private final CodeQuery codeQuery;

  /**
   * The last byte of a code the beam walks (a low-bit code's tail, an int8 code's scale and norm),
   * which {@link #touchCodeLines} reads with every 64th byte before it.
   */
  private final int codeLast;

  // Where the plain beam reads level 0's links from, behind each vector (null when the graph
  // walks int8 codes, or the vectors are not in rows: then the adjacency's lists).
  private final RowFloatSlots rows;
  // The same behind each int8 code, when the graph walks them (RowCodes); else null.
  private final RowCodes codeRows;
  // With inline codes (HnswConfig#inlineCodes), level 0's rows with the neighbours' 1-bit codes,
  // and the estimates of one row; else null.
  private final InlineCodeRows inline;
  private final float[] rowScores;
  // The page and offset of the row estimateRow read last.
  private long[] rowPage;
  private int rowAt;
  // The length of a vector: the head of the arrays vectors.row() returns.
  private final int dim;
  // The bound query's int8 code (tail zero, see Int8Codes), scale and, for l2_norm, the decoded
  // code's squared norm (Int8Codes.squares); rewritten by bind().
  private final byte[] queryCode;
  private float queryScale;
  private float querySquares;
  private final VisitedSet visited = new VisitedSet();
  private final ScoreHeap candidates = new ScoreHeap(true);
  private final ScoreHeap results = new ScoreHeap(false);
  // The unfiltered beam's one sorted array; see sortedBeam.
  private final BeamPool pool = new BeamPool();
  // Whether an unfiltered beam runs on the pool (always, but for tests that compare it with the
  // two heaps the filtered beam still uses).
  private boolean sortedBeam = true;
  private int scored;
  private float[] lastQuery;

  /**
   * A hit's vector for {@link #collect}'s rescoring when its row continues with links: {@link
   * VectorUtil#dotProduct} takes two arrays of one length, and copying into this buffer replaces a
   * fresh copy per hit (on the experiment's queries, k = 100 hits of 384 floats and 32 links, about
   * 150 KB per query and the largest single share of the search threads' allocation). Also where
   * {@link #score(float[], int)} copies a mapped vector, read before the next.
   */
  private final float[] hitVector;

  private int[] toScore = new int[0];
  private int[] toExplore = new int[0];
  private int exploreMultiplier;
  private int minToScore;

  /**
   * Where the loads of {@link #touchFirstLines} and of the next candidate's links go, so that the
   * JIT keeps them; never read.
   */
  private float touched;

  /** Vectors an exact scan scores per batch. */
  private static final int EXACT_BATCH = 32;

  // The exact plan's candidates: nodes whose score bracket reached the k-th best lower end when
  // they were scanned, with their upper ends.
  private final ScoreHeap lowerEnds = new ScoreHeap(false);
  private int[] candidateNodes = new int[256];
  private float[] candidateUpper = new float[256];
  private int candidateCount;
  private float kthLower;
  // The scanned query's squared norm and norm, for the brackets.
  private double scanSquares;
  private float scanNorm;
  private float scanL1;
  private float scanResidual;
  private int rescored;
  // Vectors the last exact plan scanned.
  private int exactScanned;

  // Floats copied out of a mapped file (quantized stores), one buffer per batch slot: the exact
  // scan's rescoring batch, and a float beam's batch (inserts of a low-bit graph); each created at
  // its slot's first use.
  private float[][] rowBuffers = new float[0][];

  private int[] batchNodes = new int[64];
  private float[] batchScores = new float[64];
  // The exact plan's upper ends per batch (batchScores holds the lower ends), and the two ends of
  // one squared-distance bracket.
  private final float[] batchUpper = new float[EXACT_BATCH];
  private final float[] bracket = new float[2];
  private float[][] batchVectors = new float[64][];
  private byte[][] batchCodes = new byte[64][];
  // The integer dot products of a batch of codes (Int8Codes.dots).
  private int[] batchInts = new int[64];

  /** A searcher for queries: it walks what the store's quantization says. */
  HnswSearcher(HnswAdjacency graph, VectorStore vectors, HnswConfig config) {
    this(graph, vectors, config, false);
  }

  /**
   * A searcher for queries, or with {@code build} for the neighbour searches of inserts, which walk
   * the floats where queries walk 1-bit codes ({@link HnswBuilder#newBuildSearcher}).
   */
  HnswSearcher(HnswAdjacency graph, VectorStore vectors, HnswConfig config, boolean build) {
    this.graph = graph;
    this.vectors = vectors;
    this.config = config;
    this.similarity = new GraphSimilarity(config.similarity());
    this.int8 = vectors.quantization() == VectorQuantization.INT8;
    boolean bbq = vectors.quantization() == VectorQuantization.BBQ;
    this.lowBit = !build && (bbq || vectors.quantization() == VectorQuantization.INT4);
    this.ownBrackets = lowBit && !bbq && vectors.dimension() >= OWN_BRACKETS_DIMENSION;
    Rotation rotation = lowBit ? new Rotation(vectors.dimension()) : null;
    this.codeQuery =
        !lowBit ? null : bbq ? new BinaryCodes.Query(rotation) : new Int4Codes.Query(rotation);
    this.codeLast =
        lowBit ? codeQuery.codeLength() - 1 : int8 ? vectors.dimension() + Int8Codes.TAIL - 1 : 0;
    this.rows = int8 || lowBit ? null : graph.rows();
    this.codeRows = int8 || lowBit ? graph.codeRows() : null;
    this.inline = lowBit && bbq ? graph.inlineRows() : null;
    this.rowScores = inline == null ? null : new float[(config.maxLinks(0) + 7) & ~7];
    this.dim = vectors.dimension();
    this.hitVector = new float[dim];
    this.queryCode = new byte[vectors.dimension() + Int8Codes.TAIL];
  }

  /** Makes {@code query} the one the int8 scores are computed against (nothing for floats). */
  private void bind(float[] query) {
    if (lowBit) {
      codeQuery.bind(query);
    }
    if (int8) {
      queryScale = Int8Codes.encodeQuery(query, queryCode);
      if (similarity.l2()) {
        querySquares = Int8Codes.squares(queryCode, queryScale);
      }
    }
  }

  ScoreHeap results() {
    return results;
  }

  /** For tests: runs unfiltered beams on the two heaps of the filtered beam instead of the pool. */
  void useHeapBeam() {
    sortedBeam = false;
  }

  int scored() {
    return scored;
  }

  void resetScored() {
    scored = 0;
  }

  @Override
  public GraphHits search(
      float[] query,
      int k,
      int ef,
      AcceptBits accept,
      int acceptedCount,
      FilterThresholds thresholds,
      int rescoreWindow,
      int shown) {
    if (query.length != vectors.dimension()) {
      throw new InvalidRequestException(
          "query vector length "
              + query.length
              + " differs from the dimension "
              + vectors.dimension());
    }
    if (k < 1 || k > MAX_K) {
      throw new InvalidRequestException("k " + k + " is outside [1, " + MAX_K + "]");
    }
    if (ef < 0 || ef > MAX_EF) {
      throw new InvalidRequestException("ef " + ef + " is outside [0, " + MAX_EF + "]");
    }
    if (shown < 1 || shown > k) {
      throw new IllegalArgumentException("shown " + shown + " is outside [1, " + k + "]");
    }
    scored = 0;
    lastQuery = query;
    bind(query);
    // A quantized search gathers the rescoring window (k × oversample unless the request names
    // one), as Elasticsearch widens num_candidates to at least k × oversample.
    int window =
        int8 || lowBit
            ? (int)
                Math.max(
                    k,
                    Math.min(
                        rescoreWindow > 0 ? rescoreWindow : (long) k * config.oversample(), MAX_EF))
            : k;
    int beam = Math.max(k, Math.max(ef, window));
    String plan = choosePlan(accept, acceptedCount, thresholds, beam);
    if (graph.size() > 0 && beam >= graph.size()) {
      // A beam as large as the graph would score every node anyway: scan them, exactly and by the
      // floats (Lucene's HNSW reader does the same when k reaches the segment's vector count).
      plan = QueryPlan.EXACT;
    }
    if (plan.equals(QueryPlan.FILTER_FIRST)) {
      prepareFilterFirst(acceptedCount);
    }
    if (plan.equals(QueryPlan.EXACT)) {
      exact(query, shown, accept);
    } else {
      long entry = graph.entry();
      int ep = HnswAdjacency.entryNode(entry);
      if (ep >= 0) {
        int[] eps = {descend(query, ep, HnswAdjacency.entryLevel(entry), 0)};
        // Lucene's rule for a filtered search: once the graph has cost more distances than the
        // filter accepts nodes, an exact scan of the accepted nodes is cheaper and exact.
        int limit = accept == AcceptBits.ALL ? Integer.MAX_VALUE : Math.max(acceptedCount, k);
        boolean done =
            beam(query, eps, 1, beam, 0, accept, plan.equals(QueryPlan.FILTER_FIRST), limit);
        if (!done) {
          exact(query, shown, accept);
          plan = QueryPlan.EXACT;
        }
      } else {
        results.clear();
      }
    }
    return collect(k, window, plan, shown);
  }

  private String choosePlan(
      AcceptBits accept, int acceptedCount, FilterThresholds thresholds, int beam) {
    if (accept == AcceptBits.ALL) {
      return QueryPlan.HNSW;
    }
    double ratio = acceptedCount / (double) Math.max(1, graph.size());
    if (ratio < thresholds.approximateOr(config.approximateThreshold())) {
      return QueryPlan.EXACT;
    }
    // The scan reads the int8 codes whatever the graph walks (the float store keeps them for it),
    // so it costs every graph the same. The crossover was measured over floats; int8 graphs walk at
    // about their cost a visit, 1-bit and 4-bit ones at about three quarters of it, so for those
    // the rule takes the scan a little early (docs/quantization.md, the 4-bit experiment).
    if (Double.isNaN(thresholds.approximate())
        && acceptedCount < (long) config.exactScanPerBeam() * beam) {
      return QueryPlan.EXACT;
    }
    if (ratio < thresholds.filterFirstOr(config.filterFirstThreshold())) {
      return QueryPlan.FILTER_FIRST;
    }
    return QueryPlan.HNSW;
  }

  /**
   * The top {@code k} of the results, best first, with their scores recomputed by {@link
   * VectorUtil} ({@link GraphSimilarity#exact}) and converted to the similarity's {@code _score}:
   * the beam may have scored them with {@link BulkDot}'s batched kernels, whose last bits can
   * differ, and a reported score must not depend on which path found the hit. With int8 codes this
   * is the rescoring: the best {@code k × oversample} by int8 score are rescored by their floats
   * and the best {@code k} of those kept. A node whose float vanished under the search (removed
   * meanwhile) keeps its int8 score.
   */
  private GraphHits collect(int k, int window, String plan, int shown) {
    boolean exactPlan = plan.equals(QueryPlan.EXACT);
    if (lowBit && !exactPlan) {
      return rerank(k, window, plan);
    }
    int rescored = exactPlan ? shown : window;
    results.keepBest(rescored);
    int all = results.size();
    long[] codes = new long[all];
    // A float beam scored these very vectors a moment ago; the int8 beam and the exact plan did
    // not.
    boolean cold = int8 || exactPlan;
    float sum = 0;
    for (int i = all - 1; i >= 0; i--) {
      codes[i] = results.pop();
      if (cold) {
        sum += vectors.touchFloats(ScoreHeap.node(codes[i]));
      }
    }
    touched += sum;
    for (int i = 0; i < all; i++) {
      int node = ScoreHeap.node(codes[i]);
      float[] v = hitVector(node);
      if (v != null) {
        codes[i] = ScoreHeap.encode(node, similarity.exact(lastQuery, v));
      }
    }
    int n = Math.min(exactPlan ? shown : k, all);
    // The exact plan ranked only the shown hits; it scanned every accepted vector, so the top k
    // holds as many as it scanned, up to k.
    int found = exactPlan ? Math.max(n, Math.min(k, exactScanned)) : n;
    int floatsRead = exactPlan ? this.rescored : int8 ? all : 0;
    return bestFirst(codes, n, plan, found, floatsRead);
  }

  /**
   * The best {@code n} of {@code codes} ({@link ScoreHeap} codes of raw scores; sorted here) as
   * hits, best first: descending score, ties by descending node, as the heap orders them.
   */
  private GraphHits bestFirst(long[] codes, int n, String plan, int found, int floatsRead) {
    Arrays.sort(codes);
    int all = codes.length;
    int[] nodes = new int[n];
    float[] scores = new float[n];
    for (int i = 0; i < n; i++) {
      long code = codes[all - 1 - i];
      nodes[i] = ScoreHeap.node(code);
      scores[i] = similarity.score(ScoreHeap.score(code));
    }
    return new GraphHits(nodes, scores, plan, scored, found, floatsRead);
  }

  /**
   * The float vector of {@code node}, exactly {@link #dim} long: its row itself when the row holds
   * only the vector, else the row's vector, or the floats of the store's mapped file, copied into
   * {@link #hitVector} (valid until the next call); null when the node's vector is gone. The caller
   * touches the floats of all the cold nodes it will read first ({@link VectorStore#touchFloats}):
   * a mapped vector read cold waited on its miss alone, and rescoring k = 10 hits took about 5% of
   * an int8 server's CPU per query against 1% for the heap's floats (JFR, Debian vectors, beam 10).
   */
  private float[] hitVector(int node) {
    float[] row = vectors.row(node, hitVector);
    if (row == null || row.length == dim) {
      return row;
    }
    System.arraycopy(row, 0, hitVector, 0, dim);
    return hitVector;
  }

  /**
   * {@link #collect} for a beam over 1-bit or 4-bit codes, in two tiers. The beam's nodes are taken
   * in descending order of the upper end of their estimate ({@link CodeQuery#bound} at the
   * configured confidence) and each is bracketed by its int8 code ({@link Int8Codes#errorBound}, or
   * {@link Int8Codes#squareDistanceBracket} for {@code l2_norm}: rigorous bounds around its float
   * score, which the store keeps for its exact plan), until at least {@code window} are taken and
   * the next upper end is below the k-th best int8 lower end: the nodes not taken are then, with
   * the codes' confidence, not in the top k. Then only the taken nodes whose int8 upper end reaches
   * the final k-th lower end are rescored by their floats, and the top k of those is the float top
   * k of every node taken. The k-th lower end is at most the k-th float score, so this takes at
   * least the nodes that rescoring each by its float as it was taken would take, and reads far
   * fewer floats: about the k hits and the few whose brackets straddle the k-th (on the Debian
   * vectors at ef 64, 22 floats a query against 56 when each taken node was rescored by its float,
   * and hnsw-bench's 1-bit searches 1.1–1.4× as fast at equal recall, with the same recall). The
   * codes are bracketed {@value #EXACT_BATCH} at a time, their loads overlapping, so the stop is
   * tested against the k-th lower end of the batches bracketed so far. The floats read are left in
   * {@link #rescored()}. A node whose code or float vanished under the search (removed meanwhile)
   * is dropped.
   *
   * <p>A 4-bit beam of at least {@value #OWN_BRACKETS_DIMENSION} dimensions brackets each node by
   * its own code instead, {@code estimate ± margin} at the same confidence as the order: its error
   * is about a fifth of a 1-bit code's, and its bracket at that confidence is about as narrow there
   * as the int8 code's rigorous one, so the int8 tier read seven cache lines a node for little. On
   * the Debian vectors (hnsw-bench, heap floats) the int8 tier read 22.3 / 23.7 floats a query at
   * ef 32 / 64, the own brackets 21.6 / 23.1, with the same recall@10 (0.9404 / 0.9812), and the
   * 4-bit ÷ float QPS in the same JVM went from 1.39 / 1.51 to 1.42 / 1.67 (medians of three JVMs
   * each). The hits are then the float top k of the nodes whose 4-bit brackets reach the k-th, with
   * the codes' confidence rather than the int8 code's certainty.
   */
  private GraphHits rerank(int k, int window, String plan) {
    long[] order = new long[results.size()];
    int all = results.drain(order); // sorted below, so in any order
    float epsilon = config.rerankConfidence();
    for (int i = 0; i < all; i++) {
      long e = order[i];
      int node = ScoreHeap.node(e);
      float estimate = ScoreHeap.score(e);
      order[i] = ScoreHeap.encode(node, estimate + margin(node, epsilon));
    }
    Arrays.sort(order); // ascending upper ends: the best last
    float[] query = lastQuery;
    if (!ownBrackets) {
      bindBrackets(query);
    }
    lowerEnds.clear();
    candidateCount = 0;
    kthLower = Float.NEGATIVE_INFINITY;
    ensureBatch(EXACT_BATCH);
    int taken = 0;
    int count = 0;
    for (int i = all - 1; i >= 0; i--) {
      long e = order[i];
      if (taken >= window && lowerEnds.size() >= k && ScoreHeap.score(e) < kthLower) {
        break;
      }
      int node = ScoreHeap.node(e);
      taken++;
      if (ownBrackets) {
        byte[] own = vectors.lowBitCode(node);
        if (own != null) {
          float upper = ScoreHeap.score(e);
          admit(node, upper - 2 * margin(own, epsilon), upper, k);
        }
        continue;
      }
      byte[] c = vectors.code(node);
      if (c != null) {
        batchNodes[count] = node;
        batchCodes[count] = c;
        if (++count == EXACT_BATCH) {
          bracketBatch(k, count);
          count = 0;
        }
      }
    }
    bracketBatch(k, count);
    ScoreHeap best = results; // drained above
    best.clear();
    touchCandidateFloats();
    int floats = 0;
    for (int i = 0; i < candidateCount; i++) {
      if (candidateUpper[i] < kthLower) {
        continue;
      }
      float[] v = hitVector(candidateNodes[i]);
      floats++;
      if (v != null) {
        best.insertWithOverflow(candidateNodes[i], similarity.exact(query, v), k);
      }
    }
    rescored = floats;
    int n = best.size();
    long[] codes = new long[n];
    for (int i = n - 1; i >= 0; i--) {
      codes[i] = best.pop();
    }
    return bestFirst(codes, n, plan, n, floats);
  }

  /**
   * The upper end's margin above {@code node}'s estimate at confidence {@code epsilon} ({@link
   * CodeQuery#bound}, doubled for a squared distance); 0 when its code vanished.
   */
  private float margin(int node, float epsilon) {
    byte[] c = vectors.lowBitCode(node);
    return c == null ? 0f : margin(c, epsilon);
  }

  /** {@link #margin(int, float)} of a code already in hand. */
  private float margin(byte[] code, float epsilon) {
    return similarity.l2()
        ? codeQuery.squareDistanceBound(code, epsilon)
        : codeQuery.bound(code, epsilon);
  }

  /**
   * Floats the last exact plan rescored (for tests: the codes must spare most of them), or, after a
   * beam over 1-bit codes, the rerank's depth.
   */
  int rescored() {
    return rescored;
  }

  /**
   * Scans every node in the graph that {@code accept} passes, enumerated by {@link
   * AcceptBits#nextAccepted} (a category's bit set skips whole words); the exact top k are left in
   * results.
   *
   * <p>The scan reads each node's int8 code, a quarter of its float vector's bytes, and brackets
   * its score ({@link Int8Codes#errorBound}). A node whose upper end is below the k-th best lower
   * end seen so far cannot be in the top k; the others are rescored by their floats at the end,
   * after the last of them was cut against the final k-th lower end. The top k of the rescored
   * nodes is the top k of the floats: a node of the true top k has its upper end at or above its
   * true score, which is at or above the k-th true score, which is at or above the k-th best lower
   * end. On the Debian corpus (384-d, 100,000 vectors) about 3–5% of a category's vectors were
   * rescored at k 100, and a cold scan cost about 95 ns per vector against 190 ns for the floats
   * (the vectors of a category are scattered, so a scan waits on memory). The brackets: {@link
   * Int8Codes#errorBound} around the codes' dot product for the dot-product similarities, {@link
   * Int8Codes#squareDistanceBracket} for {@code l2_norm}.
   */
  private void exact(float[] query, int k, AcceptBits accept) {
    results.clear();
    exactScanned = 0;
    lowerEnds.clear();
    ensureBatch(EXACT_BATCH);
    bindBrackets(query);
    candidateCount = 0;
    kthLower = Float.NEGATIVE_INFINITY;
    int bound = graph.idUpperBound();
    int count = 0;
    for (int node = accept.nextAccepted(0, bound);
        node >= 0;
        node = node + 1 < bound ? accept.nextAccepted(node + 1, bound) : -1) {
      if (graph.contains(node)) {
        byte[] c = vectors.code(node);
        if (c != null) {
          exactScanned++;
          batchNodes[count] = node;
          batchCodes[count] = c;
          if (++count == EXACT_BATCH) {
            scored += count;
            bracketBatch(k, count);
            count = 0;
          }
        }
      }
    }
    scored += count;
    bracketBatch(k, count);
    count = 0;
    rescored = 0;
    touchCandidateFloats();
    for (int i = 0; i < candidateCount; i++) {
      if (candidateUpper[i] < kthLower) {
        continue;
      }
      float[] v = vectors.row(candidateNodes[i], rowBuffer(count));
      if (v != null) {
        batchNodes[count] = candidateNodes[i];
        batchVectors[count] = v;
        if (++count == EXACT_BATCH) {
          rescored += count;
          exactBatch(query, k, count);
          count = 0;
        }
      }
    }
    rescored += count;
    exactBatch(query, k, count);
  }

  /**
   * Touches the floats ({@link VectorStore#touchFloats}) of the candidates whose upper ends reach
   * the k-th lower end, the ones {@link #exact} and {@link #rerank} rescore next, so that their
   * misses overlap.
   */
  private void touchCandidateFloats() {
    float sum = 0;
    for (int i = 0; i < candidateCount; i++) {
      if (candidateUpper[i] >= kthLower) {
        sum += vectors.touchFloats(candidateNodes[i]);
      }
    }
    touched += sum;
  }

  /**
   * {@link #rowBuffer} for slots {@code [0, n)} at once, for a builder's neighbour selection after
   * this searcher's beam is done with them ({@link NeighborSelection#select}).
   */
  float[][] rowBuffers(int n) {
    for (int i = 0; i < n; i++) {
      rowBuffer(i);
    }
    return rowBuffers;
  }

  /**
   * The buffer a batch copies slot {@code at}'s floats into where the store must copy them ({@link
   * VectorStore#row(int, float[])}), reused across batches instead of a new array per vector read:
   * the exact scan's rescoring reads {@value #EXACT_BATCH} at once, and the inserts of a graph that
   * searches 1-bit or 4-bit codes walk the floats of the mapped file (before, 92% of the bytes such
   * a feed allocated were these copies, JFR, Debian vectors, 4-bit codes). Created on first use, so
   * a store whose rows need no copy still allocates one per slot.
   */
  private float[] rowBuffer(int at) {
    if (at >= rowBuffers.length) {
      rowBuffers = Arrays.copyOf(rowBuffers, Math.max(at + 1, 2 * rowBuffers.length));
    }
    float[] b = rowBuffers[at];
    if (b == null) {
      b = new float[dim];
      rowBuffers[at] = b;
    }
    return b;
  }

  /**
   * Makes {@code query} the one {@link #bracketBatch} brackets int8 codes against: its int8 code
   * (as {@link #bind} would, for any quantization), its L1 norm and rounding residual, its squared
   * and plain norms.
   */
  private void bindBrackets(float[] query) {
    queryScale = Int8Codes.encodeQuery(query, queryCode);
    scanL1 = Int8Codes.l1(query);
    scanResidual = Int8Codes.residual(query, queryCode, queryScale);
    double squares = 0;
    for (float x : query) {
      squares += (double) x * x;
    }
    scanSquares = squares;
    scanNorm = (float) Math.sqrt(squares);
  }

  /**
   * Brackets the raw scores of a batch of codes (lower ends into {@link #batchScores}, upper ends
   * into {@link #batchUpper}, one loop per similarity); keeps as candidates those whose upper end
   * reaches the k-th best lower end so far, which it raises.
   */
  private void bracketBatch(int k, int count) {
    float l1 = scanL1;
    float residual = scanResidual;
    touchCodeLines(count, dim + Int8Codes.TAIL - 1);
    if (similarity.l2()) {
      for (int i = 0; i < count; i++) {
        Int8Codes.squareDistanceBracket(
            queryCode, queryScale, scanSquares, residual, batchCodes[i], bracket);
        batchScores[i] = -bracket[1];
        batchUpper[i] = -bracket[0];
      }
    } else {
      for (int i = 0; i < count; i++) {
        byte[] c = batchCodes[i];
        float approx = Int8Codes.dot(queryCode, queryScale, c);
        float error = Int8Codes.errorBound(c, dim, l1, residual, scanNorm);
        batchScores[i] = approx - error;
        batchUpper[i] = approx + error;
      }
    }
    for (int i = 0; i < count; i++) {
      admit(batchNodes[i], batchScores[i], batchUpper[i], k);
    }
  }

  /**
   * Keeps {@code node}, bracketed by {@code [lower, upper]}, as a candidate for the floats unless
   * its upper end is below the k-th lower end so far, and raises that k-th lower end.
   */
  private void admit(int node, float lower, float upper, int k) {
    if (upper < kthLower) {
      return;
    }
    if (lowerEnds.insertWithOverflow(node, lower, k) && lowerEnds.size() >= k) {
      kthLower = lowerEnds.topScore();
    }
    if (candidateCount == candidateNodes.length) {
      candidateNodes = Arrays.copyOf(candidateNodes, 2 * candidateCount);
      candidateUpper = Arrays.copyOf(candidateUpper, 2 * candidateCount);
    }
    candidateNodes[candidateCount] = node;
    candidateUpper[candidateCount] = upper;
    candidateCount++;
  }

  /**
   * Rescores a batch of the exact scan's candidates by their floats with the batched kernels (not
   * counted in {@link #scored}: the scan counted these nodes once, by their codes), whose loads of
   * several vectors are in flight at once (on the Debian corpus, 100,000 documents, 384-d, a scan
   * of a category's vectors took about 0.7 of the time of one {@link VectorUtil#dotProduct} after
   * another). Their scores can differ from {@link VectorUtil}'s in the last bits, as that class's
   * own do between JIT tiers; {@link #collect} rescores the hits it reports.
   */
  private void exactBatch(float[] query, int k, int count) {
    if (count == 0) {
      return;
    }
    touchFirstLines(count);
    similarity.raw(query, batchVectors, dim, batchScores, count);
    for (int i = 0; i < count; i++) {
      results.insertWithOverflow(batchNodes[i], batchScores[i], k);
    }
  }

  /**
   * Sizes a filter-first search by the filter's hit ratio, as Lucene does: the more restrictive the
   * filter, the more rejected neighbours an expansion may look through (up to {@code M / 2} times a
   * plain expansion), and below a ratio of about {@code 1 / (2M)} an expansion keeps looking until
   * it has found some accepted nodes.
   */
  private void prepareFilterFirst(int acceptedCount) {
    int m = config.m();
    float ratio = Math.max(1, acceptedCount) / (float) Math.max(1, graph.size());
    ratio = Math.min(ratio, 1f);
    exploreMultiplier = Math.max(1, Math.round(Math.min(1 / ratio, m / 2f)));
    minToScore = Math.round(Math.min(Math.max(0, 1 / ratio - 2f * m), m));
    int cap = 2 * m * exploreMultiplier;
    if (toScore.length != cap) {
      toScore = new int[cap];
      toExplore = new int[cap];
    }
  }

  /**
   * The raw score of the bound query with {@code node} (by int8 codes when quantized), NaN when the
   * node's vector is gone.
   */
  private float score(float[] query, int node) {
    if (lowBit) {
      byte[] c = vectors.lowBitCode(node);
      if (c == null) {
        return Float.NaN;
      }
      scored++;
      return similarity.l2() ? -codeQuery.squareDistance(c) : codeQuery.dot(c);
    }
    if (int8) {
      byte[] c = vectors.code(node);
      if (c == null) {
        return Float.NaN;
      }
      scored++;
      return similarity.raw(queryCode, queryScale, querySquares, c);
    }
    float[] v = vectors.row(node, hitVector);
    if (v == null) {
      return Float.NaN;
    }
    scored++;
    return similarity.raw(query, v, dim);
  }

  /**
   * Greedy search from {@code ep} on levels {@code fromLevel} down to {@code toLevel + 1}: at each
   * level, move to the best neighbour until none is better. Returns the closest node found; if the
   * entry vanished it starts over from the current entry point.
   */
  int greedyDescent(float[] query, int ep, int fromLevel, int toLevel) {
    bind(query);
    return descend(query, ep, fromLevel, toLevel);
  }

  /** {@link #greedyDescent} for the bound query. */
  private int descend(float[] query, int ep, int fromLevel, int toLevel) {
    float best = score(query, ep);
    int attempts = 0;
    while (Float.isNaN(best) && attempts++ < 8) {
      long entry = graph.entry();
      ep = HnswAdjacency.entryNode(entry);
      if (ep < 0) {
        return -1;
      }
      fromLevel = Math.min(fromLevel, HnswAdjacency.entryLevel(entry));
      best = score(query, ep);
    }
    int cur = ep;
    for (int level = fromLevel; level > toLevel; level--) {
      boolean changed = true;
      while (changed) {
        changed = false;
        // The whole list in one batch, as the beam scores: its vectors' loads are in flight
        // together instead of one after another. The rule is the same, the best neighbour in list
        // order, but a batch kernel may sum in another order than the one-vector kernel, so a
        // near-tie can go the other way than before (GoldenGraphTest's exact scores cannot tell).
        // On the Debian vectors (62,665, in-JVM paired passes on one graph, an Intel Xeon whose
        // L3 holds them all) searches at ef 16 took 0.78–0.85 of the time of scoring the list one
        // vector at a time, at ef 32–64 0.91, at ef 128 0.96.
        int[] links = graph.links(cur, level);
        int count = gather(links, links.length);
        if (count == 0) {
          continue;
        }
        scoreGathered(query, count);
        for (int i = 0; i < count; i++) {
          float s = batchScores[i];
          if (s > best) {
            best = s;
            cur = batchNodes[i];
            changed = true;
          }
        }
      }
    }
    return cur;
  }

  /**
   * Beam search on {@code level} from {@code eps[0..epCount)} keeping the {@code ef} best accepted
   * nodes in {@link #results()} (a min-heap of raw scores). With {@code filterFirst}, only accepted
   * nodes are scored and a rejected neighbour is looked through to its own neighbours (ACORN-1's
   * two-hop expansion), so the beam stays on accepted nodes at low hit ratios. Gives up once it has
   * scored more than {@code visitLimit} vectors and returns false (the results are then
   * incomplete); inserts pass {@link Integer#MAX_VALUE}.
   */
  boolean searchLevel(
      float[] query,
      int[] eps,
      int epCount,
      int ef,
      int level,
      AcceptBits accept,
      boolean filterFirst,
      int visitLimit) {
    bind(query);
    return beam(query, eps, epCount, ef, level, accept, filterFirst, visitLimit);
  }

  /** {@link #searchLevel} for the bound query. */
  private boolean beam(
      float[] query,
      int[] eps,
      int epCount,
      int ef,
      int level,
      AcceptBits accept,
      boolean filterFirst,
      int visitLimit) {
    if (accept == AcceptBits.ALL && !filterFirst && sortedBeam) {
      return sortedBeam(query, eps, epCount, ef, level, visitLimit);
    }
    results.clear();
    candidates.clear();
    visited.reset(graph.capacity());
    boolean all = accept == AcceptBits.ALL;
    for (int i = 0; i < epCount; i++) {
      int ep = eps[i];
      float s = scoreEntry(query, ep);
      if (Float.isNaN(s)) {
        continue;
      }
      candidates.push(ep, s);
      if (all || accept.accept(ep)) {
        results.insertWithOverflow(ep, s, ef);
      }
    }
    float floor = results.size() >= ef ? results.topScore() : Float.NEGATIVE_INFINITY;
    boolean inlineRows = inline != null && level == 0 && !filterFirst;
    while (candidates.size() > 0) {
      if (scored > visitLimit) {
        return false;
      }
      long top = candidates.pop();
      if (ScoreHeap.score(top) < floor) {
        break;
      }
      int count;
      if (inlineRows) {
        // Every neighbour estimated from the node's row (InlineCodeRows), then the unvisited ones
        // marked and counted as the gather below marks and counts them: the visit limit, which
        // decides when a filtered search turns exact, then counts what it counts without rows.
        count = estimateRow(ScoreHeap.node(top));
        for (int j = 0; j < count; j++) {
          int n = inline.link(rowPage, rowAt, j);
          if (!visited.visit(n)) {
            continue;
          }
          scored++;
          float s = rowScores[j];
          if (!(s > floor)) {
            continue;
          }
          candidates.push(n, s);
          if (all || accept.accept(n)) {
            if (results.insertWithOverflow(n, s, ef) && results.size() >= ef) {
              floor = results.topScore();
            }
          }
        }
        continue;
      } else if (rows != null && level == 0 && !filterFirst) {
        // Level 0's links from the node's row, behind the vector this search scored when it
        // found the node (RowFloatSlots); a row gone means the node was removed meanwhile.
        float[] row = rows.row(ScoreHeap.node(top));
        if (candidates.size() > 0) {
          // The next candidate is most often the one popped after this expansion: start the load
          // of its links now, so that they arrive while this batch is scored.
          float[] next = rows.row(candidates.topNode());
          if (next != null) {
            touched += next[dim];
          }
        }
        count = row == null ? 0 : gatherRow(row);
      } else if (codeRows != null && level == 0 && !filterFirst) {
        // The same from the node's int8 code row (RowCodes).
        byte[] row = codeRows.row(ScoreHeap.node(top));
        if (candidates.size() > 0) {
          touchLinkLines(codeRows.row(candidates.topNode()));
        }
        count = row == null ? 0 : gatherCodeRow(row);
      } else {
        int[] links = graph.links(ScoreHeap.node(top), level);
        if (candidates.size() > 0) {
          int[] next = graph.links(candidates.topNode(), level);
          if (next.length > 0) {
            touched += next[0];
          }
        }
        if (filterFirst) {
          floor = expandFilterFirst(query, links, ef, level, accept, floor);
          continue;
        }
        // Gather the unvisited neighbours first, then score them in one tight loop: the loads of
        // consecutive vectors overlap instead of waiting behind the visited-set and heap work.
        count = gather(links);
      }
      scoreGathered(query, count);
      for (int i = 0; i < count; i++) {
        float s = batchScores[i];
        if (!(s > floor)) {
          continue;
        }
        int n = batchNodes[i];
        candidates.push(n, s);
        if (all || accept.accept(n)) {
          if (results.insertWithOverflow(n, s, ef) && results.size() >= ef) {
            floor = results.topScore();
          }
        }
      }
    }
    return true;
  }

  /**
   * Estimates every level-0 neighbour of {@code node} from its row ({@link InlineCodeRows}) into
   * {@link #rowScores}, leaves the row's page and offset in {@link #rowPage} and {@link #rowAt} for
   * its links, and returns how many there are: none when the row is not there yet (a node added
   * since this reader's page) or empty (removed, or not linked yet). The estimates are those {@link
   * #scoreBatch} computes from the neighbours' own codes; the caller counts them in {@link
   * #scored}.
   */
  private int estimateRow(int node) {
    long[] page = inline.page(node);
    int at = inline.at(node);
    if (page == null || at + inline.stride() > page.length) {
      return 0;
    }
    rowPage = page;
    rowAt = at;
    int count = inline.count(page, at);
    if (count > 0) {
      inline.estimate(page, at, count, (BinaryCodes.Query) codeQuery, rowScores);
    }
    return count;
  }

  /**
   * An entry point's score, marking it visited; NaN when it is none (negative), was visited
   * already, or lost its vector.
   */
  private float scoreEntry(float[] query, int ep) {
    return ep < 0 || !visited.visit(ep) ? Float.NaN : score(query, ep);
  }

  /**
   * {@link #beam} without a filter, on one sorted array ({@link BeamPool}) in place of the two
   * heaps: the same nodes expanded in the same order, so the same results, with less bookkeeping
   * per scored neighbour. On the Debian vectors (62,665, M 16, efConstruction 200, one thread) a
   * build took 0.955× the time of one on the heaps, the median of 12 paired builds in one JVM
   * (2026-12-02). Leaves its entries in {@link #results()} in ascending order, which is a valid
   * heap and lets {@link ScoreHeap#drainBestFirst} and {@link ScoreHeap#keepBest} skip the sifts.
   */
  private boolean sortedBeam(
      float[] query, int[] eps, int epCount, int ef, int level, int visitLimit) {
    BeamPool pool = this.pool;
    pool.reset(ef);
    visited.reset(graph.capacity());
    for (int i = 0; i < epCount; i++) {
      float s = scoreEntry(query, eps[i]);
      if (!Float.isNaN(s)) {
        pool.offer(eps[i], s);
      }
    }
    boolean done = true;
    boolean fromRows = rows != null && level == 0;
    boolean fromCodeRows = codeRows != null && level == 0;
    boolean inlineRows = inline != null && level == 0;
    while (pool.hasNext()) {
      if (scored > visitLimit) {
        done = false;
        break;
      }
      int node = pool.next();
      if (inlineRows) {
        // Every neighbour estimated from the node's row (InlineCodeRows); one is marked visited
        // only when it first passes the floor, which only rises, so the same ones enter as when
        // all are marked before they are scored, and the visited set is not read for the others.
        // Each estimate counts as a scored node, those of neighbours estimated again included.
        int count = estimateRow(node);
        scored += count;
        for (int j = 0; j < count; j++) {
          float s = rowScores[j];
          if (pool.below(s)) {
            continue;
          }
          int n = inline.link(rowPage, rowAt, j);
          if (visited.visit(n)) {
            pool.offer(n, s);
          }
        }
        continue;
      }
      int next = pool.peekNode();
      int count;
      if (fromRows) {
        float[] row = rows.row(node);
        if (next >= 0) {
          float[] n = rows.row(next);
          if (n != null) {
            touched += n[dim];
          }
        }
        count = row == null ? 0 : gatherRow(row);
      } else if (fromCodeRows) {
        byte[] row = codeRows.row(node);
        if (next >= 0) {
          touchLinkLines(codeRows.row(next));
        }
        count = row == null ? 0 : gatherCodeRow(row);
      } else {
        int[] links = graph.links(node, level);
        if (next >= 0) {
          int[] n = graph.links(next, level);
          if (n.length > 0) {
            touched += n[0];
          }
        }
        count = gather(links);
      }
      scoreGathered(query, count);
      for (int i = 0; i < count; i++) {
        float s = batchScores[i];
        if (!pool.below(s)) {
          pool.offer(batchNodes[i], s);
        }
      }
    }
    results.clear();
    for (int i = pool.size() - 1; i >= 0; i--) { // worst first: each push stays at the bottom
      long e = pool.get(i);
      results.push(BeamPool.node(e), BeamPool.score(e));
    }
    return done;
  }

  /**
   * Loads the first element of every float vector of the batch before the scoring pass. Java has no
   * prefetch instruction (hnswlib prefetches the next neighbour's vector); these loads do not
   * depend on one another, so the cache misses of all the batch's first lines are in flight
   * together and the batched kernels start on lines that are already arriving. On 100,000 synthetic
   * 384-d vectors (150 MB, far beyond the cache), this and the touch of the next candidate's links
   * in {@link #beam} made a search at ef 192 about 6–10% faster in paired passes on one graph; on
   * the Debian vectors it was within the noise.
   *
   * <p>It must stay a loop of its own, after {@link #gather(int[])}. Loading each first element
   * inside the gather loop, as soon as the vector is known, made searches at ef 384 and 512 about
   * 27% slower (11 paired passes): with the visited-set branches and table loads of the gather in
   * between, fewer misses fit in the processor's reorder window at once. Splitting the gather
   * itself (visited ids first, then their vectors), touching a second line of each vector, or
   * dropping the touch of the next candidate's links gained nothing (0.95–1.01×).
   */
  private void touchFirstLines(int count) {
    float sum = 0;
    for (int i = 0; i < count; i++) {
      sum += batchVectors[i][0];
    }
    touched += sum;
  }

  /**
   * Scores the {@code count} gathered batch entries into {@link #batchScores} and counts them in
   * {@link #scored}: the first lines of their float vectors touched first ({@link
   * #touchFirstLines}), then the batched kernels, or the int8 codes.
   */
  private void scoreGathered(float[] query, int count) {
    scored += count;
    if (int8 || lowBit) {
      touchCodeLines(count, codeLast);
    } else {
      touchFirstLines(count);
    }
    scoreBatch(query, count);
  }

  /**
   * Loads every cache line of {@code row}'s links (its count and up to the reserved capacity of
   * ids, {@link RowCodes}), for the candidate most likely to be expanded next: its code's lines
   * came into the cache when it was scored, but the links behind the code did not.
   */
  private void touchLinkLines(byte[] row) {
    if (row == null) {
      return;
    }
    touched += lines(row, codeRows.countOffset(), row.length - 1);
  }

  /**
   * The sum of {@code a[from]}, every 64th byte after it below {@code last}, and {@code a[last]}:
   * one load on each cache line of {@code a[from..last]}, whose value means nothing.
   */
  private static int lines(byte[] a, int from, int last) {
    int sum = a[last];
    for (int at = from; at < last; at += 64) {
      sum += a[at];
    }
    return sum;
  }

  /**
   * {@link #touchFirstLines} for the batch's codes, every line of each up to byte {@code last}:
   * every 64th byte and the last. The exact scan's int8 codes: one code after another waited on
   * each line in turn (about 290 ns per code cold, against 95 ns with the lines touched first). The
   * beam's codes alike: a 1-bit code and its factors (64 bytes at 384 dimensions, after a 16-byte
   * array header) always span two cache lines, a 4-bit code (208 bytes) four or five, an int8 code
   * and its tail (392 bytes) seven; touching them all before the kernels lets their misses overlap
   * instead of each code's later lines stalling its kernel. For int8 codes this replaced a touch of
   * the first line alone: under 16 clients on an int8 server over the Debian vectors (JFR) the
   * kernel then spent 24% of the server's CPU waiting on those lines, against 4% for its arithmetic
   * after the change, and the server's CPU per query fell from 163–170 µs to 130–155 (three
   * alternating 20-second loads beside a server of the previous build).
   */
  private void touchCodeLines(int count, int last) {
    int sum = 0;
    for (int i = 0; i < count; i++) {
      sum += lines(batchCodes[i], 0, last);
    }
    touched += sum;
  }

  /**
   * {@code batchScores[i]} = the bound query's raw score with batch entry {@code i}: the kernels of
   * the similarity, chosen once for the batch ({@link GraphSimilarity}).
   */
  private void scoreBatch(float[] query, int count) {
    if (lowBit) {
      CodeQuery q = codeQuery;
      if (similarity.l2()) {
        for (int i = 0; i < count; i++) {
          batchScores[i] = -q.squareDistance(batchCodes[i]);
        }
      } else {
        for (int i = 0; i < count; i++) {
          batchScores[i] = q.dot(batchCodes[i]);
        }
      }
    } else if (int8) {
      similarity.raw(
          queryCode, queryScale, querySquares, batchCodes, batchInts, batchScores, count);
    } else {
      similarity.raw(query, batchVectors, dim, batchScores, count);
    }
  }

  /**
   * Collects the first {@code count} of {@code nodes} that still have a vector, without marking
   * them visited (the caller has, or does not track visits).
   */
  private int gather(int[] nodes, int count) {
    ensureBatch(count);
    int out = 0;
    for (int i = 0; i < count; i++) {
      if (take(nodes[i], out)) {
        out++;
      }
    }
    return out;
  }

  private void ensureBatch(int n) {
    if (batchNodes.length < n) {
      batchNodes = new int[n];
      batchScores = new float[n];
      batchVectors = new float[n][];
      batchCodes = new byte[n][];
      batchInts = new int[n];
    }
  }

  /** Collects the unvisited neighbours that still have a vector into the batch arrays. */
  private int gather(int[] links) {
    ensureBatch(links.length);
    int count = 0;
    for (int n : links) {
      if (visited.visit(n) && take(n, count)) {
        count++;
      }
    }
    return count;
  }

  /** {@link #gather(int[])} for the links mirrored in a node's {@code row}. */
  private int gatherRow(float[] row) {
    int n = rows.linkCount(row);
    ensureBatch(n);
    int count = 0;
    for (int j = 0; j < n; j++) {
      int node = rows.link(row, j);
      if (visited.visit(node) && take(node, count)) {
        count++;
      }
    }
    return count;
  }

  /** {@link #gather(int[])} for the links mirrored in a node's int8 code {@code row}. */
  private int gatherCodeRow(byte[] row) {
    RowCodes r = codeRows;
    int n = r.linkCount(row);
    ensureBatch(n);
    int count = 0;
    for (int j = 0; j < n; j++) {
      int node = r.link(row, j);
      if (visited.visit(node) && take(node, count)) {
        count++;
      }
    }
    return count;
  }

  /**
   * Puts {@code node} and what the beam scores it by (code or float vector) at batch position
   * {@code at}; false when the node vanished under us.
   */
  private boolean take(int node, int at) {
    if (lowBit) {
      byte[] c = vectors.lowBitCode(node);
      if (c == null) {
        return false;
      }
      batchCodes[at] = c;
    } else if (int8) {
      byte[] c = vectors.code(node);
      if (c == null) {
        return false;
      }
      batchCodes[at] = c;
    } else {
      float[] v = rows != null ? rows.row(node) : vectors.row(node, rowBuffer(at));
      if (v == null) {
        return false;
      }
      batchVectors[at] = v;
    }
    batchNodes[at] = node;
    return true;
  }

  /**
   * One filter-first expansion, as Lucene's {@code FilteredHnswGraphSearcher} adapts ACORN-1: the
   * unvisited neighbours are split into accepted (to score) and rejected (to look through); when
   * more than a tenth are rejected, the rejected ones' own neighbours are examined too, until about
   * as many accepted nodes are found as an unfiltered expansion would score ({@code neighbours ×
   * min(multiplier, 1 / (1 − rejected share))}). Only accepted nodes are ever scored, and only they
   * enter the candidate queue, so the beam walks the filter's sub-graph.
   */
  private float expandFilterFirst(
      float[] query, int[] links, int ef, int level, AcceptBits accept, float floor) {
    int neighbours = links.length;
    if (neighbours == 0) {
      return floor;
    }
    int cap = toScore.length;
    int scoreCount = 0;
    int exploreCount = 0;
    for (int n : links) {
      if (scoreCount == cap || exploreCount == cap) {
        break;
      }
      if (!visited.visit(n)) {
        continue;
      }
      if (accept.accept(n)) {
        toScore[scoreCount++] = n;
      } else {
        toExplore[exploreCount++] = n;
      }
    }
    float rejected = exploreCount / (float) neighbours;
    int maxToScore =
        (int) Math.min(cap, neighbours * Math.min(exploreMultiplier, 1f / (1f - rejected)));
    int explored = scoreCount + exploreCount;
    if (scoreCount < maxToScore && rejected > EXPANDED_EXPLORATION_SHARE) {
      for (int head = 0;
          head < exploreCount && explored < cap - 1 && scoreCount < maxToScore;
          head++) {
        for (int n2 : graph.links(toExplore[head], level)) {
          if (scoreCount >= maxToScore) {
            break;
          }
          if (!visited.visit(n2)) {
            continue;
          }
          explored++;
          if (accept.accept(n2)) {
            toScore[scoreCount++] = n2;
          } else if (explored < cap - 1 && scoreCount < minToScore && exploreCount < cap) {
            toExplore[exploreCount++] = n2;
          }
        }
      }
    }
    int count = gather(toScore, scoreCount);
    scored += count;
    scoreBatch(query, count);
    for (int i = 0; i < count; i++) {
      float s = batchScores[i];
      if (s > floor) {
        int n = batchNodes[i];
        candidates.push(n, s);
        if (results.insertWithOverflow(n, s, ef) && results.size() >= ef) {
          floor = results.topScore();
        }
      }
    }
    return floor;
  }
}
