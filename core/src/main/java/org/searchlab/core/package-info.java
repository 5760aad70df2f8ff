/**
 * The contract both index architectures implement: records in, records out.
 *
 * <p>A {@link org.searchlab.core.SearchIndex} takes {@link org.searchlab.core.Document}s, {@link
 * org.searchlab.core.PartialUpdate}s and deletes (together, {@link org.searchlab.core.Operation}s)
 * and answers {@link org.searchlab.core.SearchRequest}s with {@link
 * org.searchlab.core.SearchResult}s. The query semantics (lexical best-fields BM25, dot-product
 * vector closeness, filters as pre-filters, hybrid by sum or reciprocal rank fusion) are defined
 * once here so that a ratio between two stores measures architecture, not scoring.
 *
 * <p>Terms: <em>acknowledged</em> means the write-ahead log record of an operation is written under
 * the configured sync policy; <em>visible</em> means a search started afterwards sees it.
 */
package org.searchlab.core;
