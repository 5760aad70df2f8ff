/**
 * Datasets for the experiments: building a product-like corpus with real sentence embeddings
 * ({@code searchlab dataset build}) and reading one back ({@link
 * org.searchlab.bench.data.Dataset#open}); growing the real Debian corpus to a million documents
 * ({@code --source debian-mixes}, {@link org.searchlab.bench.data.TangentSteps} or {@link
 * org.searchlab.bench.data.NeighbourMixes}), measuring how realistic a corpus is ({@code dataset
 * stats}: neighbour distances, local intrinsic dimension, posting lengths) and choosing the
 * generator's parameters by a held-out scale-up test ({@code dataset validate-generator};
 * docs/scale.md).
 *
 * <h2>Terms</h2>
 *
 * <ul>
 *   <li><b>ordinal</b>: a document's 0-based position in {@code docs.ndjson}; the same position in
 *       {@code vectors.fvecs} holds its embedding, and ground truth names documents by ordinal.
 *   <li><b>query</b>: built like the reference benchmark's: a document sampled with a fixed seed;
 *       its text is the first 8 words of the title with quotes removed, its vector is that
 *       document's own embedding and its filter is that document's category.
 *   <li><b>ground truth</b>: the exact top-100 documents by dot product for each query, once over
 *       all documents and once over the documents of the query's category, computed by brute force
 *       with Lucene's SIMD {@code VectorUtil}; ties are broken by the lower ordinal.
 * </ul>
 *
 * <h2>On-disk format of a dataset directory</h2>
 *
 * <pre>
 * dataset.json                 metadata ({@link org.searchlab.bench.data.DatasetInfo})
 * docs.ndjson                  one JSON object per line: id, title, description, category,
 *                              price, average_rating (no embedding)
 * vectors.fvecs                one record per document, in docs.ndjson order: little-endian
 *                              int32 dimension, then that many little-endian float32 (the TEXMEX
 *                              .fvecs format); unit length
 * queries.ndjson               one JSON object per line: query, doc_ordinal, doc_id, text, category
 * groundtruth-all.ivecs        per query, in queries.ndjson order: int32 count n (≤ 100), then n
 *                              int32 document ordinals, best first (the TEXMEX .ivecs format)
 * groundtruth-all.fvecs        the same shape with the n dot products
 * groundtruth-category.ivecs   as above, restricted to documents of the query's category
 * groundtruth-category.fvecs
 * </pre>
 *
 * The category ground truth can hold fewer than 100 entries when the category is smaller. The
 * scores are float dot products from Lucene's SIMD code; a recomputation can differ from a stored
 * score in the last bit (the JIT runs a different code path while warming up), which can only
 * reorder neighbours whose scores are within one ulp.
 *
 * <h2>Realism terms</h2>
 *
 * <ul>
 *   <li><b>k-th neighbour distance</b>: the L2 distance between a document's unit vector and its
 *       k-th nearest other document's, {@code √(2 − 2·cos)}.
 *   <li><b>LID</b>: local intrinsic dimension, the maximum-likelihood estimate from a point's 100
 *       nearest distances (Levina and Bickel 2005; Amsaleg et al. 2015); harder ANN queries have
 *       higher LID (Aumüller and Ceccarello 2019).
 *   <li><b>near-copy</b>: a nearest other document at cosine ≥ 0.99.
 *   <li><b>KS distance</b>: the two-sample Kolmogorov–Smirnov statistic, the largest gap between
 *       two empirical distribution functions, 0 to 1.
 * </ul>
 *
 * <h2>Caches</h2>
 *
 * The builder keeps a cache directory (default {@code cache} beside the output): document
 * embeddings keyed by the SHA-256 of model and text ({@code embeddings-<model>-<dim>.bin}), ground
 * truth keyed by the SHA-256 of the vectors, the queries and the categories ({@code
 * groundtruth/<hash>/}), the base neighbours of {@code debian-mixes} keyed by the vectors and K
 * ({@code neighbours-<hash>.ivecs}), and for the Debian source a copy of apt's lists ({@code
 * debian-lists/}), since a later plain {@code apt-get update} deletes the English translations. A
 * rebuild of the same data runs neither the model nor the brute-force search.
 */
package org.searchlab.bench.data;
