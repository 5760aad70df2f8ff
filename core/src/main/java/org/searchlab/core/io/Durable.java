package org.searchlab.core.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;

/**
 * Directory operations whose result survives a power cut: a directory is created and then its
 * parent forced, so the new entry is on disk before anything is written into it.
 *
 * <p>Why: {@link Files#createDirectories} makes a directory that a power cut can take back, with
 * every file later created and forced inside it (finding R1 of issue 70: a store's {@code wal/}
 * lost with acknowledged records in it). A file's fsync makes its data and its inode durable, and a
 * directory's fsync the names in it; neither covers the name of the directory itself, which lives
 * in the parent (fsync(2), "Calling fsync() does not necessarily ensure that the entry in the
 * directory containing the file has also reached disk").
 *
 * <p>Thread-safe: stateless. Concurrent callers creating the same directory both succeed, and both
 * force its parent.
 */
public final class Durable {
  private static final boolean WINDOWS =
      System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");

  private Durable() {}

  /**
   * Creates {@code dir} and each missing ancestor, from the top down, forcing the parent after each
   * one created, as {@link Files#createDirectories} does but with every new entry durable.
   * Directories that already exist are left alone and their parents not forced: an existing
   * directory was either made durable by this method or survived a restart already.
   *
   * @return {@code dir}
   * @throws FileAlreadyExistsException if {@code dir} or an ancestor exists and is not a directory
   * @throws IOException if a directory cannot be created, or its parent not forced
   */
  public static Path createDirectories(Path dir) throws IOException {
    Deque<Path> missing = new ArrayDeque<>();
    for (Path p = dir.toAbsolutePath(); p != null && !Files.isDirectory(p); p = p.getParent()) {
      missing.push(p);
    }
    while (!missing.isEmpty()) {
      Path d = missing.pop();
      try {
        Files.createDirectory(d);
      } catch (FileAlreadyExistsException e) {
        if (!Files.isDirectory(d)) {
          throw e;
        }
        // Another thread or process created it between the check and here; it may not force the
        // parent before we write into it, so force it here too.
      }
      forceDirectory(d.getParent());
    }
    return dir;
  }

  /**
   * Forces {@code dir}, so the entries created, renamed or deleted in it so far are durable.
   *
   * <p>A failure is an error, as a failed file force is: on Linux an {@code EIO} from a directory's
   * fsync means a create, rename or delete in it may not survive a power cut, and the caller must
   * not acknowledge what depends on it (finding of issue 70, step 9: the log acknowledged records
   * in a file whose name was never made durable). Two cases are not failures: Windows, which cannot
   * open a directory as a channel (Lucene's {@code IOUtils.fsync} skips directories there), and a
   * file system that refuses to fsync a directory with {@code EINVAL} or {@code EBADF} (as CIFS and
   * some FUSE file systems do; PostgreSQL's {@code fsync_fname_ext} ignores exactly these two for
   * directories and reports every other error). There is no other way to make an entry durable
   * there, and refusing to run would be worse than the durability those platforms give. Lucene
   * swallows every failed directory force in production, but asserts that none happens on Linux or
   * macOS.
   *
   * @throws IOException if the directory cannot be opened, or its force fails otherwise than as
   *     unsupported
   */
  public static void forceDirectory(Path dir) throws IOException {
    if (WINDOWS && dir.getFileSystem() == FileSystems.getDefault()) {
      return;
    }
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      try {
        d.force(true);
      } catch (IOException e) {
        if (!unsupported(e)) {
          throw e;
        }
      }
    }
  }

  /**
   * Whether a directory force failed because the file system cannot force directories: the JDK
   * reports fsync's errno as its {@code strerror} text, and EINVAL and EBADF are what fsync(2)
   * returns for a descriptor that "does not support synchronization".
   */
  static boolean unsupported(IOException e) {
    String m = e.getMessage();
    return m != null && (m.contains("Invalid argument") || m.contains("Bad file descriptor"));
  }
}
