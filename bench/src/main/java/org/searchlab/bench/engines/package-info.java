/**
 * Real engines beside searchlab's stores. A local OpenSearch (module {@code opensearch}) is an
 * experiment variant ({@code opensearch}, {@code opensearch-forcemerged}, see {@link
 * org.searchlab.bench.experiment.Variant}), and any Elasticsearch, OpenSearch or Vespa endpoint can
 * be one with {@code --target}. The Vespa application package such a Vespa target runs is {@code
 * bench/vespa-app/} (checked by this package's tests).
 */
package org.searchlab.bench.engines;
