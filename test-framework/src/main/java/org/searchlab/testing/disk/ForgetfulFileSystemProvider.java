package org.searchlab.testing.disk;

import java.io.IOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.spi.FileSystemProvider;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The provider of one {@link ForgetfulFileSystem}: each operation maps its {@link ForgetfulPath}s
 * to real paths, delegates to the default provider and, if that succeeded, tells the {@link
 * DiskModel}. Writing operations hold the model's monitor around both, so each is atomic with
 * respect to a cut; after a cut every operation throws. Paths outside the file system's root may be
 * read, not written. Not modelled, so refused: {@code copy}, {@code setAttribute}, {@code
 * DELETE_ON_CLOSE}, links.
 *
 * <p>Thread-safe.
 */
final class ForgetfulFileSystemProvider extends FileSystemProvider {
  private final ForgetfulFileSystem fs;
  private final DiskModel model;
  private final FileSystemProvider real = FileSystems.getDefault().provider();

  ForgetfulFileSystemProvider(ForgetfulFileSystem fs) {
    this.fs = fs;
    this.model = fs.model();
  }

  private Path unwrap(Path p) {
    if (p instanceof ForgetfulPath f && f.fs == fs) {
      return f.delegate;
    }
    throw new ProviderMismatchException("not a path of this forgetful file system: " + p);
  }

  /** Where a real path sits in the model: its parent's inode (−1 if none), name and inode (−1). */
  private record Place(long parent, String name, long inode) {}

  /** The place of {@code real}, or {@code null} when it lies outside the root. */
  private Place place(Path real) {
    Path abs = real.toAbsolutePath().normalize();
    Path root = fs.realRoot();
    if (!abs.startsWith(root)) {
      return null;
    }
    if (abs.equals(root)) {
      return new Place(-1, null, DiskModel.ROOT);
    }
    Path rel = root.relativize(abs);
    long dir = DiskModel.ROOT;
    for (int i = 0; i < rel.getNameCount() - 1 && dir >= 0; i++) {
      dir = model.lookup(dir, rel.getName(i).toString());
    }
    String name = rel.getFileName().toString();
    return new Place(dir, name, dir < 0 ? -1 : model.lookup(dir, name));
  }

  /** The place of {@code real}, which is about to be changed; it must lie inside the root. */
  private Place writablePlace(Path real) throws IOException {
    Place at = place(real);
    if (at == null) {
      throw new IOException(
          real
              + " is outside the forgetful file system's root "
              + fs.realRoot()
              + ": not modelled");
    }
    return at;
  }

  /** The parent inode of a path the real file system just changed. */
  private static long parentOf(Place at, Path real) {
    if (at.parent < 0) {
      throw new IllegalStateException(
          "the model is out of step with the real tree: no directory holds " + real);
    }
    return at.parent;
  }

  @Override
  public String getScheme() {
    return ForgetfulFileSystem.SCHEME;
  }

  @Override
  public FileSystem newFileSystem(URI uri, Map<String, ?> env) {
    throw new UnsupportedOperationException("use ForgetfulFileSystem.over(realRoot, options)");
  }

  @Override
  public FileSystem getFileSystem(URI uri) {
    throw new UnsupportedOperationException("forgetful file systems are not looked up by URI");
  }

  @Override
  public Path getPath(URI uri) {
    if (!getScheme().equalsIgnoreCase(uri.getScheme())) {
      throw new IllegalArgumentException("not a " + getScheme() + " URI: " + uri);
    }
    return fs.getPath(uri.getPath());
  }

  @Override
  public SeekableByteChannel newByteChannel(
      Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs) throws IOException {
    return newFileChannel(path, options, attrs);
  }

  @Override
  public FileChannel newFileChannel(
      Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs) throws IOException {
    Path r = unwrap(path);
    if (options.contains(StandardOpenOption.DELETE_ON_CLOSE)) {
      throw new UnsupportedOperationException("DELETE_ON_CLOSE is not modelled: " + path);
    }
    boolean writes =
        options.contains(StandardOpenOption.WRITE) || options.contains(StandardOpenOption.APPEND);
    synchronized (model) {
      model.checkNotCut();
      Place at = place(r);
      if (at == null) {
        if (writes) {
          writablePlace(r); // throws
        }
        return real.newFileChannel(r, options, attrs);
      }
      FileChannel ch = real.newFileChannel(r, options, attrs);
      try {
        long inode = at.inode;
        if (inode < 0) {
          inode = model.create(parentOf(at, r), at.name);
        } else if (writes
            && options.contains(StandardOpenOption.TRUNCATE_EXISTING)
            && !model.isDirectory(inode)) {
          model.truncate(inode, 0);
        }
        return new ForgetfulChannel(
            ch,
            fs,
            path,
            model,
            inode,
            model.isDirectory(inode),
            options.contains(StandardOpenOption.APPEND),
            model.options().realFsync());
      } catch (IOException | RuntimeException e) {
        ch.close();
        throw e;
      }
    }
  }

  @Override
  public DirectoryStream<Path> newDirectoryStream(
      Path dir, DirectoryStream.Filter<? super Path> filter) throws IOException {
    model.checkNotCut();
    DirectoryStream<Path> entries =
        real.newDirectoryStream(unwrap(dir), e -> filter.accept(new ForgetfulPath(fs, e)));
    return new DirectoryStream<>() {
      @Override
      public Iterator<Path> iterator() {
        Iterator<Path> it = entries.iterator();
        return new Iterator<>() {
          @Override
          public boolean hasNext() {
            return it.hasNext();
          }

          @Override
          public Path next() {
            return new ForgetfulPath(fs, it.next());
          }
        };
      }

      @Override
      public void close() throws IOException {
        entries.close();
      }
    };
  }

  @Override
  public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
    Path r = unwrap(dir);
    synchronized (model) {
      model.checkNotCut();
      Place at = writablePlace(r);
      real.createDirectory(r, attrs);
      model.mkdir(parentOf(at, r), at.name);
    }
  }

  @Override
  public void delete(Path path) throws IOException {
    Path r = unwrap(path);
    synchronized (model) {
      model.checkNotCut();
      Place at = writablePlace(r);
      real.delete(r);
      model.unlink(parentOf(at, r), at.name);
    }
  }

  @Override
  public void copy(Path source, Path target, CopyOption... options) {
    throw new UnsupportedOperationException("copy is not modelled: write the target instead");
  }

  @Override
  public void move(Path source, Path target, CopyOption... options) throws IOException {
    Path from = unwrap(source);
    Path to = unwrap(target);
    synchronized (model) {
      model.checkNotCut();
      Place a = writablePlace(from);
      Place b = writablePlace(to);
      real.move(from, to, options);
      model.rename(parentOf(a, from), a.name, parentOf(b, to), b.name);
    }
  }

  @Override
  public boolean isSameFile(Path path, Path path2) throws IOException {
    model.checkNotCut();
    if (!(path2 instanceof ForgetfulPath)) {
      return false;
    }
    return real.isSameFile(unwrap(path), unwrap(path2));
  }

  @Override
  public boolean isHidden(Path path) throws IOException {
    model.checkNotCut();
    return real.isHidden(unwrap(path));
  }

  @Override
  public FileStore getFileStore(Path path) throws IOException {
    model.checkNotCut();
    return real.getFileStore(unwrap(path));
  }

  @Override
  public void checkAccess(Path path, AccessMode... modes) throws IOException {
    model.checkNotCut();
    real.checkAccess(unwrap(path), modes);
  }

  @Override
  public <V extends FileAttributeView> V getFileAttributeView(
      Path path, Class<V> type, LinkOption... options) {
    return real.getFileAttributeView(unwrap(path), type, options);
  }

  @Override
  public <A extends BasicFileAttributes> A readAttributes(
      Path path, Class<A> type, LinkOption... options) throws IOException {
    model.checkNotCut();
    return real.readAttributes(unwrap(path), type, options);
  }

  @Override
  public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options)
      throws IOException {
    model.checkNotCut();
    return real.readAttributes(unwrap(path), attributes, options);
  }

  @Override
  public void setAttribute(Path path, String attribute, Object value, LinkOption... options) {
    throw new UnsupportedOperationException("file attributes are not modelled: " + attribute);
  }
}
