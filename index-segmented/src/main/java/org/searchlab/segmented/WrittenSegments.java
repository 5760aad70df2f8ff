package org.searchlab.segmented;

import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.SegmentInfoFormat;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;

/**
 * The segments the store's index writer wrote, and their bytes: segments written by flushes (a
 * refresh, a commit or a full indexing buffer turns buffered documents into a segment) and by
 * merges. Counted where Lucene writes a segment's {@code .si} file ({@link
 * SegmentInfoFormat#write}), which is the last file of a new segment: by then its other files are
 * final (the compound file built, when there is one), so the sum of their lengths on disk is the
 * segment's size exactly as {@code SegmentCommitInfo.sizeInBytes()} reads it later. The write's
 * {@link IOContext} says whether a flush ({@link IOContext.Context#FLUSH}) or a merge ({@link
 * IOContext.Context#MERGE}) wrote it.
 *
 * <p>Why here and not elsewhere: diffing the segments at each refresh misses a flushed segment that
 * a merge folds away before any refresh sees it (a commit or a full indexing buffer flushes without
 * a refresh) and reads sizes that later deletes changed; reading a merge's {@code
 * getMergeInfo().sizeInBytes()} once the merge returned finds no files when the merged segment was
 * dropped (all its documents deleted) or already merged away by another thread. Here every segment
 * is counted once, by the thread that wrote it, while its files certainly exist. What is not
 * counted: a live-documents ({@code .liv}) or doc-values update file written to a segment after its
 * {@code .si} (deletes that reach a segment later, or arrived while it was being flushed).
 *
 * <p>Thread-safe: the counters are {@link LongAdder}s bumped by flushing and merging threads.
 */
final class WrittenSegments {
  private final LongAdder flushed = new LongAdder();
  private final LongAdder flushedBytes = new LongAdder();
  private final LongAdder merged = new LongAdder();
  private final LongAdder mergedBytes = new LongAdder();

  /**
   * {@code codec} with the same name and formats, its segment-info writes counted. A segment it
   * writes reads back with the plain codec of that name (the files are the same).
   */
  Codec wrap(Codec codec) {
    SegmentInfoFormat counted = new Counted(codec.segmentInfoFormat());
    return new FilterCodec(codec.getName(), codec) {
      @Override
      public SegmentInfoFormat segmentInfoFormat() {
        return counted;
      }
    };
  }

  /** Segments written by flushes. */
  long flushed() {
    return flushed.sum();
  }

  /** Bytes of the segments written by flushes, each as written. */
  long flushedBytes() {
    return flushedBytes.sum();
  }

  /** Segments written by merges. */
  long merged() {
    return merged.sum();
  }

  /** Bytes of the segments written by merges, each as written. */
  long mergedBytes() {
    return mergedBytes.sum();
  }

  /** The codec's format, with every write counted once it succeeded. */
  private final class Counted extends SegmentInfoFormat {
    private final SegmentInfoFormat delegate;

    Counted(SegmentInfoFormat delegate) {
      this.delegate = delegate;
    }

    @Override
    public SegmentInfo read(Directory dir, String name, byte[] id, IOContext context)
        throws IOException {
      return delegate.read(dir, name, id, context);
    }

    @Override
    public void write(Directory dir, SegmentInfo info, IOContext context) throws IOException {
      delegate.write(dir, info, context);
      IOContext.Context kind = context.context();
      if (kind != IOContext.Context.FLUSH && kind != IOContext.Context.MERGE) {
        return; // addIndexes, which the store never calls
      }
      // The .si was just added to the files (the format adds it before writing it).
      long bytes = 0;
      for (String file : info.files()) {
        bytes += dir.fileLength(file);
      }
      if (kind == IOContext.Context.FLUSH) {
        flushed.increment();
        flushedBytes.add(bytes);
      } else {
        merged.increment();
        mergedBytes.add(bytes);
      }
    }
  }
}
