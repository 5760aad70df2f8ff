/**
 * The experiment runner behind {@code searchlab experiment}: it reproduces the Elasticsearch-vs-
 * Vespa e-commerce benchmark's procedure (feed, queries at 1–64 clients, force-merge, refeed,
 * partial update, refeed under query load) against each store variant running as a child server
 * process on loopback, one variant at a time, plus a segment-count sweep and an HNSW parameter
 * grid. Quality (recall@10 against exact search computed here, overlap@10 between variants) is
 * measured, never assumed. {@code --merge-policies} runs a job of its own instead ({@link
 * org.searchlab.bench.experiment.MergePolicyComparison}): the segmented store's merge policies side
 * by side, with the mutable store as the reference, their feeds watched through the store's own
 * statistics and the kernel's {@code /proc} readings.
 *
 * <p>Terms: a <em>variant</em> is a store or engine with its settings ({@code mutable}, {@code
 * segmented}, {@code segmented-forcemerged}, a real OpenSearch as child JVMs: {@code opensearch},
 * {@code opensearch-forcemerged}, or an external endpoint given with {@code --target}); a
 * <em>phase</em> is a step of the procedure; a <em>cell</em> is one measurement (one row of {@code
 * results.jsonl}); a <em>CPU source</em> is where a cell's CPU time was read ({@code /proc} of the
 * child JVMs, an engine's {@code _nodes/stats}, or {@code none}).
 */
package org.searchlab.bench.experiment;
