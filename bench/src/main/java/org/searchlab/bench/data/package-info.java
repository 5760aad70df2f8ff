/**
 * Datasets for the experiments: building a product-like corpus with real sentence embeddings
 * ({@code searchlab dataset build}) and reading one back ({@link
 * org.searchlab.bench.data.Dataset#open}).
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
 * <h2>Caches</h2>
 *
 * The builder keeps a cache directory (default {@code cache} beside the output): document
 * embeddings keyed by the SHA-256 of model and text ({@code embeddings-<model>-<dim>.bin}), ground
 * truth keyed by the SHA-256 of the vectors, the queries and the categories ({@code
 * groundtruth/<hash>/}), and for the Debian source a copy of apt's lists ({@code debian-lists/}),
 * since a later plain {@code apt-get update} deletes the English translations. A rebuild of the
 * same data runs neither the model nor the brute-force search.
 */
package org.searchlab.bench.data;
