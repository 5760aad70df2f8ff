package org.searchlab.server.service;

import java.io.IOException;
import java.util.List;
import java.util.OptionalLong;
import org.searchlab.core.IndexStats;
import org.searchlab.core.StoreHealth;

/**
 * What the cluster-level APIs ({@code _cluster/health}, {@code _stats}, {@code _nodes/stats}, an
 * asynchronous {@code _forcemerge}) need of the indexes a server holds: their names, settings,
 * health and statistics, and a force-merge and a flush of one ({@link
 * org.searchlab.server.index.RegistryView} over the server's indexes).
 *
 * <p>Thread-safety: implementations are called concurrently from the event loop ({@link #names()}
 * only, which must therefore be cheap and non-blocking) and from executor threads (everything).
 */
public interface IndicesView {
  /** The index names, sorted, without duplicates. Cheap: called on the event loop. */
  List<String> names();

  /**
   * The settings the index was created with.
   *
   * @throws IllegalArgumentException if {@code name} is not one of {@link #names()}
   */
  IndexSettings settings(String name);

  /**
   * The index store's health: whether it still takes writes ({@link StoreHealth#writable()}).
   *
   * @throws IllegalArgumentException if {@code name} is not one of {@link #names()}
   */
  StoreHealth health(String name);

  /**
   * The index store's statistics, read now.
   *
   * @throws IllegalArgumentException if {@code name} is not one of {@link #names()}
   */
  IndexStats stats(String name) throws IOException;

  /**
   * Bytes the index's files take on disk, read now, its write-ahead log excluded (Elasticsearch's
   * {@code store.size_in_bytes}, which leaves out the translog); empty when the implementation does
   * not know where the files are.
   *
   * @throws IllegalArgumentException if {@code name} is not one of {@link #names()}
   */
  OptionalLong storeBytes(String name) throws IOException;

  /**
   * The operations the index served since this server started.
   *
   * @throws IllegalArgumentException if {@code name} is not one of {@link #names()}
   */
  Operations operations(String name);

  /**
   * Force-merges the index to at most {@code maxSegments} segments; blocks until done.
   *
   * @param maxSegments 1 to 10,000; fewer is more merging
   * @throws IllegalArgumentException if {@code name} is not one of {@link #names()}
   */
  void forceMerge(String name, int maxSegments) throws IOException;

  /**
   * Commits what the index has applied and trims its write-ahead log (Elasticsearch's flush);
   * blocks until done.
   *
   * @throws IllegalArgumentException if {@code name} is not one of {@link #names()}
   */
  void flush(String name) throws IOException;

  /**
   * The settings of one index.
   *
   * @param numberOfShards primary shards, ≥ 1
   * @param numberOfReplicas replicas of each primary, ≥ 0; on one node none can be assigned, so any
   *     makes the index yellow (as Elasticsearch reports it)
   */
  record IndexSettings(int numberOfShards, int numberOfReplicas) {
    public IndexSettings {
      if (numberOfShards < 1 || numberOfReplicas < 0) {
        throw new IllegalArgumentException(
            "shards " + numberOfShards + " must be ≥ 1 and replicas " + numberOfReplicas + " ≥ 0");
      }
    }
  }

  /**
   * Operation counts of one index since the server started; each only grows.
   *
   * @param indexTotal documents indexed, created or updated (Elasticsearch's {@code index_total})
   * @param indexFailed index, create and update operations refused ({@code index_failed})
   * @param deleteTotal deletes, of present or absent documents ({@code delete_total})
   * @param noopUpdateTotal writes that changed nothing ({@code noop_update_total})
   * @param queryTotal searches and counts answered successfully ({@code query_total})
   */
  record Operations(
      long indexTotal, long indexFailed, long deleteTotal, long noopUpdateTotal, long queryTotal) {}
}
