package org.searchlab.bench.hnsw;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.apache.lucene.util.VectorUtil;
import org.searchlab.core.mapping.VectorSimilarity;
import org.searchlab.mutable.hnsw.BeamPool;
import org.searchlab.mutable.hnsw.BinaryCodes;
import org.searchlab.mutable.hnsw.MutableHnswGraph;
import org.searchlab.mutable.hnsw.Rotation;
import org.searchlab.mutable.hnsw.VisitedSet;

/**
 * A read-only copy of a {@link MutableHnswGraph}'s bottom level where each node's row holds the
 * 1-bit codes ({@link BinaryCodes}) of its neighbours, searched on those codes and reranked by the
 * floats, to measure what that layout would buy before the store is rebuilt around it ({@code
 * hnsw-bench --impl mutable-inline}). SymphonyQG (Gou et al., SIGMOD 2025) keeps RaBitQ codes of a
 * node's neighbours inline this way. The server never uses it.
 *
 * <p>Why: a beam search spends most of a visited node's time reaching it, not scoring it (a profile
 * of the store's 1-bit search on the Debian vectors: the loads of each neighbour's row reference
 * and code lines about a third, the popcounts a sixth). Here an expansion reads one contiguous row,
 * which the hardware prefetcher streams, and scores all its neighbours from it before it looks at
 * the visited set, which it consults only for those that beat the beam's floor.
 *
 * <p>Layout: one {@code long[]} holds a row per node at a fixed stride, a multiple of 64 bytes, the
 * first row on a cache line (a humongous array's data starts 16 bytes into the object, and the rows
 * {@value #BASE} longs in). A row is the neighbours' code words transposed, {@code W = ⌈D/64⌉}
 * groups of {@code S} longs (group {@code w}, slot {@code j}: word {@code w} of neighbour {@code
 * j}'s bits), so eight neighbours' word {@code w} are one 512-bit load; then each slot's factor
 * {@code f} and {@code 2|b| − D} as floats, two to a long; then the link count and the links as
 * ints, two to a long. {@code S} is {@code 2M} rounded up to a multiple of eight. At D = 384 and M
 * 16 a row is 248 longs, 1,984 bytes: 1.3× the node's floats, where the store's own 1-bit rows are
 * 64 bytes of code plus the links. It is the speed of that trade this copy measures.
 *
 * <p>Search: greedy descent over the upper levels by the nodes' own codes (the graph's lists), then
 * a beam on the bottom level in one sorted array ({@link BeamPool}, the store's unfiltered beam)
 * whose expansions estimate every neighbour from the row, eight at a time with bit-count lanes,
 * then the rerank of the store's 1-bit search: the beam's nodes in descending order of the upper
 * end of their estimate, each rescored by its float, until at least {@code minDepth} are rescored
 * and the next upper end is below the k-th float score found. The same estimates, beam and rerank
 * as the store's 1-bit search, so on one graph the two find the same hits
 * (InlineCodesLevelZeroTest). Dot product only (the Debian and synthetic vectors are unit length).
 *
 * <p>Tried and dropped, each within the noise of paired runs on the Debian vectors (ef 64–128,
 * 2026-12-06): loading a line of each of the next candidate's row lines before an expansion (the
 * whole row, or only the lines of its links: 18.9 of 32 slots are used on average), expanding the
 * two best candidates together so that their rows' misses overlap, and loading the first lines of
 * the rerank's floats before scoring them. A rerank confidence of 1.0 instead of 1.9 read 44 floats
 * instead of 56 at ef 64 but lost recall (0.943 against 0.950) for the same QPS.
 *
 * <p>Thread-safety: searches from one thread at a time; the rows are never written after the copy.
 */
final class InlineCodesLevelZero {
  private static final VectorSpecies<Long> LONGS = LongVector.SPECIES_512;
  private static final VectorSpecies<Long> HALF_LONGS = LongVector.SPECIES_256;
  private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_256;
  private static final int LANES = 8;

  /** Longs before the first row, so that rows start on a 64-byte boundary (see above). */
  private static final int BASE = 6;

  private final MutableHnswGraph graph;
  private final float[][] vectors;
  private final int size;
  private final int dimension;
  private final int words;
  private final int slots;
  private final int factorsAt;
  private final int linksAt;
  private final int stride;
  private final long[] rows;
  // Each node's own code, for the entry of the bottom level and the rerank's bounds.
  private final long[] ownBits;
  private final float[] ownF;
  private final float[] ownT;
  private final float[] ownG;
  private final BinaryCodes.Query query;
  private final float epsilon;
  private final int minDepth;

  private final long[] planes;
  private final float[] estimates;
  private final VisitedSet visited = new VisitedSet();
  private final BeamPool pool = new BeamPool();
  private final LevelZeroCopies.Best results = new LevelZeroCopies.Best();
  private long scored;
  private long rescored;

  private InlineCodesLevelZero(
      MutableHnswGraph graph, float[][] vectors, int m, float epsilon, int minDepth) {
    if (graph.config().similarity() != VectorSimilarity.DOT_PRODUCT) {
      throw new IllegalArgumentException(
          "the inline copy estimates dot products only, not " + graph.config().similarity());
    }
    this.graph = graph;
    this.vectors = vectors;
    this.size = vectors.length;
    this.dimension = vectors[0].length;
    this.words = BinaryCodes.words(dimension);
    this.slots = roundUp(2 * m, LANES);
    this.factorsAt = words * slots;
    this.linksAt = factorsAt + slots; // two float arrays of `slots`, two to a long
    this.stride = roundUp(linksAt + (1 + slots + 1) / 2, 8);
    this.epsilon = epsilon;
    this.minDepth = minDepth;
    if ((long) size * stride + BASE > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException(size + " rows of " + stride + " longs do not fit");
    }
    Rotation rotation = new Rotation(dimension);
    this.query = new BinaryCodes.Query(rotation);
    this.ownBits = new long[size * words];
    this.ownF = new float[size];
    this.ownT = new float[size];
    this.ownG = new float[size];
    for (int node = 0; node < size; node++) {
      byte[] c = BinaryCodes.encode(rotation, vectors[node]);
      for (int w = 0; w < words; w++) {
        ownBits[node * words + w] = BinaryCodes.word(c, w);
      }
      ownF[node] = BinaryCodes.factor(c, dimension);
      ownT[node] = 2 * BinaryCodes.ones(c, dimension) - dimension;
      ownG[node] = BinaryCodes.errorFactor(c, dimension);
    }
    this.rows = new long[BASE + size * stride];
    for (int node = 0; node < size; node++) {
      int[] links = graph.neighbors(node, 0);
      if (links.length > slots) {
        throw new IllegalStateException(
            "node " + node + " has " + links.length + " links, more than " + slots);
      }
      int at = row(node);
      for (int j = 0; j < links.length; j++) {
        int n = links[j];
        for (int w = 0; w < words; w++) {
          rows[at + w * slots + j] = ownBits[n * words + w];
        }
        setFloat(at + factorsAt, j, ownF[n]);
        setFloat(at + factorsAt + slots / 2, j, ownT[n]);
      }
      setInt(at + linksAt, 0, links.length);
      for (int j = 0; j < links.length; j++) {
        setInt(at + linksAt, j + 1, links[j]);
      }
    }
    this.planes = new long[BinaryCodes.QUERY_BITS * words];
    this.estimates = new float[slots];
  }

  /**
   * Copies {@code graph}, built with {@code m} from {@code vectors} (node i = vectors[i]), rerank
   * at confidence {@code epsilon} to at least {@code minDepth} floats.
   */
  static InlineCodesLevelZero copy(
      MutableHnswGraph graph, float[][] vectors, int m, float epsilon, int minDepth) {
    return new InlineCodesLevelZero(graph, vectors, m, epsilon, minDepth);
  }

  private static int roundUp(int n, int multiple) {
    return (n + multiple - 1) / multiple * multiple;
  }

  private int row(int node) {
    return BASE + node * stride;
  }

  private void setFloat(int at, int i, float value) {
    int shift = (i & 1) << 5;
    long bits = Float.floatToRawIntBits(value) & 0xFFFFFFFFL;
    rows[at + (i >>> 1)] = rows[at + (i >>> 1)] & ~(0xFFFFFFFFL << shift) | bits << shift;
  }

  private void setInt(int at, int i, int value) {
    int shift = (i & 1) << 5;
    rows[at + (i >>> 1)] =
        rows[at + (i >>> 1)] & ~(0xFFFFFFFFL << shift) | (value & 0xFFFFFFFFL) << shift;
  }

  private int getInt(int at, int i) {
    return (int) (rows[at + (i >>> 1)] >>> ((i & 1) << 5));
  }

  /** Estimates the last search computed. */
  long scored() {
    return scored;
  }

  /** Floats the last search's rerank read. */
  long rescored() {
    return rescored;
  }

  /** The {@code k} nearest nodes found with beam {@code max(k, ef)}, best first. */
  int[] search(float[] q, int k, int ef) {
    scored = 0;
    int beam = Math.max(k, ef);
    int entry = graph.entryNode();
    if (entry < 0) {
      return new int[0];
    }
    query.bind(q);
    for (int j = 0; j < BinaryCodes.QUERY_BITS; j++) {
      for (int w = 0; w < words; w++) {
        planes[j * words + w] = query.plane(j, w);
      }
    }
    float twoDelta = 2 * query.delta();
    float lo = query.lo();
    float offset = -query.delta() * query.sum();
    int cur = descend(entry, graph.level(entry));
    visited.reset(size);
    BeamPool pool = this.pool;
    pool.reset(beam);
    visited.visit(cur);
    pool.offer(cur, ownEstimate(cur));
    scored++;
    while (pool.hasNext()) {
      expand(pool, row(pool.next()), twoDelta, lo, offset);
    }
    return rerank(q, k);
  }

  /**
   * The estimates of {@code q} with {@code node}'s bottom-level neighbours as an expansion computes
   * them from the row, in link order, and those links (for tests).
   */
  float[] neighbourEstimates(float[] q, int node, int[] links) {
    query.bind(q);
    for (int j = 0; j < BinaryCodes.QUERY_BITS; j++) {
      for (int w = 0; w < words; w++) {
        planes[j * words + w] = query.plane(j, w);
      }
    }
    int at = row(node);
    int count = getInt(at + linksAt, 0);
    estimate(at, count, 2 * query.delta(), query.lo(), -query.delta() * query.sum());
    for (int j = 0; j < count; j++) {
      links[j] = getInt(at + linksAt, j + 1);
    }
    return Arrays.copyOf(estimates, count);
  }

  /**
   * Estimates every neighbour in the row at {@code at} and offers those that enter the beam and
   * were not visited: a neighbour is marked visited only when it enters, so one that fell below the
   * floor is estimated again if another row holds it (an estimate from the row costs less than a
   * lookup in the visited set first, as SymphonyQG argues).
   */
  private void expand(BeamPool pool, int at, float twoDelta, float lo, float offset) {
    int count = getInt(at + linksAt, 0);
    estimate(at, count, twoDelta, lo, offset);
    scored += count;
    for (int j = 0; j < count; j++) {
      float s = estimates[j];
      if (pool.below(s)) {
        continue;
      }
      int n = getInt(at + linksAt, j + 1);
      if (visited.visit(n)) {
        pool.offer(n, s);
      }
    }
  }

  /** {@code estimates[j]} for the first {@code count} slots of the row at {@code at}. */
  private void estimate(int at, int count, float twoDelta, float lo, float offset) {
    int w4 = words;
    for (int c = 0; c < count; c += LANES) {
      LongVector a0 = LongVector.zero(LONGS);
      LongVector a1 = a0;
      LongVector a2 = a0;
      LongVector a3 = a0;
      for (int w = 0; w < w4; w++) {
        LongVector b = LongVector.fromArray(LONGS, rows, at + w * slots + c);
        a0 = a0.add(b.and(planes[w]).lanewise(VectorOperators.BIT_COUNT));
        a1 = a1.add(b.and(planes[w4 + w]).lanewise(VectorOperators.BIT_COUNT));
        a2 = a2.add(b.and(planes[2 * w4 + w]).lanewise(VectorOperators.BIT_COUNT));
        a3 = a3.add(b.and(planes[3 * w4 + w]).lanewise(VectorOperators.BIT_COUNT));
      }
      LongVector bu =
          a0.add(a1.lanewise(VectorOperators.LSHL, 1))
              .add(a2.lanewise(VectorOperators.LSHL, 2))
              .add(a3.lanewise(VectorOperators.LSHL, 3));
      FloatVector u = (FloatVector) bu.convertShape(VectorOperators.L2F, FLOATS, 0);
      FloatVector f =
          LongVector.fromArray(HALF_LONGS, rows, at + factorsAt + (c >>> 1)).reinterpretAsFloats();
      FloatVector t =
          LongVector.fromArray(HALF_LONGS, rows, at + factorsAt + slots / 2 + (c >>> 1))
              .reinterpretAsFloats();
      u.mul(twoDelta).add(t.fma(lo, offset)).mul(f).intoArray(estimates, c);
    }
  }

  private float ownEstimate(int node) {
    int bu = 0;
    for (int j = 0; j < BinaryCodes.QUERY_BITS; j++) {
      int p = 0;
      for (int w = 0; w < words; w++) {
        p += Long.bitCount(ownBits[node * words + w] & planes[j * words + w]);
      }
      bu += p << j;
    }
    return query.estimate(bu, ownF[node], ownT[node]);
  }

  /** Greedy descent over the upper levels by the nodes' own codes. */
  private int descend(int entry, int fromLevel) {
    int cur = entry;
    float best = ownEstimate(cur);
    scored++;
    for (int level = fromLevel; level > 0; level--) {
      boolean changed = true;
      while (changed) {
        changed = false;
        for (int n : graph.neighbors(cur, level)) {
          float s = ownEstimate(n);
          scored++;
          if (s > best) {
            best = s;
            cur = n;
            changed = true;
          }
        }
      }
    }
    return cur;
  }

  /** The rerank of the store's 1-bit search (see the class comment), best first. */
  private int[] rerank(float[] q, int k) {
    int all = pool.size();
    long[] order = new long[all];
    for (int i = 0; i < all; i++) {
      long e = pool.get(i);
      int node = BeamPool.node(e);
      float bound = query.bound(ownF[node], ownG[node], epsilon);
      order[i] = LevelZeroCopies.encode(node, BeamPool.score(e) + bound);
    }
    Arrays.sort(order); // ascending upper ends: the best last
    results.clear();
    int depth = 0;
    for (int i = all - 1; i >= 0; i--) {
      long e = order[i];
      if (depth >= minDepth
          && results.size() >= k
          && LevelZeroCopies.score(e) < LevelZeroCopies.score(results.worst())) {
        break;
      }
      int node = LevelZeroCopies.node(e);
      depth++;
      results.offer(node, VectorUtil.dotProduct(q, vectors[node]), k);
    }
    rescored = depth;
    long[] best = results.bestFirst();
    int[] nodes = new int[best.length];
    for (int i = 0; i < nodes.length; i++) {
      nodes[i] = LevelZeroCopies.node(best[i]);
    }
    return nodes;
  }
}
