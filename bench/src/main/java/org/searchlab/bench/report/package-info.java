/**
 * Turns the rows of {@code results.jsonl} into {@code report.md} (the benchmark's tables, ratio
 * tables, the segment-count sweep, a findings paragraph generated from the numbers) and PNG plots
 * drawn with XChart (saturation curves, QPS per core, the sweep, writes, the HNSW grid); and the
 * merge-policy comparison's own report ({@link org.searchlab.bench.report.MergePolicyReport}).
 *
 * <p>Terms: throughput ratio = mutable ÷ segmented, latency ratio = segmented ÷ mutable, as the
 * benchmark computed Vespa ÷ Elasticsearch and Elasticsearch ÷ Vespa; above 1 favours mutable.
 */
package org.searchlab.bench.report;
