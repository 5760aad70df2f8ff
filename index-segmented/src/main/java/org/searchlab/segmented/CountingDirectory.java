package org.searchlab.segmented;

import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.FilterIndexOutput;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;

/**
 * The store's Lucene directory with every byte written through it counted: the files of new
 * segments, the parts a compound file packs and that are then deleted, temporary files ({@link
 * #createTempOutput}, deleted again too: the stored fields' index while a segment is written, for
 * one), commits' {@code segments_N}, and live-documents and doc-values update files. Bytes a merge
 * writes are told apart by the thread ({@link CountingMergeScheduler#merging()}): Lucene opens some
 * of a merge's files, and some of a flush's, with the default {@link IOContext}, so the context
 * cannot tell them apart. {@link WrittenSegments} counts the segments that remain; this counts
 * everything, which is what the kernel sees the process write, and the experiment reads both.
 *
 * <p>A file is counted when its output closes, at its length then (an output never closed, because
 * its writer failed, is not counted). Each file is also counted rounded up to whole 4 KiB pages, as
 * the kernel's {@code write_bytes} counts a page once when a write first dirties it.
 *
 * <p>Thread-safe: the counters are {@link LongAdder}s; Lucene's indexing, flushing and merging
 * threads write concurrently.
 */
final class CountingDirectory extends FilterDirectory {
  /** The page size the kernel accounts written bytes in. */
  static final long PAGE = 4096;

  private final Kind merges = new Kind();
  private final Kind rest = new Kind();
  private final LongAdder temp = new LongAdder();

  CountingDirectory(Directory in) {
    super(in);
  }

  @Override
  public IndexOutput createOutput(String name, IOContext context) throws IOException {
    return new Counted(in.createOutput(name, context), kind(), false);
  }

  @Override
  public IndexOutput createTempOutput(String prefix, String suffix, IOContext context)
      throws IOException {
    return new Counted(in.createTempOutput(prefix, suffix, context), kind(), true);
  }

  private Kind kind() {
    return CountingMergeScheduler.merging() ? merges : rest;
  }

  /** All bytes written. */
  long totalBytes() {
    return merges.bytes.sum() + rest.bytes.sum();
  }

  /** All bytes written, each file rounded up to whole pages. */
  long pageBytes() {
    return merges.pages.sum() + rest.pages.sum();
  }

  /** Files written. */
  long files() {
    return merges.files.sum() + rest.files.sum();
  }

  /** Bytes written by merges, their temporary files included. */
  long mergeBytes() {
    return merges.bytes.sum();
  }

  /** Bytes written by merges, each file rounded up to whole pages. */
  long mergePageBytes() {
    return merges.pages.sum();
  }

  /** Bytes written to temporary files, by merges and otherwise (also in the figures above). */
  long tempBytes() {
    return temp.sum();
  }

  /** The counters of one kind of writer. */
  private static final class Kind {
    final LongAdder bytes = new LongAdder();
    final LongAdder pages = new LongAdder();
    final LongAdder files = new LongAdder();

    void add(long length) {
      bytes.add(length);
      pages.add((length + PAGE - 1) / PAGE * PAGE);
      files.increment();
    }
  }

  /** An output whose length is added to its kind's counter once it closed. */
  private final class Counted extends FilterIndexOutput {
    private final Kind kind;
    private final boolean isTemp;
    private boolean closed;

    Counted(IndexOutput out, Kind kind, boolean isTemp) {
      super("counted(" + out + ")", out.getName(), out);
      this.kind = kind;
      this.isTemp = isTemp;
    }

    @Override
    public void close() throws IOException {
      long bytes = out.getFilePointer();
      out.close();
      if (!closed) {
        closed = true;
        kind.add(bytes);
        if (isTemp) {
          temp.add(bytes);
        }
      }
    }
  }
}
