package org.searchlab.mutable.hnsw;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.mapping.VectorSimilarity;

/**
 * A hierarchical navigable small world graph that is modified in place: inserts, updates and real
 * deletes (no tombstones) by one writer, searched concurrently without locks.
 *
 * <p>This is the graph's public face; the work is split as Lucene splits it: {@link HnswAdjacency}
 * stores and publishes the neighbour lists (Lucene's {@code OnHeapHnswGraph} and {@code
 * NeighborArray}), {@link HnswBuilder} decides them on insert and repairs them on delete ({@code
 * HnswGraphBuilder}), {@link HnswSearcher} walks them ({@code HnswGraphSearcher}) and {@link
 * HnswSnapshot} writes and reads them.
 *
 * <p>Thread-safety: the mutating methods ({@link #insert}, {@link #insertAll}, {@link #update},
 * {@link #remove}, {@link #writeSnapshot}) must be called by one thread at a time (the owner's
 * writer thread; calls must be ordered by happens-before). Every other method is safe from any
 * thread at any time and takes no lock. Why that is safe is written, step by step, on {@link
 * HnswBuilder} (the order of a write) and {@link HnswAdjacency} (how a list is published).
 */
public final class MutableHnswGraph {
  private final HnswAdjacency adjacency;
  private final HnswBuilder builder;
  private final BatchInserter batchInserter;
  private final ThreadLocal<HnswSearcher> searchers;

  MutableHnswGraph(VectorStore vectors, HnswConfig config) {
    this.adjacency =
        new HnswAdjacency(
            vectors instanceof ArrayVectorStore store
                ? store.linkRows(
                    config.maxLinks(0),
                    config.inlineCodes(),
                    config.similarity() == VectorSimilarity.L2_NORM)
                : null);
    this.builder = new HnswBuilder(adjacency, vectors, config);
    this.batchInserter = new BatchInserter(builder);
    this.searchers = ThreadLocal.withInitial(builder::newSearcher);
  }

  /**
   * Ends the parallel insert's build threads; the next parallel insert starts new ones from the
   * thread that calls it, with that thread's nice value. Call from the writing thread.
   */
  public void releaseBuildThreads() {
    batchInserter.releaseThreads();
  }

  /** An empty graph over {@code vectors}, which the graph writes through on insert and remove. */
  public static MutableHnswGraph create(VectorStore vectors, HnswConfig config) {
    if (vectors.size() != 0) {
      throw new InvalidRequestException(
          "the vector store must start empty, it holds " + vectors.size() + " vectors");
    }
    if (vectors.quantization() != config.quantization()) {
      throw new InvalidRequestException(
          "the vector store keeps "
              + vectors.quantization().flag()
              + " vectors but the config asks for "
              + config.quantization().flag());
    }
    return new MutableHnswGraph(vectors, config);
  }

  /**
   * Loads a graph and its vectors from a snapshot written by {@link #writeSnapshot}, without any
   * graph work. {@code config} supplies the build threads, seed and thresholds; its {@code m} and
   * its similarity must equal the snapshot's.
   *
   * @throws java.io.IOException on I/O errors, a bad checksum, an unknown format version, or an
   *     {@code m} or similarity other than the config's
   */
  public static MutableHnswGraph load(Path file, HnswConfig config) throws IOException {
    return load(file, config, null);
  }

  /**
   * As {@link #load(Path, HnswConfig)}, with the float vectors of a quantized graph in a scratch
   * file under {@code scratch} ({@link VectorStore#create(int,
   * org.searchlab.core.VectorQuantization, Path)}).
   */
  public static MutableHnswGraph load(Path file, HnswConfig config, Path scratch)
      throws IOException {
    return HnswSnapshot.read(file, config, scratch);
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
    return builder.vectors();
  }

  public HnswConfig config() {
    return builder.config();
  }

  /**
   * Stores {@code vector} for {@code node} and links the node into the graph. Writer thread.
   *
   * @throws org.searchlab.core.InvalidRequestException if the node is already present, negative, or
   *     the vector has the wrong dimension
   */
  public void insert(int node, float[] vector) {
    builder.insert(node, vector);
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
    batchInserter.insertAll(nodes, vectors);
  }

  /**
   * Sets the vector of {@code node}: inserts it when absent, does nothing when the vector is
   * unchanged (bitwise), else unlinks it, swaps the vector and links it again; readers find the old
   * or the new vector, never none. Returns whether the graph changed. Writer thread.
   */
  public boolean update(int node, float[] vector) {
    VectorStore vectors = vectors();
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
    builder.replaceVector(node, vector);
    return true;
  }

  /**
   * Hands the graph node {@code from} over to the absent node {@code to}, whose vector must already
   * be stored and equal to {@code from}'s: {@code to} takes {@code from}'s place (its lists, the
   * links to it, the entry point) with no neighbour search. {@code from} stays readable to searches
   * already on it, unreachable for new ones, until {@link #remove} drops it without repair. This is
   * how a store moves a document's unchanged vector to the document's new version. Writer thread.
   *
   * @throws InvalidRequestException if {@code from} is absent or {@code to} present
   */
  public void handOver(int from, int to) {
    if (!contains(from)) {
      throw new InvalidRequestException("node " + from + " is not in the graph");
    }
    builder.handOver(from, to);
  }

  /**
   * Removes {@code node} and its vector: searches starting after this returns never see it. Its
   * former neighbours drop their links to it and are reconnected to each other within capacity
   * (Vespa's {@code mutual_reconnect}); if it was the entry point, another node replaces it.
   * Returns whether it was present. Writer thread.
   */
  public boolean remove(int node) {
    return builder.remove(node);
  }

  /** Whether {@code node} is in the graph. */
  public boolean contains(int node) {
    return adjacency.contains(node);
  }

  /** The number of nodes in the graph. */
  public int size() {
    return adjacency.size();
  }

  /** The entry point of searches, or -1 when the graph is empty. */
  public int entryNode() {
    return HnswAdjacency.entryNode(adjacency.entry());
  }

  /** The top level of {@code node}, or -1 when absent. */
  public int level(int node) {
    return adjacency.level(node);
  }

  /**
   * The neighbours of {@code node} on {@code level} (a shared immutable array: do not modify), or
   * an empty array when the node is absent or has no such level.
   */
  public int[] neighbors(int node, int level) {
    return node < 0 || level < 0 ? HnswAdjacency.NO_LINKS : adjacency.links(node, level);
  }

  /** A new searcher over this graph, for one thread at a time. */
  public GraphSearcher newSearcher() {
    return builder.newSearcher();
  }

  /**
   * Searches with this thread's searcher, showing the best {@code shown} hits; see {@link
   * GraphSearcher#search(float[], int, int, AcceptBits, int, FilterThresholds, int, int)}. Any
   * thread.
   */
  public GraphHits search(
      float[] query,
      int k,
      int ef,
      AcceptBits accept,
      int acceptedCount,
      FilterThresholds thresholds,
      int rescoreWindow,
      int shown) {
    return searchers
        .get()
        .search(query, k, ef, accept, acceptedCount, thresholds, rescoreWindow, shown);
  }

  /** A search with window 0 that shows all k hits. */
  public GraphHits search(
      float[] query,
      int k,
      int ef,
      AcceptBits accept,
      int acceptedCount,
      FilterThresholds thresholds) {
    return search(query, k, ef, accept, acceptedCount, thresholds, 0, k);
  }

  /** Unfiltered search with this thread's searcher. Any thread. */
  public GraphHits search(float[] query, int k, int ef) {
    return searchers.get().search(query, k, ef);
  }

  /** Approximate heap bytes of the graph's links (not the vectors; see {@link VectorStore}). */
  public long ramBytesUsed() {
    return adjacency.ramBytesUsed();
  }

  /**
   * Heap bytes of the rows holding the neighbours' 1-bit codes ({@link HnswConfig#inlineCodes()}),
   * 0 without them; part of {@link #ramBytesUsed()}.
   */
  public long inlineCodeBytes() {
    InlineCodeRows rows = adjacency.inlineRows();
    return rows == null ? 0 : rows.linkBytes();
  }

  /** The storage, for the snapshot reader and writer. */
  HnswAdjacency adjacency() {
    return adjacency;
  }

  /** Repairs done so far (a diagnostic for tests and stats). */
  long repairs() {
    return builder.repairs();
  }

  /** Cut-off nodes linked back from a reachable one so far (a diagnostic for tests). */
  long bridges() {
    return builder.bridges();
  }

  /**
   * Links back every live node the entry point cannot reach; writes run one every eighth of the
   * graph's size in writes (see {@code HnswBuilder#sweep}). Returns the nodes left cut off. Writer
   * thread.
   */
  int sweep() {
    return builder.sweep();
  }

  /** Sweeps run so far, and the nodes they linked back (diagnostics for tests). */
  long sweeps() {
    return builder.sweeps();
  }

  long sweepBridges() {
    return builder.sweepBridges();
  }

  /** Cut-off nodes a write had to leave cut off (a diagnostic; see {@code HnswBuilder}). */
  long unbridged() {
    return builder.unbridged();
  }
}
