package org.searchlab.mutable;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.IntPredicate;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.mapping.VectorSimilarity;
import org.searchlab.mutable.hnsw.AcceptBits;
import org.searchlab.mutable.hnsw.GraphHits;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.mutable.hnsw.MutableHnswGraph;
import org.searchlab.mutable.hnsw.VectorStore;
import org.searchlab.mutable.postings.TopHits;

/**
 * The vector attribute and its HNSW graph, as the store uses them: inserts and removals by the
 * writer, and nearest-neighbour searches that either go through the graph's plan chooser (exact
 * below the approximate threshold, filter-first below the filter-first threshold, filtered HNSW
 * otherwise) or, when a request asks for {@code approximate = false}, scan exactly. Both score by
 * the similarity of the graph's {@link HnswConfig} and report its Elasticsearch {@code _score}.
 *
 * <p>Thread safety: {@link #insert}, {@link #insertAll}, {@link #remove}, {@link #handOver}, {@link
 * #replaceVector} and {@link #writeSnapshot} from the writer only; {@link #search} and {@link
 * #scan} from any thread without locks.
 */
final class VectorPart {
  private final MutableHnswGraph graph;
  private final VectorStore vectors;
  // The exact scan's score: the Lucene function of the graph's similarity, whose compare() is that
  // similarity's _score (cosine's is dot_product's, over the normalised vectors the graph holds).
  private final VectorSimilarityFunction scanScore;
  private long graphOperations;
  // Counted here, where every graph search of the index passes (plain, filtered and hybrid).
  private final org.searchlab.core.VectorVisits visits = new org.searchlab.core.VectorVisits();
  // Nodes handed over to a newer version (writer-only): their removal is a drop, not graph work.
  private final java.util.BitSet handedOver = new java.util.BitSet();

  private VectorPart(MutableHnswGraph graph, VectorStore vectors) {
    this.graph = graph;
    this.vectors = vectors;
    this.scanScore = graph.config().similarity().lucene();
  }

  /** The similarity both the graph and {@link #scan} score by. */
  VectorSimilarity similarity() {
    return graph.config().similarity();
  }

  static VectorPart create(int dimension, HnswConfig config) {
    return create(dimension, config, null);
  }

  /**
   * An empty part; with int8 codes and a {@code scratch} directory, its float vectors live in a
   * mapped scratch file there instead of on the heap ({@link VectorStore#create(int,
   * org.searchlab.core.VectorQuantization, Path)}).
   */
  static VectorPart create(int dimension, HnswConfig config, Path scratch) {
    MutableHnswGraph g =
        MutableHnswGraph.create(VectorStore.create(dimension, config, scratch), config);
    return new VectorPart(g, g.vectors());
  }

  static VectorPart load(Path file, HnswConfig config, Path scratch) throws IOException {
    MutableHnswGraph g = MutableHnswGraph.load(file, config, scratch);
    return new VectorPart(g, g.vectors());
  }

  /** Releases the vectors' scratch file, if any; after the last snapshot is written. */
  void close() throws IOException {
    vectors.close();
  }

  VectorStore vectors() {
    return vectors;
  }

  /** The graph itself (for tests and diagnostics; writes go through this class). */
  MutableHnswGraph graph() {
    return graph;
  }

  /** Writer only. */
  void insert(int id, float[] vector) {
    graph.insert(id, vector);
    graphOperations++;
  }

  /** Writer only: links many new nodes, searching for their neighbours on the build threads. */
  void insertAll(int[] ids, float[][] vecs) {
    if (ids.length == 1) {
      insert(ids[0], vecs[0]);
      return;
    }
    graph.insertAll(ids, vecs);
    graphOperations += ids.length;
  }

  /** Writer only. */
  void remove(int id) {
    boolean handed = handedOver.get(id);
    if (graph.remove(id)) {
      if (handed) {
        handedOver.clear(id); // dropped, not unlinked: nothing linked to it any more
      } else {
        graphOperations++;
      }
    } else {
      vectors.remove(id); // stored ahead of linking, but retired before its batch linked it
    }
  }

  /** Whether {@code id} is a linked graph node (not merely a stored vector). */
  boolean linked(int id) {
    return graph.contains(id);
  }

  /**
   * Writer only: moves the linked node {@code from} to {@code to}, whose equal vector is stored
   * already, with no graph search ({@link MutableHnswGraph#handOver}); not a graph operation.
   */
  void handOver(int from, int to) {
    graph.handOver(from, to);
    handedOver.set(from);
  }

  /** Writer only: a linked node's vector changes in place (unlink, swap, link). */
  void replaceVector(int id, float[] vector) {
    if (graph.update(id, vector)) {
      graphOperations++;
    }
  }

  /** Graph inserts and removals so far (writer's count; readers may see it stale). */
  long graphOperations() {
    return graphOperations;
  }

  /**
   * The searches through {@link #search} and the vectors they scored ({@link GraphHits#visited});
   * the exact scans of {@link #scan} ({@code approximate = false}) are not graph searches and are
   * not counted.
   */
  org.searchlab.core.VectorVisits visits() {
    return visits;
  }

  /** Whether vectors are indexed by a graph (always, since the graph landed). */
  boolean hasGraph() {
    return true;
  }

  void writeSnapshot(Path file) throws IOException {
    graph.writeSnapshot(file);
  }

  /** Heap bytes of the float vectors (and their id table), without the codes. */
  long vectorBytes() {
    return vectors.ramBytesUsed() - vectors.quantizedBytes();
  }

  /** Bytes of the scratch file mapping the float vectors (page cache), 0 when on the heap. */
  long mappedVectorBytes() {
    return vectors.mappedBytes();
  }

  /** Heap bytes of the codes: int8 (kept in every mode) and, with bbq, the 1-bit ones. */
  long quantizedBytes() {
    return vectors.quantizedBytes();
  }

  /** Heap bytes of the 1-bit codes the graph walks with bbq (0 otherwise), within the codes'. */
  long lowBitBytes() {
    return vectors.lowBitBytes();
  }

  /** Vectors held (linked or stored ahead of linking). */
  int vectorCount() {
    return vectors.size();
  }

  /** Heap bytes of the graph's links, without {@link #inlineBytes()}. */
  long graphBytes() {
    return graph.ramBytesUsed() - graph.inlineCodeBytes();
  }

  /**
   * Heap bytes of the rows with the neighbours' 1-bit codes the graph walks with {@code
   * --inline-codes} (their links included), 0 without them.
   */
  long inlineBytes() {
    return graph.inlineCodeBytes();
  }

  /**
   * Hits of the vector part, best first, and the plan; {@code found} counts all the hits the part
   * found (at most k), of which {@code docs} may hold only the best shown ones.
   */
  record Result(int[] docs, float[] scores, String plan, int found) {
    Result(int[] docs, float[] scores, String plan) {
      this(docs, scores, plan, docs.length);
    }
  }

  /**
   * The approximate top {@code k} by the similarity's score among ids that {@code accept} takes,
   * through the graph's plan chooser.
   *
   * @param acceptedCount how many ids {@code accept} takes (for the hit ratio)
   * @param rescoreWindow over int8 codes, the candidates rescored by their floats; 0 for the
   *     graph's {@code k × oversample}
   * @param shown how many of the best hits the caller reads, in [1, k]; the result holds at least
   *     these and counts all
   */
  Result search(
      float[] query,
      int k,
      int ef,
      AcceptBits accept,
      int acceptedCount,
      FilterThresholds thresholds,
      int rescoreWindow,
      int shown) {
    GraphHits hits =
        graph.search(query, k, ef, accept, acceptedCount, thresholds, rescoreWindow, shown);
    visits.searched(hits.visited());
    return new Result(hits.nodes(), hits.scores(), hits.plan(), hits.found());
  }

  /**
   * The exact top {@code k} among the given candidate ids that {@code accept} takes, scored by the
   * similarity's Lucene function ({@link VectorSimilarity#lucene}) as the segmented store scores:
   * the same {@code _score} the graph reports ({@link VectorSimilarity#fromRaw} of Lucene's dot
   * product or squared distance). The query arrives as the vectors did ({@code cosine}'s normalised
   * by the caller), so {@link VectorSimilarity#score}, which would normalise both again, is not
   * used. A row that holds more than the vector (its node's links follow it) is copied into one
   * buffer first, since that score needs an array of the vector's length; {@link VectorStore#get}
   * would allocate a copy per candidate.
   */
  TopHits scan(float[] query, int k, IdStream candidates, IntPredicate accept) {
    TopHits top = new TopHits(k);
    float[] buffer = new float[vectors.dimension()];
    for (int d = candidates.next(); d >= 0; d = candidates.next()) {
      if (!accept.test(d)) {
        continue;
      }
      float[] v = vectors.row(d);
      if (v != null) {
        if (v.length != buffer.length) {
          System.arraycopy(v, 0, buffer, 0, buffer.length);
          v = buffer;
        }
        top.insert(d, scanScore.compare(query, v));
      }
    }
    return top;
  }

  /** Ascending local ids, −1 at the end. Not thread-safe. */
  interface IdStream {
    int next();
  }
}
