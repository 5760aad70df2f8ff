/**
 * The Elasticsearch-like store on Lucene 10: {@link org.searchlab.segmented.LuceneSegmentedIndex},
 * configured by {@link org.searchlab.segmented.SegmentedConfig}.
 *
 * <p>Terms: a <em>segment</em> is an immutable Lucene index written by a flush (a refresh or a full
 * indexing buffer) or a merge; a <em>refresh</em> opens a near-real-time reader over the new
 * segments (Elasticsearch {@code refresh_interval}); a <em>flush</em> is a Lucene commit plus a
 * write-ahead log trim (Elasticsearch's flush, the translog being the core {@code WriteAheadLog});
 * <em>concurrent segment search</em> searches slices of segments on a thread pool; the <em>live
 * version map</em> holds writes not yet refreshed so that {@code get} is real-time. The HNSW graph
 * is Lucene's (Malkov &amp; Yashunin 2018), built per segment with M and beam width
 * (efConstruction) from the config; BM25 is Lucene's {@code BM25Similarity} (Robertson &amp;
 * Zaragoza 2009).
 *
 * <p>Roles, as in the mutable store: {@code LuceneSegmentedIndex} is a thin facade; {@code
 * SegmentedOpener} opens and recovers (codec and {@code IndexWriterConfig} from the config,
 * executors, WAL replay after the committed serial); {@code SegmentedWriter} validates, logs and
 * applies writes under per-id stripe locks, commits and force-merges; {@code SegmentedSearcher}
 * runs a request on one point-in-time searcher; {@code SegmentedStats} holds the counters and
 * builds the stats report, with Elasticsearch's merge accounting from {@code
 * CountingMergeScheduler} (Lucene's merge scheduler) and the bytes flushes and merges wrote from
 * {@code WrittenSegments} (Lucene's segment-info writes); {@code SegmentedParts} holds what they
 * share.
 *
 * <p>Mappings: an index opened with an {@code IndexMapping} (through {@link
 * org.searchlab.segmented.SegmentedStoreKind}) indexes whatever it says, as Elasticsearch maps each
 * field type to Lucene ({@code MappedDocuments}); {@code LuceneQueries} and {@code MappedSearch}
 * translate the contract's query tree, kNN searches and rank into Lucene's own queries. One opened
 * with the benchmark's {@code Schema} keeps the product layout ({@code LuceneMapping}, data format
 * 1). Benchmark-shaped requests over the product fields take the query building made for them
 * either way ({@code ProductFastPath}).
 *
 * <p>Query plans reported: the vector plan is {@code hnsw}, {@code exact}, or {@code
 * hnsw:exact-fallback E/S segments} (Lucene's exact scan of selective filters, detected through its
 * {@code exactSearch} hook); the lexical plan is {@code exhaustive} or {@code lucene-block-max}
 * (the total-hits threshold was reached, so Lucene pruned).
 */
package org.searchlab.segmented;
