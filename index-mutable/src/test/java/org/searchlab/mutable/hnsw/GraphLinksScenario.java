package org.searchlab.mutable.hnsw;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.searchlab.mutable.modelcheck.ModelChecks;

/**
 * The HNSW graph's level-0 link publication, model-checked: a writer stores vectors, publishes
 * nodes and rewrites neighbour lists through the real {@link HnswAdjacency} and its mirror in the
 * vector rows ({@link RowFloatSlots}), in the order {@link HnswBuilder} writes them; readers walk
 * the graph from the entry point as a beam search does (a row, its acquired link count, then the
 * ids below it) and read the copy-on-write lists that quantized searches walk.
 *
 * <p>The writer follows a fixed script of three writes that reach every case of the mirror: a
 * node's vector replaced (a new row that must carry the links over), a list that grows after a
 * prune shrank it (its last slot still holds the pruned id), a list that grows into slots never
 * written, a full list rewritten by a prune (same length and shorter), and a row table that grows.
 * Because the script is known, the check is exact. A reader first reads how many writes are
 * complete ({@code s}); a list a node had before its current one at {@code s} can no longer be
 * acquired. Then:
 *
 * <ul>
 *   <li>the acquired count {@code c} must be the length of a list of the node that is current at
 *       {@code s} or later; the earliest such list is the oldest the reader can have acquired;
 *   <li>every id below {@code c} must be the id at that slot of that list or of a later one: the
 *       writer may rewrite the slots while the reader reads them (a mix of old and new lists is
 *       allowed, as the protocol says), but never an id from a list before the one acquired, nor a
 *       slot never written (it holds 0, which is no node's id here);
 *   <li>a copy-on-write list must be, whole, one list current at {@code s} or later;
 *   <li>a node reached through a link has a vector and is published.
 * </ul>
 *
 * <p>What each catches (ids of {@code src/test/mutations/README.md}): H1 releases the count before
 * writing the ids, so a reader acquires the new count over the old or unwritten slots; H3 does not
 * copy a replaced row's links, so a reader acquires a count of 0 for a node that has links. H2,
 * which publishes the replaced row before copying the links into it, would fail the same check, but
 * the copy is one {@code System.arraycopy}, around which Lincheck puts no thread switch, so no
 * reader comes between the two: it survives (the README's note on H2m).
 *
 * <p>Thread safety: {@link #write} is writer only (one {@code nonParallelGroup}), the reads run on
 * any thread. Public, with public operations, because Lincheck creates it and calls them by
 * reflection.
 */
@Tag("modelcheck")
@Param(name = "node", gen = IntGen.class, conf = "0:6")
public class GraphLinksScenario {
  private static final int DIMENSION = 2;
  private static final int CAPACITY = 3; // level-0 links a row holds (2M at M = 1.5, a full list)
  private static final int ENTRY = 1;

  /** Node ids; never 0, so that a slot never written (0) is no node's id. 17 grows the rows. */
  private static final int[] NODES = {1, 2, 3, 4, 5, 6, 17};

  /** One write of the script: a vector stored, or a node published with its list, or a relink. */
  private record Write(Kind kind, int node, int[] list) {}

  private enum Kind {
    VECTOR,
    PUBLISH,
    RELINK
  }

  /**
   * Before the scenario: nodes 1-5, every one reachable from 1. Node 1's list grew to capacity ([3,
   * 4, 2]) and a prune shrank it to [5, 4]: its slot 2 still holds 2. Node 2's list has only ever
   * had one id.
   */
  private static final List<Write> BEFORE =
      List.of(
          vector(1),
          publish(1),
          vector(2),
          publish(2, 1),
          relink(1, 2),
          vector(3),
          publish(3, 1, 2),
          relink(1, 3, 2),
          vector(4),
          publish(4, 3, 1),
          relink(1, 3, 4, 2),
          vector(5),
          publish(5, 1, 4),
          relink(1, 5, 4));

  /** The writer's script: one write a call, each as {@link HnswBuilder} orders its steps. */
  private static final List<List<Write>> SCRIPT =
      List.of(
          // Insert 6 and update node 1's vector (a new row that carries the links over); node 1
          // then grows back over its pruned slot, node 2 into a slot never written.
          List.of(vector(6), publish(6, 1, 2), vector(1), relink(1, 6, 5, 4), relink(2, 6, 1)),
          // A prune rewrites node 1's full list with another of the same length; insert 17 (the
          // rows' table grows) and node 2 fills up into its last slot, never written.
          List.of(relink(1, 2, 6, 5), vector(17), publish(17, 2), relink(2, 17, 6, 1)),
          // A prune rewrites node 1's full list shorter; node 2's vector is updated.
          List.of(relink(1, 17, 2), vector(2)));

  /**
   * {@code HISTORY[node]}: every list the node had, in order; first the empty row of its vector.
   */
  private static final int[][][] HISTORY = new int[NODES[NODES.length - 1] + 1][][];

  /** {@code CURRENT[node][s]}: the index in its history of its list once s writes are done. */
  private static final int[][] CURRENT = new int[HISTORY.length][SCRIPT.size() + 1];

  static {
    List<List<int[]>> history = new ArrayList<>();
    for (int node = 0; node < HISTORY.length; node++) {
      history.add(new ArrayList<>());
    }
    List<List<Write>> phases = new ArrayList<>();
    phases.add(BEFORE);
    phases.addAll(SCRIPT);
    for (int phase = 0; phase < phases.size(); phase++) {
      for (Write w : phases.get(phase)) {
        List<int[]> h = history.get(w.node());
        if (w.kind() != Kind.VECTOR || h.isEmpty()) {
          h.add(w.list());
        }
      }
      for (int node = 0; node < HISTORY.length; node++) {
        CURRENT[node][phase] = history.get(node).size() - 1;
      }
    }
    for (int node = 0; node < HISTORY.length; node++) {
      HISTORY[node] = history.get(node).toArray(new int[0][]);
    }
  }

  private final RowFloatSlots rows = new RowFloatSlots(DIMENSION);
  private final HnswAdjacency adjacency = new HnswAdjacency(rows);
  private int next; // writer only
  private volatile int done;

  public GraphLinksScenario() {
    Oracle.setUp(rows, adjacency);
  }

  /** Performs the next write of the script; returns how many are done. */
  @Operation(nonParallelGroup = "writer")
  public int write() {
    if (next < SCRIPT.size()) {
      apply(SCRIPT.get(next++), rows, adjacency);
      done = next;
    }
    return done;
  }

  private static void apply(List<Write> writes, RowFloatSlots rows, HnswAdjacency adjacency) {
    for (Write w : writes) {
      switch (w.kind()) {
        case VECTOR -> rows.put(w.node(), new float[] {w.node(), 1});
        case PUBLISH ->
            adjacency.publishNode(w.node(), new int[][] {w.list()}, new float[][] {scores(w)});
        case RELINK -> adjacency.replaceLinks(w.node(), 0, w.list(), scores(w));
      }
    }
  }

  /** Walks every node reachable from the entry point through the rows' links, checking each. */
  @Operation
  public void traverse() {
    int s = done;
    int start = HnswAdjacency.entryNode(adjacency.entry());
    int[] queue = new int[HISTORY.length];
    int head = 0;
    int tail = 0;
    boolean[] seen = new boolean[HISTORY.length];
    queue[tail++] = start;
    seen[start] = true;
    while (head < tail) {
      int node = queue[head++];
      float[] row = rows.row(node);
      if (row == null || !adjacency.contains(node)) {
        throw new IllegalStateException(
            "reached node " + node + " without a vector or unpublished");
      }
      int count = rows.linkCount(row);
      int oldest = Oracle.oldestWithLength(node, s, count);
      for (int j = 0; j < count; j++) {
        int id = rows.link(row, j);
        Oracle.checkHeld(node, s, oldest, j, count, id);
        if (!seen[id]) {
          seen[id] = true;
          queue[tail++] = id;
        }
      }
    }
  }

  /**
   * Reads node {@code NODES[k]}'s copy-on-write level-0 list; it must be one current list whole.
   */
  @Operation
  public void readList(@Param(name = "node") int k) {
    int node = NODES[k];
    int s = done;
    Oracle.checkWhole(node, s, adjacency.links(node, 0));
  }

  /**
   * The script's oracle and the state before it, kept apart so that the model checker can skip
   * them: they read only the immutable script, or run before the readers start, and a thread switch
   * inside them would only multiply the interleavings to explore.
   */
  static final class Oracle {
    private Oracle() {}

    /** Applies {@link #BEFORE} and sets the entry point. */
    static void setUp(RowFloatSlots rows, HnswAdjacency adjacency) {
      rows.reserveLinks(CAPACITY);
      apply(BEFORE, rows, adjacency);
      adjacency.setEntry(HnswAdjacency.packEntry(ENTRY, 0));
    }

    /**
     * The first list of {@code node} current at {@code s} writes or later whose length is {@code
     * count}: the oldest list whose count a reader can have acquired.
     */
    static int oldestWithLength(int node, int s, int count) {
      int[][] h = HISTORY[node];
      for (int m = Math.max(0, CURRENT[node][s]); m < h.length; m++) {
        if (h[m].length == count) {
          return m;
        }
      }
      throw new IllegalStateException(
          "node " + node + " after " + s + " writes has " + count + " links, no list that long");
    }

    /** Fails unless a list of {@code node} from {@code oldest} on holds {@code id} at slot j. */
    static void checkHeld(int node, int s, int oldest, int j, int count, int id) {
      int[][] h = HISTORY[node];
      for (int m = oldest; m < h.length; m++) {
        if (j < h[m].length && h[m][j] == id) {
          return;
        }
      }
      throw new IllegalStateException(
          "node "
              + node
              + " after "
              + s
              + " writes: slot "
              + j
              + " of "
              + count
              + " holds "
              + id
              + ", which no list since "
              + Arrays.toString(h[oldest])
              + " put there");
    }

    /** Fails unless {@code list} is, whole, a list of {@code node} current at s writes or later. */
    static void checkWhole(int node, int s, int[] list) {
      int[][] h = HISTORY[node];
      for (int m = Math.max(0, CURRENT[node][s]); m < h.length; m++) {
        if (Arrays.equals(h[m], list)) {
          return;
        }
      }
      throw new IllegalStateException(
          "node " + node + " after " + s + " writes has list " + Arrays.toString(list));
    }
  }

  private static Write vector(int node) {
    return new Write(Kind.VECTOR, node, HnswAdjacency.NO_LINKS);
  }

  private static Write publish(int node, int... list) {
    return new Write(Kind.PUBLISH, node, list);
  }

  private static Write relink(int node, int... list) {
    return new Write(Kind.RELINK, node, list);
  }

  /**
   * The writer's scores of a list: descending, as the builder keeps them; readers never see them.
   */
  private static float[] scores(Write w) {
    float[] s = new float[w.list().length];
    for (int i = 0; i < s.length; i++) {
      s[i] = 1f / (i + 1);
    }
    return s;
  }

  /**
   * The sequential specification: each write advances the script until it ends; reads return
   * normally. Thread-safe only as Lincheck uses it (one thread at a time).
   */
  public static final class Spec {
    private int done;

    public int write() {
      done = Math.min(done + 1, SCRIPT.size());
      return done;
    }

    public void traverse() {}

    public void readList(int k) {}
  }

  /**
   * Random scenarios, and the whole script against two walks and a list read: a random scenario
   * rarely runs the second and third writes while a reader walks, and the suite's bound explores
   * few random scenarios.
   */
  @Test
  void readersSeeOnlyIdsOfTheListTheyAcquiredOrLater() throws NoSuchMethodException {
    ModelChecks.Bound bound = ModelChecks.Bound.of(1, 100);
    ModelChecks.check(
        GraphLinksScenario.class,
        bound,
        ModelChecks.options(bound)
            .sequentialSpecification(Spec.class)
            .addCustomScenario(wholeScriptAgainstTwoReaders())
            .addGuarantee(
                ManagedStrategyGuaranteeKt.forClasses(Oracle.class.getName())
                    .allMethods()
                    .ignore()));
  }

  private static ExecutionScenario wholeScriptAgainstTwoReaders() throws NoSuchMethodException {
    Actor write = new Actor(GraphLinksScenario.class.getMethod("write"), List.of());
    Actor traverse = new Actor(GraphLinksScenario.class.getMethod("traverse"), List.of());
    Actor readNode2 =
        new Actor(GraphLinksScenario.class.getMethod("readList", int.class), List.of(1));
    return new ExecutionScenario(
        List.of(),
        List.of(List.of(write, write, write), List.of(traverse, traverse), List.of(readNode2)),
        List.of(),
        null);
  }
}
