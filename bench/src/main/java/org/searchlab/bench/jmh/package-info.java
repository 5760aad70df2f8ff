/**
 * The JMH microbenchmark suite, run with {@code searchlab jmh [regex]}: distances, HNSW search of
 * the mutable graph against a single Lucene segment, lexical top-10 in both stores, partial update,
 * bulk put, and the segmented store's query throughput against segment count and concurrent segment
 * search ({@link org.searchlab.bench.jmh.SegmentedSearchBenchmark}). Settings sit on each class
 * with the reason for each warm-up and fork choice; results are checked for correctness in the
 * set-up so that a fast wrong answer cannot win.
 */
package org.searchlab.bench.jmh;
