package org.searchlab.segmented;

import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.MMapDirectory;

/**
 * The store's {@link SegmentedConfig#preload} on its Lucene directory: a file whose extension is in
 * the set (or every file, for {@link SegmentedConfig#PRELOAD_ALL}) is loaded into the page cache as
 * {@link MMapDirectory} maps it, as Elasticsearch's {@code index.store.preload} does; and a count
 * of the files it loaded ({@code preload_files_opened} in the store's stats), which is how a reader
 * tells that the setting reached the directory the store reads. An empty set leaves Lucene's own
 * default untouched. Thread-safe: the predicate runs on whichever thread opens a file, and counts
 * in an atomic.
 */
final class Preload {
  private final Set<String> extensions;
  private final AtomicLong filesLoaded = new AtomicLong();

  Preload(Set<String> extensions) {
    this.extensions = Set.copyOf(extensions);
  }

  /** Whether the file {@code name} is one to preload. */
  boolean preloads(String name) {
    if (extensions.contains(SegmentedConfig.PRELOAD_ALL)) {
      return true;
    }
    String ext = IndexFileNames.getExtension(name);
    return ext != null && extensions.contains(ext);
  }

  /**
   * Installs the predicate on {@code dir} when it maps its files and the set is not empty; a
   * directory that reads by positional reads ({@code NIOFSDirectory}, on a test file system) has
   * nothing to preload.
   */
  void applyTo(FSDirectory dir) {
    if (!extensions.isEmpty() && dir instanceof MMapDirectory mmap) {
      mmap.setPreload(this::preload);
    }
  }

  private boolean preload(String name, IOContext context) {
    boolean yes = preloads(name);
    if (yes) {
      filesLoaded.incrementAndGet();
    }
    return yes;
  }

  /** Files opened with preloading since the store opened (each opening counts: a reopen too). */
  long filesLoaded() {
    return filesLoaded.get();
  }
}
