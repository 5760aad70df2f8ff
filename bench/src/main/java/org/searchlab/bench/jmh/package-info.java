/**
 * JMH microbenchmarks: the segmented store's query throughput against segment count and concurrent
 * segment search ({@link org.searchlab.bench.jmh.SegmentedSearchBenchmark}).
 */
package org.searchlab.bench.jmh;
