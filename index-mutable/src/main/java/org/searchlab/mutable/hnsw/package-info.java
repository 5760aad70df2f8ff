/**
 * A mutable HNSW graph over vectors compared by one of Elasticsearch's similarities: in-place
 * inserts, updates and real deletes by one writer thread while any number of reader threads search
 * without locks.
 *
 * <p>Terms: a <em>node</em> is a dense int local document id; its vector lives in a {@link
 * org.searchlab.mutable.hnsw.VectorStore} (the store's columnar attribute), the graph stores only
 * ints. {@code M} is the maximum number of links per node on the upper levels (2·M on level 0);
 * {@code efConstruction} is the number of candidates kept by the insert-time beam search; {@code
 * ef} is the query-time beam width. The <em>similarity</em> ({@link
 * org.searchlab.core.mapping.VectorSimilarity}, chosen by {@link
 * org.searchlab.mutable.hnsw.HnswConfig#similarity}) is {@code dot_product} (unit vectors, the
 * default), {@code l2_norm} or {@code max_inner_product} ({@code cosine} arrives normalised and is
 * {@code dot_product}); every distance, to build and to search, is that similarity's. A <em>raw
 * score</em> is what the graph orders by, higher is closer: the dot product, or for {@code l2_norm}
 * the negated squared distance ({@code GraphSimilarity}). A <em>score</em> is what a search
 * reports: the similarity's Elasticsearch {@code _score} of the raw score ({@code (1 + dot) / 2},
 * {@code 1 / (1 + d²)}, Lucene's scaled inner product).
 *
 * <p>Parts, as Lucene's {@code util.hnsw} divides them: {@code MutableHnswGraph} is the public
 * facade; {@code HnswAdjacency} stores and publishes the neighbour lists ({@code OnHeapHnswGraph},
 * {@code NeighborArray}); {@code HnswBuilder} inserts, selects neighbours and repairs deletes
 * ({@code HnswGraphBuilder}); {@code HnswSearcher} searches ({@code HnswGraphSearcher}).
 *
 * <p>Distances: the graph's own SIMD kernels through the incubator vector module ({@code
 * PanamaDots}, {@code PanamaSquares}), which sum in a fixed order so that a build is reproducible,
 * and in the beam search's inner loop score a node's unvisited neighbours eight or four at a time,
 * as Lucene's memory-mapped scorer does four ({@code BulkDot}); hits are rescored with {@link
 * org.apache.lucene.util.VectorUtil#dotProduct} or {@link
 * org.apache.lucene.util.VectorUtil#squareDistance} before they are returned.
 *
 * <p>Quantization: with {@link org.searchlab.core.VectorQuantization#INT8} the store also keeps an
 * int8 <em>code</em> per vector ({@code Int8Codes}: one scale per vector, components in [−127,
 * 127]); the beam, the greedy descent and the inserts' searches score by integer dot products of
 * codes ({@code Int8Dots}, one code per call; for {@code l2_norm} expanded into the squared
 * distance of the decoded vectors), and a search rescores its best {@code k × oversample}
 * candidates with the floats (Elasticsearch's {@code rescore_vector}). Each code heads a row that
 * also holds the node's level-0 links ({@code RowCodes}), as each float vector does in an
 * unquantized store ({@code RowFloatSlots}). With {@link org.searchlab.core.VectorQuantization#BBQ}
 * the codes are 1-bit ({@code BinaryCodes}, searched with a 4-bit query and reranked by the
 * floats), and with {@link HnswConfig#inlineCodes()} each node's level-0 row also holds its
 * neighbours' 1-bit codes ({@code InlineCodeRows}), so that an expansion estimates all its
 * neighbours from one contiguous row.
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
