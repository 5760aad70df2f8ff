package org.searchlab.bench.experiment;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code searchlab serve} settings the experiments change, and the one place that turns them
 * into the server's command-line flags. Immutable; change with the {@code withX} methods.
 *
 * @param store {@code mutable} or {@code segmented}
 * @param dimension the schema's embedding dimension ({@code --dims})
 * @param segmentPerBatch segmented: one segment per bulk request (the sweep sets it)
 * @param mergePolicyNone segmented: merge policy {@code none} instead of tiered (the sweep)
 * @param searchThreads segmented: concurrent segment search threads; {@code null} keeps the
 *     server's default (Elasticsearch's pool), 0 searches segments sequentially
 * @param hnswM HNSW max links per node, or {@code null} for the default (16)
 * @param hnswEfConstruction HNSW beam width at insert, or {@code null} for the default (200)
 * @param refreshIntervalMs segmented: refresh interval, {@code null} for the default (1 s); -1
 *     refreshes only on request
 */
public record ServerOptions(
    String store,
    int dimension,
    boolean segmentPerBatch,
    boolean mergePolicyNone,
    Integer searchThreads,
    Integer hnswM,
    Integer hnswEfConstruction,
    Integer refreshIntervalMs) {

  /** A store with all its defaults. */
  public static ServerOptions defaults(String store, int dimension) {
    return new ServerOptions(store, dimension, false, false, null, null, null, null);
  }

  public ServerOptions withSweepLayout() {
    return new ServerOptions(
        store, dimension, true, true, searchThreads, hnswM, hnswEfConstruction, refreshIntervalMs);
  }

  public ServerOptions withSearchThreads(Integer v) {
    return new ServerOptions(
        store,
        dimension,
        segmentPerBatch,
        mergePolicyNone,
        v,
        hnswM,
        hnswEfConstruction,
        refreshIntervalMs);
  }

  public ServerOptions withHnsw(int m, int efConstruction) {
    return new ServerOptions(
        store,
        dimension,
        segmentPerBatch,
        mergePolicyNone,
        searchThreads,
        m,
        efConstruction,
        refreshIntervalMs);
  }

  public ServerOptions withRefreshIntervalMs(Integer v) {
    return new ServerOptions(
        store,
        dimension,
        segmentPerBatch,
        mergePolicyNone,
        searchThreads,
        hnswM,
        hnswEfConstruction,
        v);
  }

  /** The flags after {@code serve}, without port and data directory. */
  public List<String> flags() {
    List<String> f =
        new ArrayList<>(List.of("--store", store, "--dims", Integer.toString(dimension)));
    boolean segmented = store.equals("segmented");
    if (segmented && segmentPerBatch) {
      f.add("--segment-per-batch");
    }
    if (segmented && mergePolicyNone) {
      f.addAll(List.of("--merge-policy", "none"));
    }
    if (segmented && searchThreads != null) {
      f.add("--segment-search-threads=" + searchThreads);
    }
    if (segmented && refreshIntervalMs != null) {
      f.add("--refresh-interval-ms=" + refreshIntervalMs);
    }
    if (hnswM != null) {
      f.addAll(List.of("--hnsw-m", hnswM.toString()));
    }
    if (hnswEfConstruction != null) {
      f.addAll(List.of("--ef-construction", hnswEfConstruction.toString()));
    }
    return f;
  }
}
