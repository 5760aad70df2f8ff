package org.searchlab.mutable.hnsw;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The level-0 rows of a graph over 1-bit codes ({@link BinaryCodes}) with {@link
 * HnswConfig#inlineCodes()}: each node's row holds its neighbours' codes beside their ids, at a
 * fixed stride in one {@code long[]}, so that a beam search estimates all of a node's neighbours
 * from one contiguous row, which the hardware prefetcher streams, instead of reaching each
 * neighbour's own code through the code table. SymphonyQG (Gou et al., SIGMOD 2025) keeps RaBitQ
 * codes of a node's neighbours inline this way; a read-only copy of this layout in hnsw-bench
 * measured it first (2026-12-06), and {@code hnsw-bench --impl mutable-bbq-inline} measures this.
 *
 * <p>Layout: rows of a fixed stride in pages of up to {@value #PAGE_ROWS} rows (fewer for rows
 * longer than 2 KB, so that a page stays within 8 MB), one {@code long[]} each, as Vespa keeps its
 * attribute data in buffers that never move: the first page grows by copying up to a full page (so
 * a small graph takes little memory), later pages are allocated whole, and memory past the last
 * node is at most one page. The rows start {@value #BASE} longs into a page, so that with the
 * page's data 16 bytes into a humongous (region-aligned) object, which a full page of 2 KB rows is
 * under G1, each row starts on a 64-byte line; the stride is a multiple of eight longs. With {@code
 * S} slots ({@code 2M} rounded up to a multiple of eight) and {@code W = ⌈D/64⌉} words, a row is:
 * the neighbours' code words transposed, {@code W} groups of {@code S} longs (group {@code w}, slot
 * {@code j}: word {@code w} of neighbour {@code j}'s bits), so that {@link #LANES} neighbours' word
 * {@code w} are one vector load; then each slot's factor {@code f}, its {@code t = 2|b| − D} and,
 * for {@code l2_norm}, its {@code ‖o‖²}, as floats two to a long; then the link count as a long;
 * then the links as ints, two to a long. At D = 384 and M 16 a row is 264 longs (2,112 bytes) with
 * the squares, 248 without: about 1.3× the node's floats.
 *
 * <p>The estimates are {@link BinaryCodes.Query#dot}'s to the bit: the same integer dot product,
 * then the same float operations in the same order, lane by lane ({@link #estimate}), so a search
 * over these rows visits what a search over the nodes' own codes visits and finds the same hits.
 *
 * <p>Thread-safety: one writer calls {@link #setLinks} and {@link #remirror}; readers call {@link
 * #page}, {@link #at}, {@link #count}, {@link #link} and {@link #estimate} from any thread without
 * locks.
 *
 * <ol>
 *   <li>Pages are published with release stores in a page table that grows by copying into a larger
 *       one published through a volatile field; the first page, while it grows, is replaced by a
 *       larger copy the same way. A reader still holding an old table or first page sees the rows
 *       as they were at the copy, and a node added after it as a row with no links, exactly as if
 *       it had read a moment earlier.
 *   <li>A row is rewritten in place: the writer stores the slots (codes, factors, ids), then the
 *       count with a release store; a reader loads the count with an acquire load, then the slots.
 *       A reader racing a rewrite may pair a link with words or factors of the list before: every
 *       id is still a real node id (or 0), and a wrong estimate only misplaces that candidate in
 *       the beam, since the search reranks its beam by the floats. hnswlib's searches read links
 *       the same way.
 *   <li>A slot's code is copied when its list is set; a node's code changes only when the graph
 *       replaces its vector, which first removes every link to it (so every row that held the old
 *       code is rewritten), or on a snapshot load, which sets the lists before all codes exist and
 *       therefore calls {@link #remirror} once every node is loaded.
 * </ol>
 */
final class InlineCodeRows implements LinkRows {
  private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle PAGE = MethodHandles.arrayElementVarHandle(long[][].class);

  /** Most rows a page holds: 4,096, 8 MB of 2 KB rows (M 16, 384 dimensions). */
  static final int PAGE_ROWS = 1 << 12;

  /** Bytes a page of longer rows stays within (wider M or more dimensions), at least 16 rows. */
  private static final long PAGE_BYTES = 8L << 20;

  private static final VectorSpecies<Long> LONGS = LongVector.SPECIES_PREFERRED;

  /** Neighbours estimated together: a vector of longs. */
  static final int LANES = LONGS.length();

  private static final VectorSpecies<Float> FLOATS =
      VectorSpecies.of(
          float.class, VectorShape.forBitSize(Math.max(64, LONGS.vectorBitSize() / 2)));
  private static final VectorSpecies<Long> HALF_LONGS =
      VectorSpecies.of(long.class, VectorShape.forBitSize(FLOATS.vectorBitSize()));

  /** Longs before the first row, so that rows start on a 64-byte boundary (see above). */
  static final int BASE = 6;

  private final RowCodes codes;
  private final int dimension;
  private final int words;
  private final int slots;
  private final int capacity;
  private final boolean squares;
  private final int factorsAt;
  private final int onesAt;
  private final int squaresAt;
  private final int countAt;
  private final int linksAt;
  private final int stride;
  private final int pageShift; // rows per page = 1 << pageShift
  private volatile long[][] pages = new long[1][];
  private int firstPageRows; // rows the first page holds; writer only

  /**
   * Rows for up to {@code capacity} links whose codes are read from {@code codes} (1-bit codes of
   * {@code dimension} components), with each slot's {@code ‖o‖²} when {@code squares} ({@code
   * l2_norm}).
   */
  InlineCodeRows(RowCodes codes, int dimension, int capacity, boolean squares) {
    if (LANES < 2 || 8 % LANES != 0) {
      throw new IllegalStateException(LANES + " longs to a vector");
    }
    this.codes = codes;
    this.dimension = dimension;
    this.words = BinaryCodes.words(dimension);
    this.capacity = capacity;
    this.slots = roundUp(Math.max(1, capacity), 8);
    this.squares = squares;
    this.factorsAt = words * slots;
    this.onesAt = factorsAt + slots / 2;
    this.squaresAt = onesAt + slots / 2;
    this.countAt = squaresAt + (squares ? slots / 2 : 0);
    this.linksAt = countAt + 1;
    this.stride = roundUp(linksAt + slots / 2, 8);
    int shift = 31 - Integer.numberOfLeadingZeros(PAGE_ROWS);
    while (shift > 4 && (8L * stride << shift) > PAGE_BYTES) {
      shift--;
    }
    this.pageShift = shift;
    this.firstPageRows = 16;
    this.pages[0] = new long[BASE + 16 * stride];
  }

  private static int roundUp(int n, int multiple) {
    return (n + multiple - 1) / multiple * multiple;
  }

  /** Longs per row. */
  int stride() {
    return stride;
  }

  /** Rows per page. */
  int pageRows() {
    return 1 << pageShift;
  }

  /**
   * The page holding {@code node}'s row, or null when there is none yet (a node added since, or
   * beyond every row): the row is at {@link #at} in it when that is below its length. Any thread.
   */
  long[] page(int node) {
    long[][] t = pages;
    int p = node >>> pageShift;
    return p < t.length ? (long[]) PAGE.getAcquire(t, p) : null;
  }

  /** Where {@code node}'s row starts in its {@link #page}: valid when below the page's length. */
  int at(int node) {
    return BASE + (node & ((1 << pageShift) - 1)) * stride;
  }

  /** The link count of the row at {@code at} (acquire: the slots it counts are visible). */
  int count(long[] r, int at) {
    return (int) (long) CELL.getAcquire(r, at + countAt);
  }

  /** The {@code j}-th link of the row at {@code at}, {@code j < count}. */
  int link(long[] r, int at, int j) {
    return (int) (r[at + linksAt + (j >>> 1)] >>> ((j & 1) << 5));
  }

  /**
   * {@code out[j]} for the first {@code count} slots of the row at {@code at}: the bound query's
   * raw score with neighbour {@code j}, {@link BinaryCodes.Query#dot} or, for {@code l2_norm}, the
   * negated {@link BinaryCodes.Query#squareDistance}, bit for bit. {@code out} holds {@code count}
   * rounded up to {@link #LANES}.
   */
  void estimate(long[] r, int at, int count, BinaryCodes.Query q, float[] out) {
    long[] planes = q.planes;
    int w4 = words;
    float twoDelta = 2 * q.delta();
    float lo = q.lo();
    float deltaSum = q.delta() * q.sum();
    float qSquares = q.squares();
    for (int c = 0; c < count; c += LANES) {
      LongVector a0 = LongVector.zero(LONGS);
      LongVector a1 = a0;
      LongVector a2 = a0;
      LongVector a3 = a0;
      int g = at + c;
      for (int w = 0; w < w4; w++, g += slots) {
        LongVector b = LongVector.fromArray(LONGS, r, g);
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
      FloatVector f = floats(r, at + factorsAt + (c >>> 1));
      FloatVector t = floats(r, at + onesAt + (c >>> 1));
      // Query.estimate: f * (2Δ·bu + t·lo − Δ·Σu), each operation rounded as it rounds them.
      FloatVector dot = u.mul(twoDelta).add(t.mul(lo)).sub(deltaSum).mul(f);
      if (squares) {
        // Query.squareDistance: ‖q‖² + ‖o‖² − 2·dot, negated as the graph's raw score.
        FloatVector s = floats(r, at + squaresAt + (c >>> 1));
        s.add(qSquares).sub(dot.mul(2f)).neg().intoArray(out, c);
      } else {
        dot.intoArray(out, c);
      }
    }
  }

  private static FloatVector floats(long[] r, int at) {
    return LongVector.fromArray(HALF_LONGS, r, at).reinterpretAsFloats();
  }

  /**
   * Writes {@code ids} with their codes as the level-0 row of {@code id}: slots first, the ids' old
   * slots beyond the new count zeroed, then the count with a release store. A link whose code is
   * gone (a node being removed) gets a zero code and factors: it estimates 0 for a dot product, and
   * the rerank drops it since its float is gone too. Writer thread.
   *
   * @throws IllegalStateException when {@code ids} exceeds the capacity
   */
  @Override
  public void setLinks(int id, int[] ids) {
    if (ids.length > capacity) {
      throw new IllegalStateException(
          ids.length + " links for node " + id + ", rows hold " + capacity);
    }
    long[] r = ensure(id);
    int at = at(id);
    int old = count(r, at);
    for (int j = 0; j < ids.length; j++) {
      writeSlot(r, at, j, ids[j]);
    }
    for (int j = ids.length; j < old; j++) {
      clearSlot(r, at, j);
    }
    CELL.setRelease(r, at + countAt, (long) ids.length);
  }

  private void writeSlot(long[] r, int at, int j, int node) {
    byte[] c = codes.row(node);
    for (int w = 0; w < words; w++) {
      r[at + w * slots + j] = c == null ? 0L : BinaryCodes.word(c, w);
    }
    setHalf(r, at + factorsAt, j, c == null ? 0f : BinaryCodes.factor(c, dimension));
    setHalf(r, at + onesAt, j, c == null ? 0f : 2 * BinaryCodes.ones(c, dimension) - dimension);
    if (squares) {
      setHalf(r, at + squaresAt, j, c == null ? 0f : BinaryCodes.squares(c, dimension));
    }
    setInt(r, at + linksAt, j, node);
  }

  private void clearSlot(long[] r, int at, int j) {
    for (int w = 0; w < words; w++) {
      r[at + w * slots + j] = 0L;
    }
    setHalf(r, at + factorsAt, j, 0f);
    setHalf(r, at + onesAt, j, 0f);
    if (squares) {
      setHalf(r, at + squaresAt, j, 0f);
    }
    setInt(r, at + linksAt, j, 0);
  }

  private static void setHalf(long[] r, int at, int i, float value) {
    setInt(r, at, i, Float.floatToRawIntBits(value));
  }

  private static void setInt(long[] r, int at, int i, int value) {
    int shift = (i & 1) << 5;
    int cell = at + (i >>> 1);
    r[cell] = r[cell] & ~(0xFFFFFFFFL << shift) | (value & 0xFFFFFFFFL) << shift;
  }

  /** The page with a row for {@code id}, allocated (or the first page grown) when it has none. */
  private long[] ensure(int id) {
    int p = id >>> pageShift;
    long[][] t = pages;
    if (p >= t.length) {
      t = Arrays.copyOf(t, Math.max(p + 1, 2 * t.length));
      pages = t;
    }
    long[] page = t[p];
    if (p == 0 && id >= firstPageRows) {
      firstPageRows = Math.min(pageRows(), Math.max(id + 1, 2 * firstPageRows));
      page = Arrays.copyOf(page, BASE + firstPageRows * stride);
      PAGE.setRelease(t, 0, page);
    } else if (page == null) {
      page = new long[BASE + pageRows() * stride];
      PAGE.setRelease(t, p, page);
    }
    return page;
  }

  /**
   * Rewrites every row from its node's current list and codes, after a snapshot load set the lists
   * before the codes of later nodes existed. Writer thread.
   */
  void remirror(HnswAdjacency graph) {
    int bound = graph.idUpperBound();
    for (int node = 0; node < bound; node++) {
      if (graph.contains(node)) {
        setLinks(node, graph.links(node, 0));
      }
    }
  }

  /** Heap bytes of the rows: the graph reports them as its own. */
  @Override
  public long linkBytes() {
    long[][] t = pages;
    long bytes = 16L + 8L * t.length;
    for (long[] page : t) {
      bytes += page == null ? 0 : 16L + 8L * page.length;
    }
    return bytes;
  }
}
