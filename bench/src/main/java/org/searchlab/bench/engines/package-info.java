/**
 * Real engines beside searchlab's stores. {@link org.searchlab.bench.engines.OpenSearchProbe} feeds
 * a built dataset into a local OpenSearch (module {@code opensearch}) and reports feed throughput,
 * queries per second, CPU from {@code /proc} and from the engine's own statistics, and recall@10
 * next to the segmented store's, before the experiment runner drives OpenSearch as a variant. The
 * Vespa application package the experiment's Vespa targets run is {@code bench/vespa-app/} (checked
 * by this package's tests).
 */
package org.searchlab.bench.engines;
