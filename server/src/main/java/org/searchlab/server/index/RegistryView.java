package org.searchlab.server.index;

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
import org.searchlab.server.service.IndicesView;

/**
 * The cluster APIs' view of a server's {@link Indices}: each index's settings, health, statistics,
 * size on disk and operation counts (its {@link org.searchlab.server.service.SearchService}'s).
 * Thread-safe: reads the registry's concurrent map.
 */
public final class RegistryView implements IndicesView {
  /** Directories that are not an index's data: write-ahead logs and the node's own state. */
  private static final Set<String> NOT_STORE = Set.of("wal", "_state");

  private final Indices indices;
  private final Optional<Path> singleDir;

  /**
   * @param singleDir for a server of one given index, the directory its store lives in ({@link
   *     #storeBytes}); empty otherwise or when unknown
   */
  public RegistryView(Indices indices, Optional<Path> singleDir) {
    this.indices = indices;
    this.singleDir = singleDir;
  }

  private IndexHandle get(String name) {
    IndexHandle h = indices.get(name);
    if (h == null) {
      throw new IllegalArgumentException("no index [" + name + "]");
    }
    return h;
  }

  @Override
  public List<String> names() {
    return indices.all().stream().map(IndexHandle::name).toList();
  }

  @Override
  public IndexSettings settings(String name) {
    return new IndexSettings(1, get(name).settings().replicas());
  }

  @Override
  public StoreHealth health(String name) {
    return get(name).index().health();
  }

  @Override
  public IndexStats stats(String name) throws IOException {
    return get(name).index().stats();
  }

  /**
   * The sizes of the index's regular files, summed now, leaving out its write-ahead log; a file
   * deleted while the walk runs (a merge finishing) is skipped.
   */
  @Override
  public OptionalLong storeBytes(String name) throws IOException {
    IndexHandle h = get(name);
    Optional<Path> dir = h.dir() != null ? Optional.of(h.dir()) : singleDir;
    if (dir.isEmpty()) {
      return OptionalLong.empty();
    }
    long[] total = {0};
    Files.walkFileTree(
        dir.get(),
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
            return NOT_STORE.contains(d.getFileName().toString())
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
  public Operations operations(String name) {
    return get(name).service().operations();
  }

  @Override
  public void forceMerge(String name, int maxSegments) throws IOException {
    IndexHandle h = get(name);
    try (IndexHandle.Lease l = h.lease()) {
      h.service().forceMerge(maxSegments);
    }
  }

  @Override
  public void flush(String name) throws IOException {
    IndexHandle h = get(name);
    try (IndexHandle.Lease l = h.lease()) {
      h.service().flush();
    }
  }
}
