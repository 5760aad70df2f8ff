package org.searchlab.testing.disk;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.WatchService;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.spi.FileSystemProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A file system over a real directory that remembers what a power cut would keep: the process sees
 * the real directory, and a {@link DiskModel} records which of its writes and entry changes were
 * forced. Hand {@link #root()} (or a path under it) to a store; every {@code java.nio.file}
 * operation on it then goes through the model, with no seam in the store. {@link #powerCut} returns
 * the {@link CrashImage} a cut leaves and stops the disk: every later operation throws {@code
 * IOException("power lost (simulated)")}, as a dead disk would.
 *
 * <p>What was in the real directory when the file system was made counts as durable, so a store can
 * be reopened on a cut's image under a fresh forgetful file system.
 *
 * <p>Thread-safe. {@link #close()} does nothing: the model must outlive the store's own closing.
 */
public final class ForgetfulFileSystem extends FileSystem {
  /** The URI scheme of forgetful paths. */
  static final String SCHEME = "forgetful";

  private final Path realRoot;
  private final DiskModel model;
  private final ForgetfulFileSystemProvider provider;
  private final FileSystem real = FileSystems.getDefault();
  private volatile Predicate<Path> failingForces = p -> false;

  private ForgetfulFileSystem(Path realRoot, DiskModel model) {
    this.realRoot = realRoot;
    this.model = model;
    this.provider = new ForgetfulFileSystemProvider(this);
  }

  /**
   * A forgetful file system over {@code realRoot}, a directory of the default file system (created
   * if missing). What it holds now is durable.
   */
  public static ForgetfulFileSystem over(Path realRoot, DiskModel.Options options)
      throws IOException {
    Objects.requireNonNull(realRoot, "realRoot");
    if (realRoot.getFileSystem() != FileSystems.getDefault()) {
      throw new IllegalArgumentException(realRoot + " is not on the default file system");
    }
    Files.createDirectories(realRoot);
    Path root = realRoot.toRealPath();
    DiskModel model = new DiskModel(options);
    addExisting(model, DiskModel.ROOT, root);
    return new ForgetfulFileSystem(root, model);
  }

  private static void addExisting(DiskModel model, long dir, Path realDir) throws IOException {
    List<Path> children;
    try (Stream<Path> list = Files.list(realDir)) {
      children = list.sorted().toList();
    }
    for (Path c : children) {
      String name = c.getFileName().toString();
      if (Files.isDirectory(c, LinkOption.NOFOLLOW_LINKS)) {
        addExisting(model, model.addDurable(dir, name, true, null), c);
      } else if (Files.isRegularFile(c, LinkOption.NOFOLLOW_LINKS)) {
        model.addDurable(dir, name, false, Files.readAllBytes(c));
      } else {
        throw new IOException("cannot model " + c + ": neither a directory nor a regular file");
      }
    }
  }

  /** The root: the real directory this file system was made over, as a forgetful path. */
  public Path root() {
    return new ForgetfulPath(this, realRoot);
  }

  /** {@code first} and {@code more} resolved against {@link #root()}. */
  public Path resolve(String first, String... more) {
    Path p = realRoot.resolve(first);
    for (String m : more) {
      p = p.resolve(m);
    }
    return new ForgetfulPath(this, p);
  }

  /**
   * Cuts the power: the image {@code cut} leaves, with {@code random} choosing tears, the skipped
   * page and kept entry changes. Every later operation on this file system throws.
   *
   * @throws IOException if the power was cut already
   */
  public CrashImage powerCut(PowerCut cut, SplittableRandom random) throws IOException {
    return model.powerCut(cut, random);
  }

  /**
   * The image {@code cut} would leave now, without cutting: the disk keeps running. For exploring
   * several cuts of one moment.
   */
  public CrashImage crashImage(PowerCut cut, SplittableRandom random) {
    return model.image(cut, random);
  }

  /**
   * Arms a cut that happens right after the first write that leaves {@code bytes} or more unforced,
   * so that tears and skipped pages act on pending data; the future completes with the image. A
   * {@link #powerCut} before then wins, and the future never completes.
   */
  public CompletableFuture<CrashImage> cutWhenUnforced(
      long bytes, PowerCut cut, SplittableRandom random) throws IOException {
    return model.cutWhenUnforced(bytes, cut, random);
  }

  /**
   * Records every file operation from now on into {@code trace}, in the order the disk sees them
   * (design note of issue 70, §4.1), for {@link TraceReplayer} to rebuild crash states from.
   *
   * @throws IllegalStateException if this file system was made over a non-empty directory, has seen
   *     operations already or records already: a trace holds everything from an empty disk
   */
  public void record(FsTrace trace) {
    model.record(trace);
  }

  /**
   * Puts a workload event into the trace between the operations before and after it: {@code "invoke
   * k"} before the k-th workload operation starts and {@code "ack k"} once it returned (k counts
   * from 1), which {@link FsTrace#markerValues} reads back. Nothing when not recording.
   */
  public void marker(String label) {
    model.marker(label);
  }

  /**
   * Makes every {@code force} of a file or directory whose path (as the caller opened it) {@code
   * which} accepts throw {@code IOException("Input/output error ...")}, as {@code fsync} fails with
   * {@code EIO}, until called again; {@code p -> false} ends the failures. A failed force makes
   * nothing durable: what it covered stays as unforced as before, and a later cut can drop it. So
   * "fsync fails, then the power is lost" is testable for every path, directories included, which
   * {@code FaultyFiles} (the log's files only) cannot reach.
   */
  public void failForces(Predicate<Path> which) {
    failingForces = Objects.requireNonNull(which, "which");
  }

  /** Whether a force of {@code path} fails now ({@link #failForces}). */
  boolean forceFails(Path path) {
    return failingForces.test(path);
  }

  /** Whether the power was cut. */
  public boolean isCut() {
    return model.isCut();
  }

  DiskModel model() {
    return model;
  }

  Path realRoot() {
    return realRoot;
  }

  @Override
  public FileSystemProvider provider() {
    return provider;
  }

  @Override
  public void close() {
    // Nothing to release; the model stays readable for the test after the store closed its paths.
  }

  @Override
  public boolean isOpen() {
    return true;
  }

  @Override
  public boolean isReadOnly() {
    return false;
  }

  @Override
  public String getSeparator() {
    return real.getSeparator();
  }

  @Override
  public Iterable<Path> getRootDirectories() {
    List<Path> roots = new ArrayList<>();
    real.getRootDirectories().forEach(r -> roots.add(new ForgetfulPath(this, r)));
    return roots;
  }

  @Override
  public Iterable<FileStore> getFileStores() {
    return real.getFileStores();
  }

  @Override
  public Set<String> supportedFileAttributeViews() {
    return real.supportedFileAttributeViews();
  }

  @Override
  public Path getPath(String first, String... more) {
    return new ForgetfulPath(this, real.getPath(first, more));
  }

  @Override
  public PathMatcher getPathMatcher(String syntaxAndPattern) {
    PathMatcher m = real.getPathMatcher(syntaxAndPattern);
    return p -> m.matches(p instanceof ForgetfulPath f ? f.delegate : p);
  }

  @Override
  public UserPrincipalLookupService getUserPrincipalLookupService() {
    return real.getUserPrincipalLookupService();
  }

  @Override
  public WatchService newWatchService() {
    throw new UnsupportedOperationException("a forgetful file system has no watch service");
  }

  @Override
  public String toString() {
    return "ForgetfulFileSystem[" + realRoot + (model.isCut() ? ", power cut" : "") + "]";
  }
}
