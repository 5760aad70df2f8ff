package org.searchlab.mutable.hnsw;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.FilterThresholds;

/**
 * A hierarchical navigable small world graph that is modified in place: inserts, updates and real
 * deletes (no tombstones) by one writer, searched concurrently without locks.
 *
 * <p>Thread-safety: the mutating methods ({@link #insert}, {@link #insertAll}, {@link #update},
 * {@link #remove}, {@link #writeSnapshot}) must be called by one thread at a time (the owner's
 * writer thread; calls must be ordered by happens-before). Every other method is safe from any
 * thread at any time and takes no lock: neighbour lists are immutable {@code int[]}s replaced with
 * release semantics, vectors are read from the {@link VectorStore}, and a node that vanishes under
 * a reader counts as infinitely far and is never returned.
 */
public final class MutableHnswGraph {

  /** An empty graph over {@code vectors}, which the graph writes through on insert and remove. */
  public static MutableHnswGraph create(VectorStore vectors, HnswConfig config) {
    throw new UnsupportedOperationException("not yet");
  }

  /**
   * Loads a graph and its vectors from a snapshot written by {@link #writeSnapshot}, without any
   * graph work. {@code config} supplies the build threads and thresholds; its {@code m} must equal
   * the snapshot's.
   *
   * @throws java.io.IOException on I/O errors, a bad checksum, or an unknown format version
   */
  public static MutableHnswGraph load(Path file, HnswConfig config) throws IOException {
    throw new UnsupportedOperationException("not yet");
  }

  /**
   * Writes the graph and its vectors to {@code file} (replaced atomically: written to a sibling
   * temporary file, forced, then moved). Writer thread; readers may keep searching.
   */
  public void writeSnapshot(Path file) throws IOException {
    throw new UnsupportedOperationException("not yet");
  }

  /** The vector attribute this graph reads (and writes on insert, update and remove). */
  public VectorStore vectors() {
    throw new UnsupportedOperationException("not yet");
  }

  public HnswConfig config() {
    throw new UnsupportedOperationException("not yet");
  }

  /**
   * Stores {@code vector} for {@code node} and links the node into the graph. Writer thread.
   *
   * @throws org.searchlab.core.InvalidRequestException if the node is already present, negative, or
   *     the vector has the wrong dimension
   */
  public void insert(int node, float[] vector) {
    throw new UnsupportedOperationException("not yet");
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
    throw new UnsupportedOperationException("not yet");
  }

  /**
   * Sets the vector of {@code node}: inserts it when absent, does nothing when the vector is
   * unchanged, else removes and re-inserts it. Returns whether the graph changed. Writer thread.
   */
  public boolean update(int node, float[] vector) {
    throw new UnsupportedOperationException("not yet");
  }

  /**
   * Removes {@code node} and its vector: searches starting after this returns never see it. Its
   * former neighbours drop their links to it and are reconnected to each other within capacity; if
   * it was the entry point, another node replaces it. Returns whether it was present. Writer
   * thread.
   */
  public boolean remove(int node) {
    throw new UnsupportedOperationException("not yet");
  }

  /** Whether {@code node} is in the graph. */
  public boolean contains(int node) {
    throw new UnsupportedOperationException("not yet");
  }

  /** The number of nodes in the graph. */
  public int size() {
    throw new UnsupportedOperationException("not yet");
  }

  /** The entry point of searches, or -1 when the graph is empty. */
  public int entryNode() {
    throw new UnsupportedOperationException("not yet");
  }

  /** The top level of {@code node}, or -1 when absent. */
  public int level(int node) {
    throw new UnsupportedOperationException("not yet");
  }

  /**
   * The neighbours of {@code node} on {@code level} (a shared immutable array: do not modify), or
   * an empty array when the node is absent or has no such level.
   */
  public int[] neighbors(int node, int level) {
    throw new UnsupportedOperationException("not yet");
  }

  /** A new searcher over this graph, for one thread at a time. */
  public GraphSearcher newSearcher() {
    throw new UnsupportedOperationException("not yet");
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
    throw new UnsupportedOperationException("not yet");
  }

  /** Approximate heap bytes of the graph's links (not the vectors; see {@link VectorStore}). */
  public long ramBytesUsed() {
    throw new UnsupportedOperationException("not yet");
  }
}
