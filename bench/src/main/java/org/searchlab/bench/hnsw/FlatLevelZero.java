package org.searchlab.bench.hnsw;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.searchlab.mutable.hnsw.MutableHnswGraph;
import org.searchlab.mutable.hnsw.VisitedSet;

/**
 * A read-only copy of a {@link MutableHnswGraph}'s bottom level in hnswlib's memory layout,
 * searched with the mutable graph's own algorithm, to measure what that layout would buy before the
 * store is rebuilt around it ({@code hnsw-bench --impl mutable-flat}). The server never uses it.
 *
 * <p>Layout: one {@code float[]} holds a row per node at a fixed stride. A row is a header of
 * {@code 1 + 2M} ints (the link count, then the bottom-level links, as raw float bits) padded to a
 * multiple of 16 floats, then the vector padded the same way; so one expansion reads a node's links
 * from the row whose vector it has just scored, as hnswlib's {@code data_level0_memory_} does,
 * instead of a separate {@code int[]} per list and a {@code float[]} per vector reached through a
 * table. Rows are a multiple of 64 bytes, and the first starts 12 floats in: a humongous array (G1
 * allocates one this large at the start of a region) has its data 16 bytes into the object, so
 * every row then starts on a cache line.
 *
 * <p>The upper levels stay in the graph ({@link MutableHnswGraph#neighbors}); their vectors are
 * read from the rows. Search is the mutable graph's: greedy descent, then a beam over the bottom
 * level whose unvisited neighbours are gathered, their first lines touched, and scored eight, four,
 * then one at a time, the k best rescored at the end. What differs is only where the bytes are.
 *
 * <p>Thread-safety: searches from one thread at a time; the rows are never written after the copy.
 */
final class FlatLevelZero {
  private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_256;

  /** Floats before the first row, so that rows start on a 64-byte boundary (see above). */
  private static final int BASE = 12;

  private final MutableHnswGraph graph;
  private final float[] rows;
  private final int dimension;
  private final int header;
  private final int stride;
  private final int size;

  private final VisitedSet visited = new VisitedSet();
  private long[] candidates = new long[256]; // min-heap of ~code: the best candidate on top
  private int candidateCount;
  private final LevelZeroCopies.Best results = new LevelZeroCopies.Best();
  // One expansion's neighbours: at most 2M on the bottom level, M above it.
  private final int[] batchNodes;
  private final int[] batchRows;
  private final float[] batchScores;
  private long scored;
  private float touched;

  private FlatLevelZero(MutableHnswGraph graph, float[][] vectors, int m) {
    this.graph = graph;
    this.size = vectors.length;
    this.dimension = vectors[0].length;
    this.header = roundUp(1 + 2 * m, 16);
    this.stride = header + roundUp(dimension, 16);
    if ((long) size * stride + BASE > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException(
          size + " vectors of " + dimension + " floats do not fit one array of rows");
    }
    this.rows = new float[BASE + size * stride];
    for (int node = 0; node < size; node++) {
      int[] links = graph.neighbors(node, 0);
      if (links.length > header - 1) {
        throw new IllegalStateException(
            "node " + node + " has " + links.length + " links, more than " + (header - 1));
      }
      int at = row(node);
      rows[at] = Float.intBitsToFloat(links.length);
      for (int j = 0; j < links.length; j++) {
        rows[at + 1 + j] = Float.intBitsToFloat(links[j]);
      }
      System.arraycopy(vectors[node], 0, rows, at + header, dimension);
    }
    this.batchNodes = new int[header];
    this.batchRows = new int[header];
    this.batchScores = new float[header];
  }

  /** Copies {@code graph}, built with {@code m} from {@code vectors} (node i = vectors[i]). */
  static FlatLevelZero copy(MutableHnswGraph graph, float[][] vectors, int m) {
    return new FlatLevelZero(graph, vectors, m);
  }

  private static int roundUp(int n, int multiple) {
    return (n + multiple - 1) / multiple * multiple;
  }

  private int row(int node) {
    return BASE + node * stride;
  }

  /** Nodes whose distance the last search computed. */
  long scored() {
    return scored;
  }

  /** The {@code k} nearest nodes found with beam {@code max(k, ef)}, best first. */
  int[] search(float[] query, int k, int ef) {
    scored = 0;
    int beam = Math.max(k, ef);
    int entry = graph.entryNode();
    if (entry < 0) {
      return new int[0];
    }
    int cur = descend(query, entry, graph.level(entry));
    visited.reset(size);
    candidateCount = 0;
    results.clear();
    visited.visit(cur);
    float first = dot1(query, row(cur) + header);
    scored++;
    pushCandidate(cur, first);
    results.offer(cur, first, beam);
    float floor = Float.NEGATIVE_INFINITY;
    while (candidateCount > 0) {
      long top = ~popCandidate();
      if (LevelZeroCopies.score(top) < floor) {
        break;
      }
      int at = row((int) top);
      if (candidateCount > 0) {
        // As the mutable searcher touches the next candidate's list: here its row's first line.
        touched += rows[row((int) ~candidates[0])];
      }
      int links = Float.floatToRawIntBits(rows[at]);
      int count = 0;
      for (int j = 1; j <= links; j++) {
        int n = Float.floatToRawIntBits(rows[at + j]);
        if (visited.visit(n)) {
          batchNodes[count] = n;
          batchRows[count] = row(n) + header;
          count++;
        }
      }
      scoreBatch(query, count);
      for (int i = 0; i < count; i++) {
        float s = batchScores[i];
        if (!(s > floor)) {
          continue;
        }
        pushCandidate(batchNodes[i], s);
        if (results.offer(batchNodes[i], s, beam) && results.size() >= beam) {
          floor = LevelZeroCopies.score(results.worst());
        }
      }
    }
    return best(query, k);
  }

  /** Greedy descent over the upper levels, as the mutable graph's, scoring from the rows. */
  private int descend(float[] query, int entry, int fromLevel) {
    int cur = entry;
    float best = dot1(query, row(cur) + header);
    scored++;
    for (int level = fromLevel; level > 0; level--) {
      boolean changed = true;
      while (changed) {
        changed = false;
        int[] links = graph.neighbors(cur, level);
        int count = 0;
        for (int n : links) {
          batchNodes[count] = n;
          batchRows[count] = row(n) + header;
          count++;
        }
        scoreBatch(query, count);
        for (int i = 0; i < count; i++) {
          if (batchScores[i] > best) {
            best = batchScores[i];
            cur = batchNodes[i];
            changed = true;
          }
        }
      }
    }
    return cur;
  }

  /**
   * The best {@code k} results, rescored one at a time as the mutable searcher rescores its hits.
   */
  private int[] best(float[] query, int k) {
    while (results.size() > k) {
      results.popWorst();
    }
    long[] kept = results.bestFirst();
    long[] codes = new long[kept.length];
    for (int i = 0; i < codes.length; i++) {
      int node = LevelZeroCopies.node(kept[i]);
      codes[i] = LevelZeroCopies.encode(node, dot1(query, row(node) + header));
    }
    Arrays.sort(codes);
    int[] nodes = new int[codes.length];
    for (int i = 0; i < nodes.length; i++) {
      nodes[i] = (int) codes[codes.length - 1 - i];
    }
    return nodes;
  }

  private void scoreBatch(float[] query, int count) {
    scored += count;
    float sum = 0;
    for (int i = 0; i < count; i++) {
      sum += rows[batchRows[i]];
    }
    touched += sum;
    int i = 0;
    for (; i + 8 <= count; i += 8) {
      dot8(query, i);
    }
    if (i + 4 <= count) {
      dot4(query, i);
      i += 4;
    }
    for (; i < count; i++) {
      batchScores[i] = dot1(query, batchRows[i]);
    }
  }

  private float dot1(float[] q, int at) {
    FloatVector s0 = FloatVector.zero(SPECIES);
    FloatVector s1 = FloatVector.zero(SPECIES);
    int lanes = SPECIES.length();
    int i = 0;
    for (; i + 2 * lanes <= dimension; i += 2 * lanes) {
      s0 =
          FloatVector.fromArray(SPECIES, rows, at + i)
              .fma(FloatVector.fromArray(SPECIES, q, i), s0);
      s1 =
          FloatVector.fromArray(SPECIES, rows, at + i + lanes)
              .fma(FloatVector.fromArray(SPECIES, q, i + lanes), s1);
    }
    float r = s0.add(s1).reduceLanes(VectorOperators.ADD);
    for (; i < dimension; i++) {
      r = Math.fma(q[i], rows[at + i], r);
    }
    return r;
  }

  private void dot8(float[] q, int from) {
    int a = batchRows[from];
    int b = batchRows[from + 1];
    int c = batchRows[from + 2];
    int d = batchRows[from + 3];
    int e = batchRows[from + 4];
    int f = batchRows[from + 5];
    int g = batchRows[from + 6];
    int h = batchRows[from + 7];
    FloatVector sa = FloatVector.zero(SPECIES);
    FloatVector sb = sa;
    FloatVector sc = sa;
    FloatVector sd = sa;
    FloatVector se = sa;
    FloatVector sf = sa;
    FloatVector sg = sa;
    FloatVector sh = sa;
    int i = 0;
    for (int bound = SPECIES.loopBound(dimension); i < bound; i += SPECIES.length()) {
      FloatVector qv = FloatVector.fromArray(SPECIES, q, i);
      sa = FloatVector.fromArray(SPECIES, rows, a + i).fma(qv, sa);
      sb = FloatVector.fromArray(SPECIES, rows, b + i).fma(qv, sb);
      sc = FloatVector.fromArray(SPECIES, rows, c + i).fma(qv, sc);
      sd = FloatVector.fromArray(SPECIES, rows, d + i).fma(qv, sd);
      se = FloatVector.fromArray(SPECIES, rows, e + i).fma(qv, se);
      sf = FloatVector.fromArray(SPECIES, rows, f + i).fma(qv, sf);
      sg = FloatVector.fromArray(SPECIES, rows, g + i).fma(qv, sg);
      sh = FloatVector.fromArray(SPECIES, rows, h + i).fma(qv, sh);
    }
    float[] out = batchScores;
    out[from] = tail(q, i, a, sa);
    out[from + 1] = tail(q, i, b, sb);
    out[from + 2] = tail(q, i, c, sc);
    out[from + 3] = tail(q, i, d, sd);
    out[from + 4] = tail(q, i, e, se);
    out[from + 5] = tail(q, i, f, sf);
    out[from + 6] = tail(q, i, g, sg);
    out[from + 7] = tail(q, i, h, sh);
  }

  private void dot4(float[] q, int from) {
    int a = batchRows[from];
    int b = batchRows[from + 1];
    int c = batchRows[from + 2];
    int d = batchRows[from + 3];
    FloatVector sa = FloatVector.zero(SPECIES);
    FloatVector sb = sa;
    FloatVector sc = sa;
    FloatVector sd = sa;
    int i = 0;
    for (int bound = SPECIES.loopBound(dimension); i < bound; i += SPECIES.length()) {
      FloatVector qv = FloatVector.fromArray(SPECIES, q, i);
      sa = FloatVector.fromArray(SPECIES, rows, a + i).fma(qv, sa);
      sb = FloatVector.fromArray(SPECIES, rows, b + i).fma(qv, sb);
      sc = FloatVector.fromArray(SPECIES, rows, c + i).fma(qv, sc);
      sd = FloatVector.fromArray(SPECIES, rows, d + i).fma(qv, sd);
    }
    batchScores[from] = tail(q, i, a, sa);
    batchScores[from + 1] = tail(q, i, b, sb);
    batchScores[from + 2] = tail(q, i, c, sc);
    batchScores[from + 3] = tail(q, i, d, sd);
  }

  /** The lanes of {@code acc} summed, plus the components from {@code i} on of row {@code at}. */
  private float tail(float[] q, int i, int at, FloatVector acc) {
    float r = acc.reduceLanes(VectorOperators.ADD);
    for (; i < dimension; i++) {
      r = Math.fma(q[i], rows[at + i], r);
    }
    return r;
  }

  private void pushCandidate(int node, float s) {
    if (candidateCount == candidates.length) {
      candidates = Arrays.copyOf(candidates, 2 * candidateCount);
    }
    candidateCount =
        LevelZeroCopies.siftUp(candidates, candidateCount, ~LevelZeroCopies.encode(node, s));
  }

  private long popCandidate() {
    long top = candidates[0];
    candidateCount = LevelZeroCopies.removeTop(candidates, candidateCount);
    return top;
  }

  /** Keeps the touches above from being optimised away. */
  float touched() {
    return touched;
  }
}
