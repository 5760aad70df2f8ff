/**
 * A real OpenSearch beside searchlab's two stores: {@link
 * org.searchlab.opensearch.OpenSearchCluster} starts one or more OpenSearch 3.5 nodes (embedded,
 * with the k-NN plugin, Lucene engine) as child JVMs on loopback and stops them; {@link
 * org.searchlab.opensearch.ProductIndex} is the benchmark's index with searchlab's analysis chain
 * and scoring; {@link org.searchlab.opensearch.OpenSearchDialect} turns a core {@code
 * SearchRequest} into OpenSearch's query language so that scores match the stores'; {@link
 * org.searchlab.opensearch.NodesCpu} reads the CPU time an Elasticsearch-compatible cluster reports
 * about itself.
 *
 * <p>Terms: a <em>node</em> is one OpenSearch JVM; a <em>cluster</em> is the nodes that found each
 * other over their transport ports. This package runs in the caller's JVM and never loads an
 * OpenSearch class (OpenSearch brings Lucene 10.3, searchlab uses 10.6): the node's own class path
 * comes from the {@code opensearch-node} module ({@link org.searchlab.opensearch.NodeClasspath}).
 */
package org.searchlab.opensearch;
