/**
 * {@code searchlab hnsw-bench}: the mutable HNSW graph against Lucene's HNSW in one force-merged
 * segment, on the same vectors, with the same M and beam width, one search thread each. Reports
 * recall@10 against exact search, queries per second, build throughput and vectors scored per query
 * as JSON lines.
 */
package org.searchlab.bench.hnsw;
