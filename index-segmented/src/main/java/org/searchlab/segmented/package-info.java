/**
 * The Elasticsearch-like store on Lucene 10: {@link org.searchlab.segmented.LuceneSegmentedIndex},
 * configured by {@link org.searchlab.segmented.SegmentedConfig}.
 *
 * <p>Terms: a <em>segment</em> is an immutable Lucene index written by a flush (a refresh or a full
 * indexing buffer) or a merge; a <em>refresh</em> opens a near-real-time reader over the new
 * segments (Elasticsearch {@code refresh_interval}); a <em>flush</em> is a Lucene commit plus a
 * write-ahead log trim (Elasticsearch's flush, the translog being the core {@code WriteAheadLog});
 * <em>concurrent segment search</em> searches slices of segments on a thread pool. The HNSW graph
 * is Lucene's (Malkov &amp; Yashunin 2018), built per segment with M and beam width
 * (efConstruction) from the config; BM25 is Lucene's {@code BM25Similarity} (Robertson &amp;
 * Zaragoza 2009).
 */
package org.searchlab.segmented;
