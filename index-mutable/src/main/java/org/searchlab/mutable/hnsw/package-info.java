/**
 * A mutable HNSW graph over dot-product unit vectors: in-place inserts, updates and real deletes by
 * one writer thread while any number of reader threads search without locks.
 *
 * <p>Terms: a <em>node</em> is a dense int local document id; its vector lives in a {@link
 * org.searchlab.mutable.hnsw.VectorStore} (the store's columnar attribute), the graph stores only
 * ints. {@code M} is the maximum number of links per node on the upper levels (2·M on level 0);
 * {@code efConstruction} is the number of candidates kept by the insert-time beam search; {@code
 * ef} is the query-time beam width. Scores are Lucene's {@code DOT_PRODUCT} closeness, {@code (1 +
 * dot) / 2}.
 *
 * <p>Parts, as Lucene's {@code util.hnsw} divides them: {@code MutableHnswGraph} is the public
 * facade; {@code HnswAdjacency} stores and publishes the neighbour lists ({@code OnHeapHnswGraph},
 * {@code NeighborArray}); {@code HnswBuilder} inserts, selects neighbours and repairs deletes
 * ({@code HnswGraphBuilder}); {@code HnswSearcher} searches ({@code HnswGraphSearcher}).
 *
 * <p>Distances: {@link org.apache.lucene.util.VectorUtil#dotProduct} (SIMD through the incubator
 * vector module), except in the beam search's inner loop, which scores a node's unvisited
 * neighbours eight or four at a time, as Lucene's memory-mapped scorer does four ({@code BulkDot});
 * its hits are rescored with {@code VectorUtil} before they are returned.
 *
 * <p>Quantization: with {@link org.searchlab.core.VectorQuantization#INT8} the store also keeps an
 * int8 <em>code</em> per vector ({@code Int8Codes}: one scale per vector, components in [−127,
 * 127]); the beam, the greedy descent and the inserts' searches score by integer dot products of
 * codes ({@link org.apache.lucene.util.VectorUtil#dotProduct(byte[], byte[])}), and a search
 * rescores its best {@code k × oversample} candidates with the floats (Elasticsearch's {@code
 * rescore_vector}).
 *
 * <p>References: Y. A. Malkov, D. A. Yashunin, "Efficient and robust approximate nearest neighbor
 * search using Hierarchical Navigable Small World graphs" (2016, arXiv:1603.09320): level
 * distribution, Algorithm 2 (beam search) and Algorithm 4 (neighbour selection heuristic). L. Patel
 * et al., "ACORN: Performant and Predicate-Agnostic Search Over Vector Embeddings and Structured
 * Data" (2024, arXiv:2403.04871): the two-hop filter-first expansion. Vespa's {@code HnswIndex}
 * ({@code searchlib/src/vespa/searchlib/tensor/hnsw_index.cpp}): two-phase inserts and {@code
 * mutual_reconnect} on delete.
 */
package org.searchlab.mutable.hnsw;
