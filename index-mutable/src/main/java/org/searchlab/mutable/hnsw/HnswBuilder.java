// Over 500 lines: insert, removal, vector replacement and hand-over share the linking helpers.
package org.searchlab.mutable.hnsw;

import static org.searchlab.mutable.hnsw.HnswAdjacency.entryLevel;
import static org.searchlab.mutable.hnsw.HnswAdjacency.entryNode;
import static org.searchlab.mutable.hnsw.HnswAdjacency.indexOf;
import static org.searchlab.mutable.hnsw.HnswAdjacency.insertAt;
import static org.searchlab.mutable.hnsw.HnswAdjacency.packEntry;
import static org.searchlab.mutable.hnsw.HnswAdjacency.removeAt;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;
import org.searchlab.core.InvalidRequestException;

/**
 * The writer of a {@link MutableHnswGraph}: insertion (neighbour search, the selection heuristic,
 * symmetric links with pruning of full lists) and delete repair (Vespa's {@code mutual_reconnect}
 * plus a fresh neighbour search for nodes left with too few links), as Lucene's {@code
 * HnswGraphBuilder} is to {@code OnHeapHnswGraph}. It decides what goes into the lists; {@link
 * HnswAdjacency} stores and publishes them.
 *
 * <p>Links are kept symmetric, as Vespa keeps them: when a full list drops a neighbour to make
 * room, the neighbour drops the link back. That is what lets a delete find every node that links to
 * the deleted one by reading the deleted node's own lists.
 *
 * <p>Thread-safety: every method is for the graph's one writer thread (calls ordered by
 * happens-before), except {@link #prepare}, which only reads the graph and may run on build threads
 * while the writer waits ({@link BatchInserter}). Readers search concurrently without locks; the
 * order of a write that makes that safe:
 *
 * <ol>
 *   <li>A vector is stored (release) before any list that names its node is published.
 *   <li>A new node's per-level lists are filled and published ({@link HnswAdjacency#publishNode})
 *       before any neighbour's list gains a link to it, so a reader that reaches the node through a
 *       link sees its filled lists.
 *   <li>The entry point moves to a new node only after the node is linked.
 *   <li>A delete first moves the entry point if needed, then removes the vector, then unpublishes
 *       the node, then unlinks it. A search that starts after {@link #remove} returns cannot score
 *       it (its vector is gone) and so never returns it; a search already running may still pass
 *       through its stale lists, which stay valid arrays.
 * </ol>
 */
final class HnswBuilder {
  private static final int MAX_LEVEL = 30;

  private final HnswAdjacency adjacency;
  private final VectorStore vectors;
  private final HnswConfig config;
  private final double levelMultiplier;
  private final SplittableRandom levelRandom;
  private final HnswSearcher writerSearcher;
  private long repairs;

  HnswBuilder(HnswAdjacency adjacency, VectorStore vectors, HnswConfig config) {
    this.adjacency = adjacency;
    this.vectors = vectors;
    this.config = config;
    this.levelMultiplier = 1 / Math.log(config.m());
    this.levelRandom = new SplittableRandom(config.seed());
    this.writerSearcher = newSearcher();
  }

  /** A searcher over the same graph, for one thread at a time. */
  HnswSearcher newSearcher() {
    return new HnswSearcher(adjacency, vectors, config);
  }

  HnswConfig config() {
    return config;
  }

  VectorStore vectors() {
    return vectors;
  }

  /** Repairs done so far (a diagnostic for tests and stats). */
  long repairs() {
    return repairs;
  }

  void checkAbsent(int node) {
    if (node < 0) {
      throw new InvalidRequestException("node id " + node + " is negative");
    }
    if (adjacency.contains(node)) {
      throw new InvalidRequestException("node " + node + " is already in the graph");
    }
  }

  /** Stores {@code vector} for an absent {@code node} and links the node into the graph. */
  void insert(int node, float[] vector) {
    checkAbsent(node);
    vectors.set(node, vector);
    int level = randomLevel();
    link(prepare(writerSearcher, node, vectors.get(node), level, null, null, 0, 0));
  }

  /** A level drawn from the paper's distribution {@code floor(-ln(U) / ln(M))}, capped at 30. */
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
    long e = adjacency.entry();
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
        searcher.searchLevel(v, eps, eps.length, ef, l, AcceptBits.ALL, false, Integer.MAX_VALUE);
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
      popBestFirst(results, candIds, candScores);
      if (l <= epLevel && n > 0) {
        eps = candIds;
      }
      // A new node selects at most M neighbours on every level, as hnswlib and Vespa insert; level
      // 0's lists still grow to 2M through the links back (addLink). Selecting 2M at level 0, as
      // Lucene does, reached the same recall with more distances per query and a slower build.
      int max = config.m();
      int[] out = new int[max];
      float[] outScores = new float[max];
      int count =
          NeighborSelection.select(vectors, candIds, candScores, n, max, out, outScores, scratch);
      ids[l] = Arrays.copyOf(out, count);
      sc[l] = Arrays.copyOf(outScores, count);
    }
    return new Prepared(node, level, ids, sc);
  }

  /** Empties {@code results} into the arrays, best first. */
  private static void popBestFirst(ScoreHeap results, int[] ids, float[] scores) {
    for (int i = results.size() - 1; i >= 0; i--) {
      long code = results.pop();
      ids[i] = ScoreHeap.node(code);
      scores[i] = ScoreHeap.score(code);
    }
  }

  /** Phase two of an insert, on the writer: publish the node, then link its neighbours back. */
  void link(Prepared p) {
    int node = p.node();
    int[][] lists = new int[p.level() + 1][];
    float[][] listScores = new float[p.level() + 1][];
    for (int l = 0; l <= p.level(); l++) {
      lists[l] = p.ids()[l];
      listScores[l] = p.scores()[l];
      assert allPresent(lists[l]) : "node " + node + " selected a vanished neighbour";
    }
    adjacency.publishNode(node, lists, listScores);
    for (int l = 0; l <= p.level(); l++) {
      int[] selected = lists[l];
      float[] selectedScores = listScores[l];
      for (int i = 0; i < selected.length; i++) {
        addLink(selected[i], l, node, selectedScores[i]);
      }
    }
    if (p.level() > entryLevel(adjacency.entry())) {
      adjacency.setEntry(packEntry(node, p.level()));
    }
  }

  private boolean allPresent(int[] ids) {
    for (int id : ids) {
      if (!adjacency.contains(id)) {
        return false;
      }
    }
    return true;
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
    int[] ids = adjacency.lists(a)[level];
    float[] sc = adjacency.scores(a, level);
    if (indexOf(ids, b) >= 0) {
      return;
    }
    int pos = 0;
    while (pos < sc.length && sc[pos] >= sb) {
      pos++;
    }
    int cap = config.maxLinks(level);
    if (ids.length < cap) {
      adjacency.replaceLinks(a, level, insertAt(ids, pos, b), insertAt(sc, pos, sb));
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
    int at = victim < pos ? pos - 1 : pos;
    int[] newIds = insertAt(removeAt(ids, victim), at, b);
    float[] newScores = insertAt(removeAt(sc, victim), at, sb);
    adjacency.replaceLinks(a, level, newIds, newScores);
    removeLink(dropped, level, a);
  }

  /**
   * Whether dropping one link would isolate {@code node} on {@code level}: pruning never takes a
   * node's last link, because links are symmetric and an isolated node is unreachable.
   */
  private boolean isLastLink(int node, int level) {
    return adjacency.lists(node)[level].length <= 1;
  }

  private void removeLink(int a, int level, int b) {
    int[][] lists = adjacency.lists(a);
    if (lists == null || level >= lists.length) {
      return;
    }
    int i = indexOf(lists[level], b);
    if (i >= 0) {
      adjacency.replaceLinks(
          a, level, removeAt(lists[level], i), removeAt(adjacency.scores(a, level), i));
    }
  }

  /**
   * Removes {@code node} and its vector; see {@link MutableHnswGraph#remove}. Returns whether it
   * was present. A node handed over ({@link #handOver}) is only dropped: nothing links to it.
   */
  boolean remove(int node) {
    int[][] lists = node < 0 ? null : adjacency.lists(node);
    if (lists == null) {
      return false;
    }
    if (entryNode(adjacency.entry()) == node) {
      adjacency.setEntry(replacementEntry(node, lists));
    }
    vectors.remove(node);
    adjacency.unpublish(node);
    if (linkedBack(node, lists)) {
      detach(node, lists);
    }
    adjacency.dropScores(node);
    return true;
  }

  /**
   * Gives {@code node} a new vector without a moment in which it has none: unpublish and unlink it
   * (with the repair a removal does), swap the vector (readers see the old or the new array), then
   * insert it again at a freshly drawn level. Writer thread.
   */
  void replaceVector(int node, float[] vector) {
    int[][] lists = adjacency.lists(node);
    if (entryNode(adjacency.entry()) == node) {
      adjacency.setEntry(replacementEntry(node, lists));
    }
    adjacency.unpublish(node);
    detach(node, lists);
    adjacency.dropScores(node);
    vectors.set(node, vector);
    link(prepare(writerSearcher, node, vectors.get(node), randomLevel(), null, null, 0, 0));
  }

  /**
   * Hands the node {@code from} over to the absent {@code to}, whose vector is already stored and
   * equal: {@code to} takes {@code from}'s lists, every link to {@code from} is renamed, and the
   * entry point follows. No search, no selection, no pruning; the graph keeps its shape. {@code
   * from} stays readable to searches already on it, but nothing links to it, so {@link #remove}
   * later drops it without repair. Writer thread. The order keeps the protocol: {@code to} is
   * published whole before any list names it.
   */
  void handOver(int from, int to) {
    checkAbsent(to);
    int[][] lists = adjacency.lists(from);
    assert lists != null : "node " + from + " is not in the graph";
    assert Arrays.equals(vectors.get(from), vectors.get(to)) : "hand-over to another vector";
    int[][] copy = lists.clone(); // the inner lists are immutable; the outer array is not
    float[][] sc = adjacency.scores(from).clone();
    adjacency.publishNode(to, copy, sc);
    for (int l = 0; l < copy.length; l++) {
      for (int n : copy[l]) {
        int[] ids = adjacency.lists(n)[l];
        int i = indexOf(ids, from);
        if (i >= 0) {
          int[] renamed = ids.clone();
          renamed[i] = to;
          adjacency.replaceLinks(n, l, renamed, adjacency.scores(n, l));
        }
      }
    }
    long e = adjacency.entry();
    if (entryNode(e) == from) {
      adjacency.setEntry(packEntry(to, entryLevel(e)));
    }
  }

  /**
   * Whether any neighbour of {@code node} links back to it. Links are symmetric, so only a node
   * handed over has neighbours (possibly since removed) none of which link to it.
   */
  private boolean linkedBack(int node, int[][] lists) {
    for (int l = 0; l < lists.length; l++) {
      for (int n : lists[l]) {
        int[][] nl = adjacency.lists(n);
        if (nl != null && l < nl.length && indexOf(nl[l], node) >= 0) {
          return true;
        }
      }
    }
    return false;
  }

  /** Unlinks an unpublished node from its neighbours and reconnects them (remove's step 4). */
  private void detach(int node, int[][] lists) {
    for (int level = lists.length - 1; level >= 0; level--) {
      int[] cluster = lists[level];
      for (int n : cluster) {
        removeLink(n, level, node);
      }
      mutualReconnect(cluster, level);
      for (int n : cluster) {
        if (adjacency.lists(n)[level].length < minDegree(level)) {
          repair(n, level);
        }
      }
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
      int[] li = adjacency.lists(cluster[i])[level];
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
      int la = adjacency.lists(a)[level].length;
      int lb = adjacency.lists(b)[level].length;
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
    long e = adjacency.entry();
    if (entryLevel(e) < level) {
      return;
    }
    HnswSearcher s = writerSearcher;
    int[] eps = {s.greedyDescent(v, entryNode(e), entryLevel(e), level)};
    s.searchLevel(
        v, eps, 1, config.efConstruction(), level, AcceptBits.ALL, false, Integer.MAX_VALUE);
    ScoreHeap results = s.results();
    int n = results.size();
    int[] candIds = new int[n];
    float[] candScores = new float[n];
    popBestFirst(results, candIds, candScores);
    // Drop the node itself and keep the order.
    int count = 0;
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
      if (indexOf(adjacency.lists(node)[level], out[i]) < 0) {
        addLink(node, level, out[i], outScores[i]);
        if (indexOf(adjacency.lists(node)[level], out[i]) >= 0) {
          addLink(out[i], level, node, outScores[i]);
        }
      }
    }
  }

  /** The best-placed neighbour of a departing entry point, or any top node when it had none. */
  private long replacementEntry(int node, int[][] lists) {
    for (int level = lists.length - 1; level >= 0; level--) {
      int best = -1;
      int bestLevel = -1;
      for (int n : lists[level]) {
        int nl = adjacency.lists(n).length - 1;
        if (nl > bestLevel) {
          best = n;
          bestLevel = nl;
        }
      }
      if (best >= 0) {
        return packEntry(best, bestLevel);
      }
    }
    return adjacency.highestNodeExcept(node);
  }
}
