package org.searchlab.testing.disk;

import java.io.IOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;

/**
 * A path of a {@link ForgetfulFileSystem}: a real path of the default file system, wrapped so that
 * every operation on it goes through the forgetful provider. Its string form is the real path's.
 * Immutable and thread-safe.
 */
final class ForgetfulPath implements Path {
  final ForgetfulFileSystem fs;
  final Path delegate;

  ForgetfulPath(ForgetfulFileSystem fs, Path delegate) {
    this.fs = fs;
    this.delegate = delegate;
  }

  private Path wrap(Path p) {
    return p == null ? null : new ForgetfulPath(fs, p);
  }

  private Path unwrap(Path other) {
    if (other instanceof ForgetfulPath p && p.fs == fs) {
      return p.delegate;
    }
    throw new ProviderMismatchException("not a path of this forgetful file system: " + other);
  }

  @Override
  public FileSystem getFileSystem() {
    return fs;
  }

  @Override
  public boolean isAbsolute() {
    return delegate.isAbsolute();
  }

  @Override
  public Path getRoot() {
    return wrap(delegate.getRoot());
  }

  @Override
  public Path getFileName() {
    return wrap(delegate.getFileName());
  }

  @Override
  public Path getParent() {
    return wrap(delegate.getParent());
  }

  @Override
  public int getNameCount() {
    return delegate.getNameCount();
  }

  @Override
  public Path getName(int index) {
    return wrap(delegate.getName(index));
  }

  @Override
  public Path subpath(int beginIndex, int endIndex) {
    return wrap(delegate.subpath(beginIndex, endIndex));
  }

  @Override
  public boolean startsWith(Path other) {
    return other instanceof ForgetfulPath p && p.fs == fs && delegate.startsWith(p.delegate);
  }

  @Override
  public boolean endsWith(Path other) {
    return other instanceof ForgetfulPath p && p.fs == fs && delegate.endsWith(p.delegate);
  }

  @Override
  public Path normalize() {
    return wrap(delegate.normalize());
  }

  @Override
  public Path resolve(Path other) {
    return wrap(delegate.resolve(unwrap(other)));
  }

  @Override
  public Path relativize(Path other) {
    return wrap(delegate.relativize(unwrap(other)));
  }

  @Override
  public URI toUri() {
    return URI.create(
        ForgetfulFileSystem.SCHEME + "://" + delegate.toAbsolutePath().toUri().getRawPath());
  }

  @Override
  public Path toAbsolutePath() {
    return wrap(delegate.toAbsolutePath());
  }

  @Override
  public Path toRealPath(LinkOption... options) throws IOException {
    fs.model().checkNotCut();
    return wrap(delegate.toRealPath(options));
  }

  @Override
  public WatchKey register(
      WatchService watcher, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers) {
    throw new UnsupportedOperationException("a forgetful file system has no watch service");
  }

  @Override
  public int compareTo(Path other) {
    return delegate.compareTo(unwrap(other));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ForgetfulPath p && p.fs == fs && delegate.equals(p.delegate);
  }

  @Override
  public int hashCode() {
    return delegate.hashCode();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
