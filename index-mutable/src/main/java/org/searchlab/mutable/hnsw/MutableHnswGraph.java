package org.searchlab.mutable.hnsw;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.InvalidRequestException;

/**
 * A hierarchical navigable small world graph that is modified in place: inserts, updates and real
 * deletes (no tombstones) by one writer, searched concurrently without locks.
 *
 * <p>Structure: {@code nodes[node][level]} is the node's neighbour list on that level, an immutable
 * {@code int[]} sorted by descending closeness; {@code nodes[node] == null} means absent. Level 0's
 * lists are also published in a flat table {@code level0[node]}, one dependent load closer for
 * searches, which spend most of their time there. Links are kept symmetric, as Vespa keeps them:
 * when a full list drops a neighbour to make room, the neighbour drops the link back. That is what
 * lets a delete find every node that links to the deleted one by reading the deleted node's own
 * lists. The writer keeps each list's scores in a parallel {@code float[]} that readers never see,
 * so that pruning a full list costs one dot product per entry instead of a full rescoring.
 *
 * <p>Thread-safety: the mutating methods ({@link #insert}, {@link #insertAll}, {@link #update},
 * {@link #remove}, {@link #writeSnapshot}) must be called by one thread at a time (the owner's
 * writer thread; calls must be ordered by happens-before). Every other method is safe from any
 * thread at any time and takes no lock. The reasoning, in order of a write:
 *
 * <ol>
 *   <li>A vector is stored (release) before any list that names its node is published.
 *   <li>A new node's per-level lists are filled, then its level array is published with a release
 *       store; only then do neighbours' lists gain a link to it. A reader that reaches the node
 *       through a link therefore sees its filled lists (acquire loads).
 *   <li>A list is never modified once published: a change builds a new array and swaps it in with a
 *       release store; readers keep iterating their old copy, which the GC reclaims later.
 *   <li>A delete first moves the entry point if needed, then removes the vector, then unpublishes
 *       the node, then unlinks it. A search that starts after {@link #remove} returns cannot score
 *       it (its vector is gone) and so never returns it; a search already running may still pass
 *       through its stale lists, which stay valid arrays.
 * </ol>
 */
public final class MutableHnswGraph {
  private static final VarHandle NODE = MethodHandles.arrayElementVarHandle(int[][][].class);
  private static final VarHandle LIST = MethodHandles.arrayElementVarHandle(int[][].class);
  static final int[] NO_LINKS = new int[0];
  private static final float[] NO_SCORES = new float[0];
  private static final int MAX_LEVEL = 30;

  private final VectorStore vectors;
  private final HnswConfig config;
  private final double levelMultiplier;
  private final SplittableRandom levelRandom;
  private final ThreadLocal<HnswSearcher> searchers;
  private final HnswSearcher writerSearcher;

  private volatile int[][][] nodes;
  // Level 0's lists again, one hop from the table: a search expands hundreds of level-0 nodes,
  // and nodes[node][0] costs a dependent cache miss more per expansion. Always the same arrays as
  // nodes[node][0]; written before them (release), read with acquire.
  private volatile int[][] level0;
  private float[][][] scores; // writer-only, parallel to nodes
  private volatile long entry; // level << 32 | node, or -1 when empty
  private volatile int size;
  private volatile int idUpperBound;
  private long repairs;

  MutableHnswGraph(VectorStore vectors, HnswConfig config) {
    this.vectors = vectors;
    this.config = config;
    this.levelMultiplier = 1 / Math.log(config.m());
    this.levelRandom = new SplittableRandom(config.seed());
    this.searchers = ThreadLocal.withInitial(() -> new HnswSearcher(this));
    this.writerSearcher = new HnswSearcher(this);
    this.nodes = new int[64][][];
    this.level0 = new int[64][];
    this.scores = new float[64][][];
    this.entry = -1;
  }

  /** An empty graph over {@code vectors}, which the graph writes through on insert and remove. */
  public static MutableHnswGraph create(VectorStore vectors, HnswConfig config) {
    if (vectors.size() != 0) {
      throw new InvalidRequestException(
          "the vector store must start empty, it holds " + vectors.size() + " vectors");
    }
    return new MutableHnswGraph(vectors, config);
  }

  /**
   * Loads a graph and its vectors from a snapshot written by {@link #writeSnapshot}, without any
   * graph work. {@code config} supplies the build threads, seed and thresholds; its {@code m} must
   * equal the snapshot's.
   *
   * @throws java.io.IOException on I/O errors, a bad checksum, or an unknown format version
   */
  public static MutableHnswGraph load(Path file, HnswConfig config) throws IOException {
    return HnswSnapshot.read(file, config);
  }

  /**
   * Writes the graph and its vectors to {@code file} (replaced atomically: written to a sibling
   * temporary file, forced, then moved). Writer thread; readers may keep searching.
   */
  public void writeSnapshot(Path file) throws IOException {
    HnswSnapshot.write(this, file);
  }

  /** The vector attribute this graph reads (and writes on insert, update and remove). */
  public VectorStore vectors() {
    return vectors;
  }

  public HnswConfig config() {
    return config;
  }

  /**
   * Stores {@code vector} for {@code node} and links the node into the graph. Writer thread.
   *
   * @throws org.searchlab.core.InvalidRequestException if the node is already present, negative, or
   *     the vector has the wrong dimension
   */
  public void insert(int node, float[] vector) {
    checkAbsent(node);
    vectors.set(node, vector);
    int level = randomLevel();
    link(prepare(writerSearcher, node, vectors.get(node), level, null, null, 0, 0));
  }

  /**
   * Inserts many absent nodes, searching for their neighbours on {@link HnswConfig#buildThreads()}
   * threads and linking them on the calling (writer) thread: Vespa's two-phase insert. With one
   * build thread this equals inserting them in order. Writer thread.
   *
   * @param nodes distinct absent node ids
   * @param vectors the vector of each node, parallel to {@code nodes}
   */
  public void insertAll(int[] nodes, float[][] vectors) {
    if (nodes.length != vectors.length) {
      throw new InvalidRequestException(
          nodes.length + " nodes but " + vectors.length + " vectors in insertAll");
    }
    new BatchInserter(this).insertAll(nodes, vectors);
  }

  /**
   * Sets the vector of {@code node}: inserts it when absent, does nothing when the vector is
   * unchanged, else removes and re-inserts it. Returns whether the graph changed. Writer thread.
   */
  public boolean update(int node, float[] vector) {
    if (vector.length != vectors.dimension()) {
      throw new InvalidRequestException(
          "vector length " + vector.length + " differs from the dimension " + vectors.dimension());
    }
    if (!contains(node)) {
      insert(node, vector);
      return true;
    }
    if (Arrays.equals(vectors.get(node), vector)) {
      return false;
    }
    remove(node);
    insert(node, vector);
    return true;
  }

  /**
   * Removes {@code node} and its vector: searches starting after this returns never see it. Its
   * former neighbours drop their links to it and are reconnected to each other within capacity
   * (Vespa's {@code mutual_reconnect}); if it was the entry point, another node replaces it.
   * Returns whether it was present. Writer thread.
   */
  public boolean remove(int node) {
    int[][][] t = nodes;
    if (node < 0 || node >= t.length || t[node] == null) {
      return false;
    }
    int[][] lists = t[node];
    if (entryNode(entry) == node) {
      entry = replacementEntry(node, lists);
    }
    vectors.remove(node);
    NODE.setRelease(t, node, (int[][]) null);
    LIST.setRelease(level0, node, (int[]) null);
    size--;
    for (int level = lists.length - 1; level >= 0; level--) {
      int[] cluster = lists[level];
      for (int n : cluster) {
        removeLink(n, level, node);
      }
      mutualReconnect(cluster, level);
      for (int n : cluster) {
        if (nodes[n][level].length < minDegree(level)) {
          repair(n, level);
        }
      }
    }
    scores[node] = null;
    return true;
  }

  /** Whether {@code node} is in the graph. */
  public boolean contains(int node) {
    int[][][] t = nodes;
    return node >= 0 && node < t.length && NODE.getAcquire(t, node) != null;
  }

  /** The number of nodes in the graph. */
  public int size() {
    return size;
  }

  /** The entry point of searches, or -1 when the graph is empty. */
  public int entryNode() {
    return entryNode(entry);
  }

  /** The top level of {@code node}, or -1 when absent. */
  public int level(int node) {
    int[][][] t = nodes;
    if (node < 0 || node >= t.length) {
      return -1;
    }
    int[][] lists = (int[][]) NODE.getAcquire(t, node);
    return lists == null ? -1 : lists.length - 1;
  }

  /**
   * The neighbours of {@code node} on {@code level} (a shared immutable array: do not modify), or
   * an empty array when the node is absent or has no such level.
   */
  public int[] neighbors(int node, int level) {
    return node < 0 || level < 0 ? NO_LINKS : links(node, level);
  }

  /** A new searcher over this graph, for one thread at a time. */
  public GraphSearcher newSearcher() {
    return new HnswSearcher(this);
  }

  /**
   * Searches with this thread's searcher; see {@link GraphSearcher#search(float[], int, int,
   * AcceptBits, int, FilterThresholds)}. Any thread.
   */
  public GraphHits search(
      float[] query,
      int k,
      int ef,
      AcceptBits accept,
      int acceptedCount,
      FilterThresholds thresholds) {
    return searchers.get().search(query, k, ef, accept, acceptedCount, thresholds);
  }

  /** Unfiltered search with this thread's searcher. Any thread. */
  public GraphHits search(float[] query, int k, int ef) {
    return searchers.get().search(query, k, ef);
  }

  /** Approximate heap bytes of the graph's links (not the vectors; see {@link VectorStore}). */
  public long ramBytesUsed() {
    int[][][] t = nodes;
    long bytes = 16L + 20L * t.length; // the node tables (links, level 0, writer's scores)
    for (int node = 0; node < t.length; node++) {
      int[][] lists = (int[][]) NODE.getAcquire(t, node);
      if (lists != null) {
        bytes += 16L + 4L * lists.length;
        for (int level = 0; level < lists.length; level++) {
          bytes += 2 * (16L + 4L * ((int[]) LIST.getAcquire(lists, level)).length);
        }
      }
    }
    return bytes;
  }

  // ---- package-private reading side -------------------------------------------------------

  long entry() {
    return entry;
  }

  static int entryNode(long entry) {
    return entry < 0 ? -1 : (int) entry;
  }

  static int entryLevel(long entry) {
    return entry < 0 ? -1 : (int) (entry >>> 32);
  }

  static long packEntry(int node, int level) {
    return node < 0 ? -1 : ((long) level << 32) | node;
  }

  /** The published neighbour list; empty when the node or the level is absent. Lock-free. */
  int[] links(int node, int level) {
    if (level == 0) {
      int[][] t0 = level0;
      if (node >= t0.length) {
        return NO_LINKS;
      }
      int[] list = (int[]) LIST.getAcquire(t0, node);
      return list == null ? NO_LINKS : list;
    }
    int[][][] t = nodes;
    if (node >= t.length) {
      return NO_LINKS;
    }
    int[][] lists = (int[][]) NODE.getAcquire(t, node);
    if (lists == null || level >= lists.length) {
      return NO_LINKS;
    }
    return (int[]) LIST.getAcquire(lists, level);
  }

  /** The size of the node table: an exclusive bound on node ids a reader can meet. */
  int capacity() {
    return nodes.length;
  }

  int idUpperBound() {
    return idUpperBound;
  }

  // ---- writer side ------------------------------------------------------------------------

  void checkAbsent(int node) {
    if (node < 0) {
      throw new InvalidRequestException("node id " + node + " is negative");
    }
    if (contains(node)) {
      throw new InvalidRequestException("node " + node + " is already in the graph");
    }
  }

  int randomLevel() {
    double u;
    do {
      u = levelRandom.nextDouble();
    } while (u == 0.0);
    return Math.min(MAX_LEVEL, (int) (-Math.log(u) * levelMultiplier));
  }

  /** Phase one of an insert: the selected neighbours of a node on each of its levels. */
  record Prepared(int node, int level, int[][] ids, float[][] scores) {}

  /**
   * Finds the neighbours of {@code node} (whose vector is already in the store but which is not yet
   * linked): greedy descent to its top level, then a beam of {@code efConstruction} on each of its
   * levels, each level's beam seeding the next, plus the not-yet-linked nodes {@code
   * batch[from..to)} of the same batch scored directly, then the selection heuristic. Reads the
   * graph like any reader, so it may run on a build thread while the writer waits.
   */
  Prepared prepare(
      HnswSearcher searcher,
      int node,
      float[] v,
      int level,
      int[] batch,
      int[] batchLevels,
      int from,
      int to) {
    int[][] ids = new int[level + 1][];
    float[][] sc = new float[level + 1][];
    float[] batchScores = new float[to - from];
    for (int j = from; j < to; j++) {
      batchScores[j - from] = VectorUtil.dotProduct(v, vectors.get(batch[j]));
    }
    long e = entry;
    int ep = entryNode(e);
    int epLevel = entryLevel(e);
    int ef = config.efConstruction();
    int[] eps = null;
    if (ep >= 0) {
      eps = new int[] {searcher.greedyDescent(v, ep, epLevel, level)};
    }
    float[][] scratch = new float[config.maxLinks(0)][];
    for (int l = level; l >= 0; l--) {
      ScoreHeap results = searcher.results();
      if (eps != null && eps.length > 0 && l <= epLevel) {
        searcher.searchLevel(v, eps, eps.length, ef, l, AcceptBits.ALL, false);
      } else {
        results.clear();
      }
      for (int j = from; j < to; j++) {
        if (batchLevels[j] >= l) {
          results.insertWithOverflow(batch[j], batchScores[j - from], ef);
        }
      }
      int n = results.size();
      int[] candIds = new int[n];
      float[] candScores = new float[n];
      for (int i = n - 1; i >= 0; i--) {
        long code = results.pop();
        candIds[i] = ScoreHeap.node(code);
        candScores[i] = ScoreHeap.score(code);
      }
      if (l <= epLevel && n > 0) {
        eps = candIds;
      }
      int max = config.maxLinks(l);
      int[] out = new int[max];
      float[] outScores = new float[max];
      int count =
          NeighborSelection.select(vectors, candIds, candScores, n, max, out, outScores, scratch);
      ids[l] = Arrays.copyOf(out, count);
      sc[l] = Arrays.copyOf(outScores, count);
    }
    return new Prepared(node, level, ids, sc);
  }

  /** Phase two of an insert, on the writer: publish the node, then link its neighbours back. */
  void link(Prepared p) {
    int node = p.node();
    ensureCapacity(node);
    int[][] lists = new int[p.level() + 1][];
    float[][] listScores = new float[p.level() + 1][];
    for (int l = 0; l <= p.level(); l++) {
      lists[l] = p.ids()[l];
      listScores[l] = p.scores()[l];
      assert allPresent(lists[l]) : "node " + node + " selected a vanished neighbour";
    }
    scores[node] = listScores;
    LIST.setRelease(level0, node, lists[0]);
    NODE.setRelease(nodes, node, lists);
    size++;
    if (node >= idUpperBound) {
      idUpperBound = node + 1;
    }
    for (int l = 0; l <= p.level(); l++) {
      int[] selected = lists[l];
      float[] selectedScores = listScores[l];
      for (int i = 0; i < selected.length; i++) {
        addLink(selected[i], l, node, selectedScores[i]);
      }
    }
    if (p.level() > entryLevel(entry)) {
      entry = packEntry(node, p.level());
    }
  }

  private boolean allPresent(int[] ids) {
    for (int id : ids) {
      if (!contains(id)) {
        return false;
      }
    }
    return true;
  }

  private void ensureCapacity(int node) {
    int[][][] t = nodes;
    if (node >= t.length) {
      int newLength = Math.max(node + 1, t.length + (t.length >> 1));
      scores = Arrays.copyOf(scores, newLength);
      level0 = Arrays.copyOf(level0, newLength);
      nodes = Arrays.copyOf(t, newLength);
    }
  }

  private void publish(int node, int level, int[] ids, float[] listScores) {
    scores[node][level] = listScores;
    if (level == 0) {
      LIST.setRelease(level0, node, ids);
    }
    LIST.setRelease(nodes[node], level, ids);
  }

  /**
   * Adds the link {@code a -> b} (closeness {@code sb}) keeping {@code a}'s list within capacity.
   * When full, one entry goes: {@code b} itself if it is strictly closer to a better neighbour of
   * {@code a} than to {@code a}; else the worst neighbour that {@code b} makes non-diverse; else
   * the worst of all. This is Lucene's "worst non-diverse" pruning, restricted to the pairs the new
   * link can change, so it costs one dot product per entry. The dropped node loses its link back,
   * so a node whose only link this is is never the one dropped.
   */
  private void addLink(int a, int level, int b, float sb) {
    int[] ids = nodes[a][level];
    float[] sc = scores[a][level];
    if (indexOf(ids, b) >= 0) {
      return;
    }
    int pos = 0;
    while (pos < sc.length && sc[pos] >= sb) {
      pos++;
    }
    int cap = config.maxLinks(level);
    if (ids.length < cap) {
      publish(a, level, insertAt(ids, pos, b), insertAt(sc, pos, sb));
      return;
    }
    float[] vb = vectors.get(b);
    boolean keepB = isLastLink(b, level);
    int victim = -1; // index into ids; with dropB, b itself goes
    boolean dropB = false;
    if (!keepB) {
      for (int j = 0; j < pos; j++) {
        if (VectorUtil.dotProduct(vb, vectors.get(ids[j])) > sb) {
          dropB = true;
          break;
        }
      }
    }
    if (!dropB) {
      for (int i = ids.length - 1; i >= pos; i--) {
        if (!isLastLink(ids[i], level) && VectorUtil.dotProduct(vectors.get(ids[i]), vb) > sc[i]) {
          victim = i;
          break;
        }
      }
      if (victim < 0) {
        if (pos == ids.length && !keepB) {
          dropB = true;
        } else {
          victim = ids.length - 1;
          while (victim > 0 && isLastLink(ids[victim], level)) {
            victim--;
          }
        }
      }
    }
    if (dropB) {
      removeLink(b, level, a);
      return;
    }
    int dropped = ids[victim];
    int[] newIds = insertAt(removeAt(ids, victim), victim < pos ? pos - 1 : pos, b);
    float[] newScores = insertAt(removeAt(sc, victim), victim < pos ? pos - 1 : pos, sb);
    publish(a, level, newIds, newScores);
    removeLink(dropped, level, a);
  }

  /**
   * Whether dropping one link would isolate {@code node} on {@code level}: pruning never takes a
   * node's last link, because links are symmetric and an isolated node is unreachable.
   */
  private boolean isLastLink(int node, int level) {
    return nodes[node][level].length <= 1;
  }

  private void removeLink(int a, int level, int b) {
    int[][] lists = nodes[a];
    if (lists == null || level >= lists.length) {
      return;
    }
    int i = indexOf(lists[level], b);
    if (i >= 0) {
      publish(a, level, removeAt(lists[level], i), removeAt(scores[a][level], i));
    }
  }

  /**
   * Reconnects the former neighbours of a removed node on {@code level}, as Vespa's {@code
   * mutual_reconnect}: score every unlinked pair, then from the closest pair add the link both ways
   * when both have room, at most one new link per node unless one side has no links at all.
   */
  private void mutualReconnect(int[] cluster, int level) {
    int c = cluster.length;
    if (c < 2) {
      return;
    }
    long[] pairs = new long[c * (c - 1) / 2];
    int np = 0;
    for (int i = 0; i < c; i++) {
      float[] vi = vectors.get(cluster[i]);
      int[] li = nodes[cluster[i]][level];
      for (int j = i + 1; j < c; j++) {
        if (indexOf(li, cluster[j]) < 0) {
          float s = VectorUtil.dotProduct(vi, vectors.get(cluster[j]));
          pairs[np++] = ScoreHeap.encode((i << 16) | j, s);
        }
      }
    }
    Arrays.sort(pairs, 0, np);
    boolean[] added = new boolean[c];
    int cap = config.maxLinks(level);
    for (int p = np - 1; p >= 0; p--) {
      int ij = ScoreHeap.node(pairs[p]);
      int i = ij >>> 16;
      int j = ij & 0xFFFF;
      int a = cluster[i];
      int b = cluster[j];
      int la = nodes[a][level].length;
      int lb = nodes[b][level].length;
      if (la >= cap || lb >= cap) {
        continue;
      }
      if (la == 0 || lb == 0 || (!added[i] && !added[j])) {
        added[i] = true;
        added[j] = true;
        float s = ScoreHeap.score(pairs[p]);
        addLink(a, level, b, s);
        addLink(b, level, a, s);
      }
    }
  }

  /**
   * Below this many links on {@code level} after a delete, a node is repaired with a fresh
   * neighbour search: mutual reconnection adds at most one link per node, so a node that keeps
   * losing neighbours would otherwise drift towards isolation.
   */
  private int minDegree(int level) {
    return Math.max(1, config.maxLinks(level) / 4);
  }

  /**
   * Relinks {@code node} on {@code level} as an insert would: search from the entry point with
   * {@code efConstruction}, select with the heuristic, and add the links both ways (pruning full
   * lists as usual).
   */
  private void repair(int node, int level) {
    repairs++;
    float[] v = vectors.get(node);
    long e = entry;
    if (entryLevel(e) < level) {
      return;
    }
    HnswSearcher s = writerSearcher;
    int[] eps = {s.greedyDescent(v, entryNode(e), entryLevel(e), level)};
    s.searchLevel(v, eps, 1, config.efConstruction(), level, AcceptBits.ALL, false);
    ScoreHeap results = s.results();
    int n = results.size();
    int[] candIds = new int[n];
    float[] candScores = new float[n];
    int count = 0;
    for (int i = n - 1; i >= 0; i--) {
      long code = results.pop();
      candIds[i] = ScoreHeap.node(code);
      candScores[i] = ScoreHeap.score(code);
    }
    // Drop the node itself and keep the order.
    for (int i = 0; i < n; i++) {
      if (candIds[i] != node) {
        candIds[count] = candIds[i];
        candScores[count++] = candScores[i];
      }
    }
    int max = config.maxLinks(level);
    int[] out = new int[max];
    float[] outScores = new float[max];
    int selected =
        NeighborSelection.select(
            vectors, candIds, candScores, count, max, out, outScores, new float[max][]);
    for (int i = 0; i < selected; i++) {
      if (indexOf(nodes[node][level], out[i]) < 0) {
        addLink(node, level, out[i], outScores[i]);
        if (indexOf(nodes[node][level], out[i]) >= 0) {
          addLink(out[i], level, node, outScores[i]);
        }
      }
    }
  }

  /** Repairs done so far (a diagnostic for tests and stats). */
  long repairs() {
    return repairs;
  }

  /** The best-placed neighbour of a departing entry point, or any top node when it had none. */
  private long replacementEntry(int node, int[][] lists) {
    for (int level = lists.length - 1; level >= 0; level--) {
      int best = -1;
      int bestLevel = -1;
      for (int n : lists[level]) {
        int nl = nodes[n].length - 1;
        if (nl > bestLevel) {
          best = n;
          bestLevel = nl;
        }
      }
      if (best >= 0) {
        return packEntry(best, bestLevel);
      }
    }
    int[][][] t = nodes;
    int best = -1;
    int bestLevel = -1;
    for (int n = 0; n < t.length; n++) {
      if (n != node && t[n] != null && t[n].length - 1 > bestLevel) {
        best = n;
        bestLevel = t[n].length - 1;
      }
    }
    return packEntry(best, bestLevel);
  }

  // ---- snapshot access ----------------------------------------------------------------------

  int[][] listsForSnapshot(int node) {
    return nodes[node];
  }

  float[][] scoresForSnapshot(int node) {
    return scores[node];
  }

  /** Restores one node from a snapshot: no graph work, the lists are taken as they were. */
  void restore(int node, int[][] lists, float[][] listScores) {
    ensureCapacity(node);
    scores[node] = listScores;
    LIST.setRelease(level0, node, lists[0]);
    NODE.setRelease(nodes, node, lists);
    size++;
    if (node >= idUpperBound) {
      idUpperBound = node + 1;
    }
  }

  void restoreEntry(int node, int level) {
    entry = packEntry(node, level);
  }

  // ---- small array helpers ------------------------------------------------------------------

  static int indexOf(int[] a, int v) {
    for (int i = 0; i < a.length; i++) {
      if (a[i] == v) {
        return i;
      }
    }
    return -1;
  }

  private static int[] insertAt(int[] a, int pos, int v) {
    int[] r = new int[a.length + 1];
    System.arraycopy(a, 0, r, 0, pos);
    r[pos] = v;
    System.arraycopy(a, pos, r, pos + 1, a.length - pos);
    return r;
  }

  private static float[] insertAt(float[] a, int pos, float v) {
    float[] r = new float[a.length + 1];
    System.arraycopy(a, 0, r, 0, pos);
    r[pos] = v;
    System.arraycopy(a, pos, r, pos + 1, a.length - pos);
    return r;
  }

  private static int[] removeAt(int[] a, int pos) {
    if (a.length == 1) {
      return NO_LINKS;
    }
    int[] r = new int[a.length - 1];
    System.arraycopy(a, 0, r, 0, pos);
    System.arraycopy(a, pos + 1, r, pos, a.length - pos - 1);
    return r;
  }

  private static float[] removeAt(float[] a, int pos) {
    if (a.length == 1) {
      return NO_SCORES;
    }
    float[] r = new float[a.length - 1];
    System.arraycopy(a, 0, r, 0, pos);
    System.arraycopy(a, pos + 1, r, pos, a.length - pos - 1);
    return r;
  }
}
