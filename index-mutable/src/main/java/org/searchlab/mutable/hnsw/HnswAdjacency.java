package org.searchlab.mutable.hnsw;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The adjacency storage of a {@link MutableHnswGraph}: every node's neighbour list per level, its
 * level, the entry point, and the writer's private scores of each list (Lucene's {@code
 * OnHeapHnswGraph} with {@code NeighborArray}, made copy-on-write so that readers need no lock).
 *
 * <p>Structure: {@code nodes[node][level]} is the node's neighbour list on that level, an immutable
 * {@code int[]} sorted by descending closeness; {@code nodes[node] == null} means absent. Level 0's
 * lists are also published in a flat table {@code level0[node]}, one dependent load closer for
 * searches, which spend most of their time there. The writer keeps each list's scores in a parallel
 * {@code float[]} that readers never see, so that pruning a full list costs one dot product per
 * entry instead of a full rescoring. The writer also keeps, per node and level, the nodes that link
 * to it ({@link #linkers}), which a delete needs since links are directed. What goes into the lists
 * (selection, links back, delete repair) is {@link HnswBuilder}'s business; this class only stores
 * and publishes.
 *
 * <p>Thread-safety: the writer methods (those documented "Writer thread") must be called by one
 * thread at a time, ordered by happens-before; every other method is safe from any thread at any
 * time and takes no lock. The publication protocol, in order:
 *
 * <ol>
 *   <li>A new node's lists are filled before {@link #publishNode} stores them; it stores level 0's
 *       list in the flat table, then the node's level array, both with release stores. A reader
 *       that acquires either sees the filled lists.
 *   <li>A published list is never modified: {@link #replaceLinks} swaps in a new array with a
 *       release store (the flat table first, then the level array); readers keep iterating their
 *       old copy, which the GC reclaims later.
 *   <li>The node tables grow by copying into a larger array and publishing it with a volatile
 *       store; the old table's entries are the same arrays, so a reader on the old table sees valid
 *       (possibly stale) lists, and never a node id at or above its table's length.
 *   <li>{@link #unpublish} clears both tables' slots with release stores; a reader that still holds
 *       the node's lists keeps valid arrays.
 * </ol>
 *
 * <p>With the vectors in {@link RowFloatSlots} (or, in a quantized store, the int8 codes in {@link
 * RowCodes}), every change of a level-0 list is also mirrored into the node's row, before the
 * tables' release stores, and searches read level 0 from there. Those copies are rewritten in place
 * (ids, then the count), so a reader of a row may see a mix of an old and a new list: every id in
 * it is a real node id, as rule 2 guarantees for the arrays.
 */
final class HnswAdjacency {
  private static final VarHandle NODE = MethodHandles.arrayElementVarHandle(int[][][].class);
  private static final VarHandle LIST = MethodHandles.arrayElementVarHandle(int[][].class);
  static final int[] NO_LINKS = new int[0];
  private static final float[] NO_SCORES = new float[0];

  private volatile int[][][] nodes = new int[64][][];
  // Level 0's lists again, one hop from the table: a search expands hundreds of level-0 nodes,
  // and nodes[node][0] costs a dependent cache miss more per expansion. Always the same arrays as
  // nodes[node][0]; written before them (release), read with acquire.
  private volatile int[][] level0 = new int[64][];
  private float[][][] scores = new float[64][][]; // writer-only, parallel to nodes
  // Writer-only reverse links: linkers[node][level] holds, from index 1 on, the nodes whose list on
  // that level names node, and at index 0 how many there are. Links are directed (a full list
  // prunes without telling the dropped node), so a delete finds who links to a node here.
  private int[][][] linkers = new int[64][][];
  // Writer-only marks of replaceLinks' difference: node ids marked with the current epoch.
  private int[] diffMark = new int[0];
  private int diffEpoch;
  // Writer-only: the nodes the last replaceLinks dropped, in the old list's order.
  private int[] removed = new int[64];
  private int removedCount;
  private volatile long entry = -1; // level << 32 | node, or -1 when empty
  private volatile int size;
  private volatile int idUpperBound;
  // Where level 0's lists are mirrored for searches, behind each node's float vector or, when the
  // graph walks int8 codes, its code; null when the vector store keeps no rows, and searches read
  // level0 instead.
  private final LinkRows rows;

  /** Adjacency whose level-0 lists are also mirrored into {@code rows}, when not null. */
  HnswAdjacency(LinkRows rows) {
    this.rows = rows;
  }

  /** The float rows level 0 is mirrored into, or null (none, or int8 code rows). */
  RowFloatSlots rows() {
    return rows instanceof RowFloatSlots r ? r : null;
  }

  /** The rows with the neighbours' 1-bit codes level 0 is mirrored into, or null. */
  InlineCodeRows inlineRows() {
    return rows instanceof InlineCodeRows r ? r : null;
  }

  /** The int8 code rows level 0 is mirrored into, or null (none, or float rows). */
  RowCodes codeRows() {
    return rows instanceof RowCodes r ? r : null;
  }

  // ---- reading side: any thread, lock-free ----------------------------------------------------

  /** Whether {@code node} is in the graph. */
  boolean contains(int node) {
    int[][][] t = nodes;
    return node >= 0 && node < t.length && NODE.getAcquire(t, node) != null;
  }

  /** The number of nodes in the graph. */
  int size() {
    return size;
  }

  /** The top level of {@code node}, or -1 when absent. */
  int level(int node) {
    int[][][] t = nodes;
    if (node < 0 || node >= t.length) {
      return -1;
    }
    int[][] lists = (int[][]) NODE.getAcquire(t, node);
    return lists == null ? -1 : lists.length - 1;
  }

  /**
   * The published neighbour list of {@code node} ({@code node ≥ 0}) on {@code level}, best first;
   * empty when the node or the level is absent. A shared immutable array: do not modify.
   */
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

  /** The entry point packed as {@code level << 32 | node}, or -1 when the graph is empty. */
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

  /** The size of the node table: an exclusive bound on node ids a reader can meet. */
  int capacity() {
    return nodes.length;
  }

  /** One more than the largest node id ever published. */
  int idUpperBound() {
    return idUpperBound;
  }

  /**
   * Approximate heap bytes of the links (with their mirror in the vector rows) and the writer's
   * scores, not the vectors.
   */
  long ramBytesUsed() {
    int[][][] t = nodes;
    long bytes = 16L + 24L * t.length; // the node tables (links, level 0, scores, diff marks)
    if (rows != null) {
      bytes += rows.linkBytes();
    }
    for (int node = 0; node < t.length; node++) {
      int[][] lists = (int[][]) NODE.getAcquire(t, node);
      if (lists != null) {
        bytes += 16L + 4L * lists.length;
        for (int level = 0; level < lists.length; level++) {
          bytes += 2 * (16L + 4L * ((int[]) LIST.getAcquire(lists, level)).length);
        }
      }
    }
    int[][][] r = linkers;
    for (int node = 0; node < r.length; node++) {
      if (r[node] != null) {
        bytes += 16L + 4L * r[node].length;
        for (int[] in : r[node]) {
          bytes += in == null ? 0 : 16L + 4L * in.length;
        }
      }
    }
    return bytes;
  }

  // ---- writer side ------------------------------------------------------------------------------

  /** The node's lists as the writer last left them, or null when absent. Writer thread. */
  int[][] lists(int node) {
    int[][][] t = nodes;
    return node < t.length ? t[node] : null;
  }

  /** The writer's scores of {@code node}'s list on {@code level}, parallel to it. Writer thread. */
  float[] scores(int node, int level) {
    return scores[node][level];
  }

  /** The writer's scores of every level of {@code node}, parallel to its lists. Writer thread. */
  float[][] scores(int node) {
    return scores[node];
  }

  /**
   * Publishes a new node with its filled lists and their scores (step 1 of the protocol), counts it
   * and raises the id bound. Nobody links to it yet. Writer thread.
   */
  void publishNode(int node, int[][] lists, float[][] listScores) {
    ensureCapacity(node);
    for (int level = 0; level < lists.length; level++) {
      for (int n : lists[level]) {
        addLinker(n, level, node);
      }
    }
    scores[node] = listScores;
    if (rows != null) {
      rows.setLinks(node, lists[0]);
    }
    LIST.setRelease(level0, node, lists[0]);
    NODE.setRelease(nodes, node, lists);
    size++;
    if (node >= idUpperBound) {
      idUpperBound = node + 1;
    }
  }

  /** Swaps in a new list for {@code node} on {@code level} (step 2). Writer thread. */
  void replaceLinks(int node, int level, int[] ids, float[] listScores) {
    int[] old = nodes[node][level];
    // Only the difference between the two lists changes the reverse links. It is found by marking
    // one list's ids, not by a search of one list per id of the other: a full level-0 list is
    // replaced on nearly every insert, and two scans of 32 × 33 ids had been 3% of a build's
    // samples (JFR, the Debian vectors).
    int inNew = nextDiffEpoch();
    int inBoth = inNew + 1;
    int[] mark = diffMark;
    for (int n : ids) {
      mark[n] = inNew;
    }
    removedCount = 0;
    for (int n : old) {
      if (mark[n] == inNew) {
        mark[n] = inBoth;
      } else {
        assert mark[n] != inBoth : node + " names " + n + " twice on level " + level;
        removeLinker(n, level, node);
        if (removedCount == removed.length) {
          removed = Arrays.copyOf(removed, 2 * removed.length);
        }
        removed[removedCount++] = n;
      }
    }
    for (int n : ids) {
      if (mark[n] == inNew) {
        addLinker(n, level, node);
      }
    }
    scores[node][level] = listScores;
    if (level == 0) {
      if (rows != null) {
        rows.setLinks(node, ids);
      }
      LIST.setRelease(level0, node, ids);
    }
    LIST.setRelease(nodes[node], level, ids);
  }

  /**
   * Makes {@code node} absent (step 4) and uncounts it; its lists stay readable to whoever holds
   * them, and to the writer through {@link #scores(int)} until {@link #dropScores}. Writer thread.
   */
  void unpublish(int node) {
    NODE.setRelease(nodes, node, (int[][]) null);
    LIST.setRelease(level0, node, (int[]) null);
    if (rows != null) {
      rows.setLinks(node, NO_LINKS); // as level0's slot: a reader that reaches it expands nothing
    }
    size--;
  }

  /**
   * Forgets that {@code node}'s {@code lists} (no longer its published lists: the node was
   * unpublished or handed over) link to anyone. Writer thread.
   */
  void forgetLinksOf(int node, int[][] lists) {
    for (int level = 0; level < lists.length; level++) {
      for (int n : lists[level]) {
        removeLinker(n, level, node);
      }
    }
  }

  /**
   * Whether {@code node}'s links {@code lists} are recorded (false once {@link #forgetLinksOf}
   * forgot them, as after a hand-over). Writer thread.
   */
  boolean recordsLinksOf(int node, int[][] lists) {
    for (int level = 0; level < lists.length; level++) {
      if (lists[level].length > 0) {
        return indexOf(linkers(lists[level][0], level), node) >= 0;
      }
    }
    return false;
  }

  /** The nodes whose list on {@code level} names {@code node}, in no order (a copy). Writer. */
  int[] linkers(int node, int level) {
    int[][] r = node < linkers.length ? linkers[node] : null;
    if (r == null || level >= r.length || r[level] == null) {
      return NO_LINKS;
    }
    return Arrays.copyOfRange(r[level], 1, 1 + r[level][0]);
  }

  /** The {@code i}-th of the {@link #linkerCount} nodes linking to {@code node}. Writer thread. */
  int linker(int node, int level, int i) {
    return linkers[node][level][1 + i];
  }

  /** How many lists on {@code level} name {@code node}. Writer thread. */
  int linkerCount(int node, int level) {
    int[][] r = node < linkers.length ? linkers[node] : null;
    return r == null || level >= r.length || r[level] == null ? 0 : r[level][0];
  }

  private void addLinker(int node, int level, int from) {
    ensureCapacity(node);
    int[][] r = linkers[node];
    if (r == null || level >= r.length) {
      r = linkers[node] = r == null ? new int[level + 1][] : Arrays.copyOf(r, level + 1);
    }
    int[] in = r[level];
    if (in == null) {
      in = r[level] = new int[9];
    } else if (in[0] + 1 == in.length) {
      in = r[level] = Arrays.copyOf(in, 2 * in.length - 1);
    }
    in[++in[0]] = from;
  }

  private void removeLinker(int node, int level, int from) {
    int[] in = linkers[node][level];
    int count = in[0];
    for (int i = 1; i <= count; i++) {
      if (in[i] == from) {
        in[i] = in[count];
        in[0] = count - 1;
        return;
      }
    }
    throw new AssertionError(from + " was not recorded as linking to " + node + " on " + level);
  }

  /** Forgets the writer's scores of a removed node. Writer thread. */
  void dropScores(int node) {
    scores[node] = null;
  }

  /** Moves the entry point. Writer thread. */
  void setEntry(long packed) {
    entry = packed;
  }

  /**
   * The highest node other than {@code except} and those in {@code skip}, packed as an entry, or
   * -1. Writer thread.
   */
  long highestNodeExcept(int except, java.util.BitSet skip) {
    int[][][] t = nodes;
    int best = -1;
    int bestLevel = -1;
    for (int n = 0; n < t.length; n++) {
      if (n != except && t[n] != null && t[n].length - 1 > bestLevel && !skip.get(n)) {
        best = n;
        bestLevel = t[n].length - 1;
      }
    }
    return packEntry(best, bestLevel);
  }

  /** How many nodes the last {@link #replaceLinks} dropped from the list. Writer thread. */
  int removedCount() {
    return removedCount;
  }

  /**
   * The {@code i}-th node the last {@link #replaceLinks} dropped from the list, in the old list's
   * order. Writer thread.
   */
  int removed(int i) {
    return removed[i];
  }

  /**
   * Two fresh marks for {@link #replaceLinks}'s difference ({@code e} and {@code e + 1}), with the
   * mark table covering every node id a list can hold.
   */
  private int nextDiffEpoch() {
    if (diffMark.length < nodes.length) {
      diffMark = new int[nodes.length];
      diffEpoch = 0;
    }
    if (diffEpoch >= Integer.MAX_VALUE - 2) {
      Arrays.fill(diffMark, 0);
      diffEpoch = 0;
    }
    diffEpoch += 2;
    return diffEpoch - 1;
  }

  private void ensureCapacity(int node) {
    int[][][] t = nodes;
    if (node >= t.length) {
      int newLength = Math.max(node + 1, t.length + (t.length >> 1));
      scores = Arrays.copyOf(scores, newLength);
      linkers = Arrays.copyOf(linkers, newLength);
      level0 = Arrays.copyOf(level0, newLength);
      nodes = Arrays.copyOf(t, newLength);
    }
  }

  // ---- copy-on-write list edits (a published list is never modified) ---------------------------

  /** The position of {@code v} in {@code a}, or -1. */
  static int indexOf(int[] a, int v) {
    for (int i = 0; i < a.length; i++) {
      if (a[i] == v) {
        return i;
      }
    }
    return -1;
  }

  static int[] insertAt(int[] a, int pos, int v) {
    int[] r = new int[a.length + 1];
    System.arraycopy(a, 0, r, 0, pos);
    r[pos] = v;
    System.arraycopy(a, pos, r, pos + 1, a.length - pos);
    return r;
  }

  static float[] insertAt(float[] a, int pos, float v) {
    float[] r = new float[a.length + 1];
    System.arraycopy(a, 0, r, 0, pos);
    r[pos] = v;
    System.arraycopy(a, pos, r, pos + 1, a.length - pos);
    return r;
  }

  static int[] removeAt(int[] a, int pos) {
    if (a.length == 1) {
      return NO_LINKS;
    }
    int[] r = new int[a.length - 1];
    System.arraycopy(a, 0, r, 0, pos);
    System.arraycopy(a, pos + 1, r, pos, a.length - pos - 1);
    return r;
  }

  static float[] removeAt(float[] a, int pos) {
    if (a.length == 1) {
      return NO_SCORES;
    }
    float[] r = new float[a.length - 1];
    System.arraycopy(a, 0, r, 0, pos);
    System.arraycopy(a, pos + 1, r, pos, a.length - pos - 1);
    return r;
  }
}
