package org.searchlab.segmented;

import java.io.IOException;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;

/**
 * The store's Lucene directory with the deletion of a commit made durable before the deletion of
 * the files it named (finding R4 of issue 70).
 *
 * <p>Why: when a commit replaces an older one, Lucene's {@code IndexFileDeleter} deletes the old
 * {@code segments_N} first and the files only it named after, so that a crash in between cannot
 * leave an old commit that names missing files; but it forces no directory between the two. Opening
 * reads every {@code segments_N} in the directory, and one that names a missing {@code .si} fails
 * the open ({@code CorruptSegmentInfoException}). On a file system that may persist a directory's
 * entry changes out of order (POSIX allows it; ext4 and XFS keep them in order), a power cut can
 * keep the files' unlinks and lose the {@code segments_N} one, and the store then does not open. So
 * each deletion of a {@code segments_N} file is followed by a force of the directory: one more
 * directory fsync per commit, on the commit's own thread.
 *
 * <p>Thread-safe as the directory it wraps: Lucene deletes from its indexing, flushing and merging
 * threads, and {@link #deleteFile} adds no state.
 */
final class OrderedDeletesDirectory extends FilterDirectory {
  OrderedDeletesDirectory(Directory in) {
    super(in);
  }

  @Override
  public void deleteFile(String name) throws IOException {
    in.deleteFile(name);
    if (name.startsWith(IndexFileNames.SEGMENTS + "_")) {
      // The commit is gone for good before any of its files goes.
      in.syncMetaData();
    }
  }
}
