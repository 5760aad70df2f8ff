package org.searchlab.bench.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.wal.SyncPolicy;
import org.searchlab.core.wal.WalConfig;
import org.searchlab.mutable.MutableConfig;
import org.searchlab.mutable.MutableIndex;
import org.searchlab.segmented.LuceneSegmentedIndex;
import org.searchlab.segmented.SegmentedConfig;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * Opens the stores the benchmarks compare, by name, in a temporary directory, with the write-ahead
 * log in {@code async} mode (fsync every second) so that write benchmarks measure the index and not
 * the disk; report it next to write numbers. {@code segmented} gets Elasticsearch's defaults and no
 * scheduled refresh (the benchmarks refresh when they need to). Stateless and thread-safe.
 */
final class BenchStores {
  static final WalConfig ASYNC_WAL =
      WalConfig.builder().syncPolicy(SyncPolicy.ASYNC).asyncInterval(Duration.ofSeconds(1)).build();

  private BenchStores() {}

  /** A fresh, empty store. */
  static SearchIndex open(String store, Path dir, Schema schema) throws IOException {
    return open(store, dir, schema, SegmentedConfig.DEFAULT);
  }

  /** A fresh, empty store; {@code segmented} starts from {@code base}. */
  static SearchIndex open(String store, Path dir, Schema schema, SegmentedConfig base)
      throws IOException {
    return switch (store) {
      case "segmented" ->
          LuceneSegmentedIndex.open(
              dir,
              schema,
              base.toBuilder()
                  .wal(ASYNC_WAL)
                  .refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED)
                  .build());
      case "mutable" ->
          MutableIndex.open(dir, schema, MutableConfig.builder().wal(ASYNC_WAL).build());
      default -> throw new IllegalArgumentException("unknown store '" + store + "'");
    };
  }

  /**
   * A fresh, empty store of the product mapping, opened as the server opens it: the segmented
   * store's index of the schema shortcut neither aggregates nor sorts, its index of the mapping
   * does (the mutable store's product index does both either way).
   */
  static SearchIndex openMapped(String store, Path dir, Schema schema) throws IOException {
    if (!store.equals("segmented")) {
      return open(store, dir, schema);
    }
    return LuceneSegmentedIndex.open(
        dir,
        org.searchlab.core.mapping.IndexSettings.DEFAULT,
        org.searchlab.core.mapping.Mapping.product(schema.dimension()),
        SegmentedConfig.DEFAULT.toBuilder()
            .wal(ASYNC_WAL)
            .refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED)
            .build());
  }

  /** The first {@code n} documents of the seeded synthetic corpus. */
  static List<Document> corpus(long seed, int n, int dimension) {
    SyntheticCorpus c = new SyntheticCorpus(seed, dimension);
    List<Document> docs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      docs.add(c.document(i));
    }
    return docs;
  }

  /** Bulk-loads documents in batches of 1,000 and makes them visible. */
  static void load(SearchIndex index, List<Document> docs) throws IOException {
    for (int from = 0; from < docs.size(); from += 1_000) {
      List<Operation> ops = new ArrayList<>();
      for (Document d : docs.subList(from, Math.min(docs.size(), from + 1_000))) {
        ops.add(Operation.put(d));
      }
      index.bulk(ops);
    }
    index.refresh();
  }

  static Path tempDir(String prefix) throws IOException {
    return Files.createTempDirectory("searchlab-jmh-" + prefix);
  }

  static void delete(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
