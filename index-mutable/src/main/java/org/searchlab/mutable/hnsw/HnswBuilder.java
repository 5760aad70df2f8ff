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
import org.searchlab.core.InvalidRequestException;

/**
 * The writer of a {@link MutableHnswGraph}: insertion (neighbour search, the selection heuristic,
 * links back with the heuristic re-run on full lists) and delete repair (Vespa's {@code
 * mutual_reconnect} plus a fresh neighbour search for nodes left with too few links or none to
 * them), as Lucene's {@code HnswGraphBuilder} is to {@code OnHeapHnswGraph}. It decides what goes
 * into the lists; {@link HnswAdjacency} stores and publishes them.
 *
 * <p>Links are directed, as hnswlib and Lucene keep them: when a full list drops a neighbour to
 * make room, the neighbour keeps its own link back. (Dropping it too, as Vespa does to keep links
 * symmetric, cost recall@10 at equal ef on clustered vectors: 0.841 against hnswlib's 0.864 at ef
 * 96.) A delete finds the nodes that link to the deleted one in {@link HnswAdjacency#linkers}.
 *
 * <p>Directed links need one guarantee hnswlib does without: every live node stays reachable from
 * the entry point. A re-prune may drop a node's last link to it, and re-prunes and deletes together
 * can leave a few nodes that link only to each other. So each write ends by checking every node
 * that lost a link to it ({@link #adoptOrphans}): one that nothing links to is linked from its
 * closest neighbour that can take it, and one that only a small cut-off set can reach ({@link
 * #island}) is linked from the closest reachable node ({@link #bridge}). Measured at M 3 with 2,000
 * inserts and 2,000 random deletes and re-inserts, reachability checked after every write: without
 * these checks 134 of 150 seeds left a live node unreachable (symmetric links, kept before, 125 of
 * 150); with them none did, and no node lacked a link to it.
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
  private final GraphSimilarity similarity;
  private final double levelMultiplier;
  private final SplittableRandom levelRandom;
  private final HnswSearcher writerSearcher;
  private long repairs;
  private long bridges;
  private long unbridged;
  private long sweeps;
  private long sweepBridges;

  /** Writes since the last {@link #sweep}; one runs every {@link #sweepInterval} writes. */
  private int writesSinceSweep;

  /**
   * Nodes handed over ({@link #handOver}) and not yet removed: still published, so readers already
   * on them can go on, but meant to be unreachable; a {@link #sweep} must not link them back.
   */
  private final java.util.BitSet handedOver = new java.util.BitSet();

  private int[] sweepMark = new int[0];
  private int[] sweepQueue = new int[0];
  private int sweepEpoch;

  /** The nodes {@link #bridge}d in the current write, {@code bridgedCount} of them. */
  private int[] bridged = new int[8];

  private int bridgedCount;

  /**
   * Nodes that lost a link to them on a level (a re-prune dropped them, or the node linking to them
   * was deleted), packed as {@code node << 8 | level}, {@code pendingCount} of them: the end of
   * each write checks that each is still linked and reachable ({@link #adoptOrphans}). A stack of
   * primitives, since every re-prune of an insert pushes. Writer-only.
   */
  private long[] pending = new long[64];

  private int pendingCount;

  /**
   * A node that this many nodes or more can reach (over links of any level, following them
   * backwards) is taken to be reachable from the entry point; below it, {@link #island} is exact.
   */
  static final int ISLAND_BOUND = 64;

  private final int[] islandQueue = new int[ISLAND_BOUND];
  private int[] islandMark = new int[0];
  private int islandEpoch;

  /** {@link #addLink}'s selection scratch, sized for the largest list (level 0). Writer-only. */
  private final int[] pruneIds;

  private final float[] pruneScores;
  private final float[][] pruneVectors;

  private final float[] pruneDots;

  HnswBuilder(HnswAdjacency adjacency, VectorStore vectors, HnswConfig config) {
    this.adjacency = adjacency;
    this.vectors = vectors;
    this.config = config;
    this.similarity = new GraphSimilarity(config.similarity());
    this.levelMultiplier = 1 / Math.log(config.m());
    this.levelRandom = new SplittableRandom(config.seed());
    this.writerSearcher = newBuildSearcher();
    int cap = Math.max(config.maxLinks(0), config.maxLinks(1));
    this.pruneIds = new int[cap];
    this.pruneScores = new float[cap];
    this.pruneVectors = new float[cap][];
    this.pruneDots = new float[cap];
  }

  /** A searcher over the same graph for queries, for one thread at a time. */
  HnswSearcher newSearcher() {
    return new HnswSearcher(adjacency, vectors, config);
  }

  /**
   * A searcher over the same graph for the neighbour searches of inserts, for one thread at a time:
   * it walks what queries walk, but the floats where queries walk 1-bit codes, since links chosen
   * by estimates that coarse make a worse graph.
   */
  HnswSearcher newBuildSearcher() {
    return new HnswSearcher(adjacency, vectors, config, true);
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

  /** Cut-off nodes linked back from a reachable one so far ({@link #bridge}; a diagnostic). */
  long bridges() {
    return bridges;
  }

  /**
   * Cut-off nodes left cut off by a write so far: no reachable list could make room for a link to
   * them, or a bridge in the same write cut them off again (a diagnostic; a later write that
   * touches them tries again).
   */
  long unbridged() {
    return unbridged;
  }

  /** Sweeps run so far ({@link #sweep}; a diagnostic). */
  long sweeps() {
    return sweeps;
  }

  /** Cut-off nodes the sweeps linked back so far (a diagnostic). */
  long sweepBridges() {
    return sweepBridges;
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
    int dim = vectors.dimension();
    float[][] copies = searcher.rowBuffers(config.maxLinks(0));
    for (int j = from; j < to; j++) {
      batchScores[j - from] = similarity.raw(v, vectors.row(batch[j], copies[0]), dim);
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
    float[] dots = new float[scratch.length];
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
        // The next level's beam starts from these, but not from the batch's own nodes: they are
        // not linked yet, and each is scored below anyway. Started from too, an exact twin came
        // back twice, and the strict diversity test could select it twice into one list. (When
        // the batch took every place, the entry points of this level serve again.)
        int[] linked = to > from ? linkedOnly(candIds) : candIds;
        if (linked.length > 0) {
          eps = linked;
        }
      }
      // A new node selects at most M neighbours on every level, as hnswlib and Vespa insert; level
      // 0's lists still grow to 2M through the links back (addLink). Selecting 2M at level 0, as
      // Lucene does, reached the same recall with more distances per query and a slower build.
      int max = config.m();
      int[] out = new int[max];
      float[] outScores = new float[max];
      int count =
          NeighborSelection.select(
              similarity,
              vectors,
              candIds,
              candScores,
              n,
              max,
              out,
              outScores,
              scratch,
              copies,
              dots);
      ids[l] = Arrays.copyOf(out, count);
      sc[l] = Arrays.copyOf(outScores, count);
    }
    return new Prepared(node, level, ids, sc);
  }

  /** The nodes of {@code ids} that are in the graph, in order. */
  private int[] linkedOnly(int[] ids) {
    int[] out = new int[ids.length];
    int count = 0;
    for (int id : ids) {
      if (adjacency.contains(id)) {
        out[count++] = id;
      }
    }
    return count == ids.length ? ids : Arrays.copyOf(out, count);
  }

  /** Empties {@code results} into the arrays, best first. */
  private static void popBestFirst(ScoreHeap results, int[] ids, float[] scores) {
    results.drainBestFirst(ids, scores);
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
      if (selected.length > 0 && adjacency.linkerCount(node, l) == 0) {
        // Every neighbour's list left the new node out: the closest that can take it links to it.
        push(orphan(node, l));
      }
    }
    long e = adjacency.entry();
    if (p.level() > entryLevel(e)) {
      adjacency.setEntry(packEntry(node, p.level()));
      // Searches now start at the new node: the old entry point, which needed no link to it,
      // must now have one on each of its levels and be reachable.
      for (int l = 0; l <= entryLevel(e); l++) {
        push(orphan(entryNode(e), l));
      }
    }
    adoptOrphans();
  }

  private static long orphan(int node, int level) {
    return ((long) node << 8) | level;
  }

  private void push(long o) {
    if (pendingCount == pending.length) {
      pending = Arrays.copyOf(pending, 2 * pending.length);
    }
    pending[pendingCount++] = o;
  }

  /**
   * Checks every queued node that lost a link to it. One that nothing links to on its level gets a
   * link from the closest of its own neighbours on the level whose list can take it ({@link
   * #forceLink} makes room only by dropping a node that another list also names, and queues that
   * node in turn), else by a {@link #repair} search, which ends the same way over the nodes it
   * finds. Then one that only a small cut-off set can reach is bridged ({@link #island}, {@link
   * #bridge}). hnswlib tolerates both after its re-prunes; a search here must not miss live nodes.
   */
  private void adoptOrphans() {
    drainPending();
    if (++writesSinceSweep >= sweepInterval()) {
      sweep();
    }
  }

  /**
   * Writes between two sweeps: an eighth of the graph, at least {@link #ISLAND_BOUND}, so that a
   * sweep (a walk over every link) costs a few link reads per write.
   */
  private int sweepInterval() {
    return Math.max(ISLAND_BOUND, adjacency.size() / 8);
  }

  /**
   * Links back every live node that the entry point cannot reach, as Lucene's {@code
   * HnswGraphBuilder.connectComponents} does when it finishes a graph: marks what a walk from the
   * entry point over the links of every level reaches, then for each live node left unmarked links
   * it from the closest reachable node on level 0 that can take it ({@link #forceLink}) and marks
   * what it reaches in turn. A write bridges only cut-off sets below {@link #ISLAND_BOUND} ({@link
   * #island}); larger ones, which take many identical vectors (hundreds of nodes on one point, as
   * in {@code MutableIndexConcurrencyTest}), wait for this. A link a sweep drops to make room may
   * cut a node off again, so the walk repeats until one links nothing, at most four times. Writer
   * thread; returns the live nodes the last walk found cut off (0 but for a graph whose every
   * reachable list is full of nodes nothing else links to).
   */
  int sweep() {
    writesSinceSweep = 0;
    sweeps++;
    int left = 0;
    for (int round = 0; round < 4; round++) {
      left = sweepOnce(round < 3);
      drainPending();
      if (left >= 0) {
        break;
      }
    }
    return left;
  }

  /**
   * One walk of {@link #sweep}: -1 when it linked some node back (and {@code link} was set), else
   * the live nodes it found cut off.
   */
  private int sweepOnce(boolean link) {
    int entry = entryNode(adjacency.entry());
    if (entry < 0) {
      return 0;
    }
    int bound = adjacency.idUpperBound();
    if (sweepMark.length < bound) {
      sweepMark = new int[adjacency.capacity()];
      sweepQueue = new int[adjacency.capacity()];
      sweepEpoch = 0;
    }
    if (++sweepEpoch == 0) {
      Arrays.fill(sweepMark, 0);
      sweepEpoch = 1;
    }
    int reached = mark(entry);
    if (reached == adjacency.size()) {
      return 0;
    }
    int linked = 0;
    int left = 0;
    for (int node = 0; node < bound; node++) {
      if (sweepMark[node] == sweepEpoch || !adjacency.contains(node) || handedOver.get(node)) {
        continue;
      }
      if (link && sweepBridge(node)) {
        linked++;
        reached += mark(node);
      } else {
        left++;
      }
    }
    sweepBridges += linked;
    return linked > 0 ? -1 : left;
  }

  /** Marks what {@code from} reaches that is not marked yet, over every level; their count. */
  private int mark(int from) {
    int tail = 0;
    sweepQueue[tail++] = from;
    sweepMark[from] = sweepEpoch;
    for (int head = 0; head < tail; head++) {
      int[][] lists = adjacency.lists(sweepQueue[head]);
      for (int l = 0; lists != null && l < lists.length; l++) {
        int[] list = lists[l];
        for (int x : list) {
          if (sweepMark[x] != sweepEpoch) {
            sweepMark[x] = sweepEpoch;
            sweepQueue[tail++] = x;
          }
        }
      }
    }
    return tail;
  }

  /**
   * Links the cut-off {@code node} on level 0 from the closest marked node whose list has room,
   * else from the closest one that can drop a link another list also holds; whether one did.
   */
  private boolean sweepBridge(int node) {
    Beam beam = beamFromEntry(node);
    int[] ids = beam.ids();
    float[] scores = beam.scores();
    int n = ids.length;
    int cap = config.maxLinks(0);
    for (int pass = 0; pass < 2; pass++) {
      for (int i = 0; i < n; i++) {
        int a = ids[i];
        if (a == node || sweepMark[a] != sweepEpoch) {
          continue;
        }
        if (pass == 0 && adjacency.lists(a)[0].length >= cap) {
          continue;
        }
        forceLink(a, 0, node, scores[i]);
        if (indexOf(adjacency.lists(a)[0], node) >= 0) {
          return true;
        }
      }
    }
    return false;
  }

  /** Level-0 nodes, best first, with their scores. */
  private record Beam(int[] ids, float[] scores) {}

  /**
   * The {@code efConstruction} closest nodes to {@code node}'s vector on level 0 that a search from
   * the entry point reaches (so all of them reachable), best first.
   */
  private Beam beamFromEntry(int node) {
    float[] v = vectors.get(node);
    long e = adjacency.entry();
    HnswSearcher s = writerSearcher;
    int[] eps = {s.greedyDescent(v, entryNode(e), entryLevel(e), 0)};
    s.searchLevel(v, eps, 1, config.efConstruction(), 0, AcceptBits.ALL, false, Integer.MAX_VALUE);
    ScoreHeap results = s.results();
    int n = results.size();
    int[] ids = new int[n];
    float[] scores = new float[n];
    popBestFirst(results, ids, scores);
    return new Beam(ids, scores);
  }

  /** Empties the queue of nodes that lost a link; see {@link #adoptOrphans}. */
  private void drainPending() {
    bridgedCount = 0;
    while (pendingCount > 0) {
      long o = pending[--pendingCount];
      int node = (int) (o >>> 8);
      int level = (int) (o & 0xFF);
      int[][] lists = adjacency.lists(node);
      if (lists == null || level >= lists.length || node == entryNode(adjacency.entry())) {
        continue; // gone, or the entry point, where every search starts
      }
      if (adjacency.linkerCount(node, level) == 0
          && !forceLinkFromAny(node, level, lists[level], adjacency.scores(node, level), -1)) {
        repair(node, level);
      }
      int cut = island(node);
      if (cut > 0) {
        if (bridgedThisWrite(node)) {
          // Bridged once already in this write and cut off again: leave it for a later write
          // rather than chase it; this is what makes the drain end (see #bridge).
          unbridged++;
        } else {
          bridge(node, cut);
        }
      }
    }
  }

  private boolean bridgedThisWrite(int node) {
    for (int i = 0; i < bridgedCount; i++) {
      if (bridged[i] == node) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code node} is cut off from the entry point, as the count of nodes that can reach it
   * (itself included; 0 when it is reachable): follows the links to it backwards, over every level,
   * until it meets the entry point (reachable) or {@link #ISLAND_BOUND} nodes (taken for reachable;
   * a cut-off set that large has not been seen), or runs out (cut off). A directed graph can leave
   * a few nodes that link only to each other after its re-prunes and deletes, each with a link to
   * it and none of them reachable; hnswlib accepts that, a search here should not miss live nodes.
   * The nodes found stay in {@link #islandQueue}. Writer thread.
   */
  private int island(int node) {
    int entry = entryNode(adjacency.entry());
    if (entry < 0 || node == entry || !adjacency.contains(node)) {
      return 0;
    }
    if (islandMark.length < adjacency.capacity()) {
      islandMark = Arrays.copyOf(islandMark, adjacency.capacity());
    }
    if (++islandEpoch == 0) {
      Arrays.fill(islandMark, 0);
      islandEpoch = 1;
    }
    int head = 0;
    int tail = 0;
    islandQueue[tail++] = node;
    islandMark[node] = islandEpoch;
    while (head < tail) {
      int n = islandQueue[head++];
      int levels = adjacency.lists(n).length;
      for (int l = 0; l < levels; l++) {
        for (int i = 0, c = adjacency.linkerCount(n, l); i < c; i++) {
          int x = adjacency.linker(n, l, i);
          if (x == entry) {
            return 0;
          }
          if (islandMark[x] != islandEpoch) {
            if (tail == ISLAND_BOUND) {
              return 0;
            }
            islandMark[x] = islandEpoch;
            islandQueue[tail++] = x;
          }
        }
      }
    }
    return tail;
  }

  /**
   * Links the cut-off {@code node} from the closest reachable node on level 0 that can take it (a
   * search from the entry point only meets reachable nodes), then queues the other {@code cut - 1}
   * nodes that could reach it (in {@link #islandQueue}) to be checked in turn.
   *
   * <p>The drain ends: a node is bridged at most once per write ({@link #adoptOrphans} skips one
   * cut off again); a failed bridge queues nothing; and apart from bridges, a pop queues only nodes
   * that keep a link to them ({@link #forceLink} and {@link #addLink} drop only those), whose own
   * pops queue nothing but through a bridge. Before this bound a set that no list could take
   * re-queued itself without end (the writer spun in a CI run of {@code
   * MutableIndexConcurrencyTest}, whose vectors are two points, so every node ties).
   */
  private void bridge(int node, int cut) {
    int[] others = Arrays.copyOfRange(islandQueue, 1, cut);
    bridges++;
    if (bridgedCount == bridged.length) {
      bridged = Arrays.copyOf(bridged, 2 * bridged.length);
    }
    bridged[bridgedCount++] = node;
    Beam beam = beamFromEntry(node);
    int[] ids = beam.ids();
    float[] scores = beam.scores();
    int n = ids.length;
    boolean linked = false;
    for (int i = 0; i < n && !linked; i++) {
      if (ids[i] != node) {
        forceLink(ids[i], 0, node, scores[i]);
        linked = indexOf(adjacency.lists(ids[i])[0], node) >= 0;
      }
    }
    if (!linked) {
      // No reachable list could make room: the set stays cut off until a later write. Queuing
      // the others would only find the same set again, and they would queue this node.
      unbridged++;
      return;
    }
    for (int o : others) {
      push(orphan(o, 0));
    }
  }

  /**
   * {@link #forceLink} to {@code node} from the first of {@code from[0..count)} (all of them when
   * {@code count} is -1), best first, that takes it; whether one did.
   */
  private boolean forceLinkFromAny(int node, int level, int[] from, float[] scores, int count) {
    int n = count < 0 ? from.length : count;
    for (int i = 0; i < n && adjacency.linkerCount(node, level) == 0; i++) {
      if (from[i] != node) {
        forceLink(from[i], level, node, scores[i]);
      }
    }
    return adjacency.linkerCount(node, level) > 0;
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
   * When the list is full, the selection heuristic is run again over the list plus {@code b}, and
   * keeps at most the capacity (2M on level 0, M above), as hnswlib's {@code
   * mutuallyConnectNewElement} does: the list may shrink by more than one, and {@code b} itself may
   * be left out. The dropped nodes keep their own links to {@code a}. One rule hnswlib does not
   * have: a node that only {@code a} links to on this level stays (in place of the worst node that
   * some other node links to, if the list would overflow), since without the link it could not be
   * reached on this level; hnswlib leaves such nodes unreachable.
   */
  private void addLink(int a, int level, int b, float sb) {
    int[] ids = adjacency.lists(a)[level];
    float[] sc = adjacency.scores(a, level);
    if (indexOf(ids, b) >= 0) {
      return;
    }
    int pos = position(sc, sb);
    int[] candIds = insertAt(ids, pos, b);
    float[] candScores = insertAt(sc, pos, sb);
    int cap = config.maxLinks(level);
    if (ids.length < cap) {
      adjacency.replaceLinks(a, level, candIds, candScores);
      return;
    }
    int count =
        NeighborSelection.select(
            similarity,
            vectors,
            candIds,
            candScores,
            candIds.length,
            cap,
            pruneIds,
            pruneScores,
            pruneVectors,
            writerSearcher.rowBuffers(cap),
            pruneDots);
    int[] newIds = Arrays.copyOf(pruneIds, count);
    float[] newScores = Arrays.copyOf(pruneScores, count);
    Arrays.fill(pruneVectors, 0, count, null); // hold no vector a delete has released
    for (int i = 0; i < candIds.length; i++) {
      int c = candIds[i];
      if (c != b && adjacency.linkerCount(c, level) == 1 && indexOf(newIds, c) < 0) {
        int drop = newIds.length < cap ? -1 : worstDroppable(newIds, level, b);
        if (newIds.length < cap || drop >= 0) {
          if (drop >= 0) {
            newIds = removeAt(newIds, drop);
            newScores = removeAt(newScores, drop);
          }
          int at = position(newScores, candScores[i]);
          newIds = insertAt(newIds, at, c);
          newScores = insertAt(newScores, at, candScores[i]);
        }
      }
    }
    adjacency.replaceLinks(a, level, newIds, newScores);
    for (int i = 0, dropped = adjacency.removedCount(); i < dropped; i++) {
      push(orphan(adjacency.removed(i), level));
    }
  }

  /**
   * Adds {@code a -> b} to a list that may be full, for a node {@code b} that nothing links to on
   * {@code level}: in place of the worst node that some other node links to, without selection.
   */
  private void forceLink(int a, int level, int b, float sb) {
    int[][] aLists = adjacency.lists(a);
    if (aLists == null || level >= aLists.length) {
      return;
    }
    int[] ids = aLists[level];
    float[] sc = adjacency.scores(a, level);
    if (indexOf(ids, b) >= 0) {
      return;
    }
    if (ids.length >= config.maxLinks(level)) {
      int drop = worstDroppable(ids, level, -1);
      if (drop < 0) {
        return;
      }
      push(orphan(ids[drop], level));
      ids = removeAt(ids, drop);
      sc = removeAt(sc, drop);
    }
    int at = position(sc, sb);
    adjacency.replaceLinks(a, level, insertAt(ids, at, b), insertAt(sc, at, sb));
  }

  /** Where {@code s} goes in descending {@code scores}: after every score at least as high. */
  private static int position(float[] scores, float s) {
    int pos = 0;
    while (pos < scores.length && scores[pos] >= s) {
      pos++;
    }
    return pos;
  }

  /**
   * The last entry of a list that may go without leaving its node unreachable on {@code level}:
   * {@code b} (not linked yet) or a node that more than one list names; -1 when there is none.
   */
  private int worstDroppable(int[] ids, int level, int b) {
    for (int j = ids.length - 1; j >= 0; j--) {
      if (ids[j] == b || adjacency.linkerCount(ids[j], level) > 1) {
        return j;
      }
    }
    return -1;
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
    handedOver.clear(node);
    if (adjacency.recordsLinksOf(node, lists)) {
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
   * from} stays readable to searches already on it, but nothing links to it and its own links are
   * no longer recorded as links, so {@link #remove} later drops it without repair. Writer thread.
   * The order keeps the protocol: {@code to} is published whole before any list names it.
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
      for (int n : adjacency.linkers(from, l)) {
        int[] ids = adjacency.lists(n)[l];
        int i = indexOf(ids, from);
        if (i >= 0) {
          int[] renamed = ids.clone();
          renamed[i] = to;
          adjacency.replaceLinks(n, l, renamed, adjacency.scores(n, l));
        }
      }
    }
    adjacency.forgetLinksOf(from, lists);
    handedOver.set(from);
    long e = adjacency.entry();
    if (entryNode(e) == from) {
      adjacency.setEntry(packEntry(to, entryLevel(e)));
    }
  }

  /**
   * Unlinks an unpublished node: forgets its own links, removes every link to it, and reconnects
   * the nodes it linked to and those that linked to it (remove's step 4). A node of that cluster
   * left with too few links, or with none to it on the level, is repaired by a fresh search.
   */
  private void detach(int node, int[][] lists) {
    adjacency.forgetLinksOf(node, lists);
    for (int level = 0; level < lists.length; level++) {
      for (int n : lists[level]) {
        push(orphan(n, level));
      }
    }
    for (int level = lists.length - 1; level >= 0; level--) {
      int[] linkers = adjacency.linkers(node, level);
      for (int n : linkers) {
        removeLink(n, level, node);
      }
      int[] cluster = union(lists[level], linkers);
      mutualReconnect(cluster, level);
      for (int n : cluster) {
        if (adjacency.lists(n)[level].length < minDegree(level)
            || adjacency.linkerCount(n, level) == 0) {
          repair(n, level);
        }
      }
    }
    adoptOrphans();
  }

  /** {@code a}, then the entries of {@code b} not in {@code a}. */
  private static int[] union(int[] a, int[] b) {
    int[] u = Arrays.copyOf(a, a.length + b.length);
    int n = a.length;
    for (int x : b) {
      if (indexOf(a, x) < 0) {
        u[n++] = x;
      }
    }
    return Arrays.copyOf(u, n);
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
    int dim = vectors.dimension();
    for (int i = 0; i < c; i++) {
      float[] vi = vectors.row(cluster[i]);
      int[] li = adjacency.lists(cluster[i])[level];
      for (int j = i + 1; j < c; j++) {
        if (indexOf(li, cluster[j]) < 0) {
          float s = similarity.raw(vi, vectors.row(cluster[j]), dim);
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
    if (eps[0] == node) {
      // The descent ends on the node itself (nothing is closer to its vector), whose own list on
      // this level may be empty: start from other nodes of the level instead.
      eps = seedsBesides(node, level);
      if (eps.length == 0) {
        return;
      }
    }
    s.searchLevel(
        v,
        eps,
        eps.length,
        config.efConstruction(),
        level,
        AcceptBits.ALL,
        false,
        Integer.MAX_VALUE);
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
            similarity,
            vectors,
            candIds,
            candScores,
            count,
            max,
            out,
            outScores,
            new float[max][],
            s.rowBuffers(max),
            new float[max]);
    for (int i = 0; i < selected; i++) {
      if (indexOf(adjacency.lists(node)[level], out[i]) < 0) {
        addLink(node, level, out[i], outScores[i]);
        if (indexOf(adjacency.lists(node)[level], out[i]) >= 0) {
          addLink(out[i], level, node, outScores[i]);
        }
      }
    }
    if (adjacency.linkerCount(node, level) == 0) {
      // No selected neighbour kept the link back: the closest candidate that can take it does.
      forceLinkFromAny(node, level, candIds, candScores, count);
    }
  }

  /**
   * Nodes other than {@code node} on {@code level} to start a search from: its own neighbours on
   * the lowest level from {@code level} up where it has any (a node on a level is on every level
   * below), else the highest other node if it reaches {@code level}, else none.
   */
  private int[] seedsBesides(int node, int level) {
    int[][] lists = adjacency.lists(node);
    for (int l = level; l < lists.length; l++) {
      if (lists[l].length > 0) {
        return lists[l];
      }
    }
    long h = highestLinkedExcept(node);
    return entryNode(h) >= 0 && entryLevel(h) >= level ? new int[] {entryNode(h)} : new int[0];
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
    return highestLinkedExcept(node);
  }

  /**
   * The highest node other than {@code node} that is not handed over, packed as an entry, or -1. A
   * handed-over node is still published (searches already on it may read it) and keeps its vector,
   * but nothing links to it and its removal does no repair: as an entry point or a repair's seed, a
   * search would select it and leave a link to a node about to go (issue 70's CI failure, "node 20
   * selected a vanished neighbour").
   */
  private long highestLinkedExcept(int node) {
    return adjacency.highestNodeExcept(node, handedOver);
  }
}
