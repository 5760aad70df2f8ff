package org.searchlab.server.service;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.searchlab.core.IndexStats;
import org.searchlab.core.StoreHealth;
import org.searchlab.server.metrics.ServerMetrics;

/**
 * {@link IndicesView} of a server that holds one index: the {@link SearchService} in front of its
 * store. Operation counts come from what {@link ServerMetrics} already counts: the service's feed
 * operations by type and outcome, and the dispatcher's successful {@code _search}, {@code _count}
 * (Elasticsearch) and {@code search} (Vespa) requests. Thread-safe: immutable over thread-safe
 * parts.
 */
final class SingleIndexView implements IndicesView {
  /** The data directory's subdirectories that are not the index: its log and the node's state. */
  static final Set<String> NOT_STORE = Set.of("wal", "_state");

  private static final Set<String> INDEX_OPS = Set.of("put", "create", "update");
  private static final Set<String> SEARCH_ENDPOINTS = Set.of("_search", "_count", "search");
  private static final IndexSettings SETTINGS = new IndexSettings(1, 0);

  private final String name;
  private final List<String> names;
  private final SearchService service;
  private final ServerMetrics metrics;
  private final Optional<Path> dataDir;

  SingleIndexView(
      String name, SearchService service, ServerMetrics metrics, Optional<Path> dataDir) {
    this.name = name;
    this.names = List.of(name);
    this.service = service;
    this.metrics = metrics;
    this.dataDir = dataDir;
  }

  @Override
  public List<String> names() {
    return names;
  }

  private void check(String index) {
    if (!name.equals(index)) {
      throw new IllegalArgumentException("no index [" + index + "]; this server holds " + names);
    }
  }

  /** One shard and no replicas: what {@code GET /{index}} reports as the index's settings. */
  @Override
  public IndexSettings settings(String index) {
    check(index);
    return SETTINGS;
  }

  @Override
  public StoreHealth health(String index) {
    check(index);
    return service.health();
  }

  @Override
  public IndexStats stats(String index) throws IOException {
    check(index);
    return service.stats();
  }

  /**
   * The sizes of the regular files under the data directory, summed now, leaving out the
   * write-ahead log ({@code wal/}) and the node's own state ({@code _state/}). A file deleted while
   * the walk runs (a merge finishing) is skipped.
   */
  @Override
  public OptionalLong storeBytes(String index) throws IOException {
    check(index);
    if (dataDir.isEmpty()) {
      return OptionalLong.empty();
    }
    Path root = dataDir.get();
    long[] total = {0};
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            return dir.getParent() != null
                    && dir.getParent().equals(root)
                    && NOT_STORE.contains(dir.getFileName().toString())
                ? FileVisitResult.SKIP_SUBTREE
                : FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            if (attrs.isRegularFile()) {
              total[0] += attrs.size();
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) {
            if (e instanceof NoSuchFileException) {
              return FileVisitResult.CONTINUE;
            }
            throw new UncheckedIOException(e);
          }
        });
    return OptionalLong.of(total[0]);
  }

  @Override
  public Operations operations(String index) {
    check(index);
    return new Operations(
        metrics.feedCount(INDEX_OPS, Set.of("created", "updated")),
        metrics.feedCount(INDEX_OPS, Set.of("rejected")),
        metrics.feedCount(Set.of("delete"), Set.of("deleted", "not_found")),
        metrics.feedCount(INDEX_OPS, Set.of("noop")),
        metrics.requestCount(SEARCH_ENDPOINTS, 200, 300));
  }

  @Override
  public void forceMerge(String index, int maxSegments) throws IOException {
    check(index);
    service.forceMerge(maxSegments);
  }

  @Override
  public void flush(String index) throws IOException {
    check(index);
    service.flush();
  }
}
