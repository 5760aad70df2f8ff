// Over 500 lines: one model (inodes, directories, pending operations) and the image each kind of
// power cut, drawn at random or named by a trace's crash state, leaves from it; the cut kinds read
// the same pending lists, so they stay together.
package org.searchlab.testing.disk;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * The bookkeeping of a disk that forgets: inodes, directories, what is durable and what was issued
 * but not forced, and the image a power cut leaves (design note of issue 70, §2.2 and §3).
 *
 * <p>Redo, not undo. Each file inode has a durable content and a list of pending data operations
 * (writes and truncations, in issue order); {@link #force} applies the list to the durable content
 * and clears it. Each directory inode has a live namespace (what the running process sees), a
 * durable one and a list of pending entry changes (new entries, renames, unlinks); {@link
 * #forceDirectory} applies that list. A cut starts from the durable state and replays the subset of
 * pending operations its {@link PowerCut} and {@link Options#order()} keep, so it costs the durable
 * bytes, not the history. An unlinked inode whose durable entry remains keeps its durable content,
 * so deletes need no graveyard.
 *
 * <p>Everything is in memory; the model never touches a file. Pending bytes are held until forced,
 * with a loud limit of {@link #MAX_PENDING_BYTES}.
 *
 * <p>Thread-safe: every method synchronizes on the model. {@link ForgetfulFileSystem} holds the
 * same monitor around each real operation and its record here, so every operation is atomic with
 * respect to a cut; after {@link #powerCut} every operation throws.
 */
public final class DiskModel {
  /** The root directory's inode: the file system's root, always there. */
  static final long ROOT = 1;

  /** The writeback unit {@link PowerCut.Kind#SKIP_ONE_DATA} skips. */
  static final int PAGE = 4096;

  /** Unforced bytes held on the heap before the model refuses more. */
  static final long MAX_PENDING_BYTES = 256L << 20;

  /**
   * How the modelled disk behaves. Immutable.
   *
   * @param realFsync whether {@code force} also fsyncs the real file; off by default, since the
   *     model decides durability and free fsyncs make tests faster
   * @param order which subsets of a directory's unforced entry changes a cut may keep
   * @param fsyncPersistsOwnEntry whether forcing a file also makes its own directory entries
   *     durable (ext4's behaviour); off by default, the strict POSIX reading
   * @param ignored file and directory names left out of crash images (scratch files that are not
   *     durable state)
   */
  public record Options(
      boolean realFsync,
      MetadataOrder order,
      boolean fsyncPersistsOwnEntry,
      Predicate<String> ignored) {
    /** Simulated fsync, {@code ORDERED} metadata, the strict entry rule, nothing ignored. */
    public static final Options DEFAULT =
        new Options(false, MetadataOrder.ORDERED, false, name -> false);

    public Options {
      Objects.requireNonNull(order, "order");
      Objects.requireNonNull(ignored, "ignored");
    }

    /** These options with {@code order}. */
    public Options withOrder(MetadataOrder order) {
      return new Options(realFsync, order, fsyncPersistsOwnEntry, ignored);
    }

    /** These options with {@code fsyncPersistsOwnEntry}. */
    public Options withFsyncPersistsOwnEntry(boolean v) {
      return new Options(realFsync, order, v, ignored);
    }
  }

  /** Which of a directory's unforced entry changes may survive a cut. */
  public enum MetadataOrder {
    /** A prefix in issue order, as ext4's and XFS's journals commit them (possibly none). */
    ORDERED,
    /** Any subset: in practice all but one. */
    POSIX
  }

  private sealed interface DataOp permits Write, Truncate {}

  private record Write(long offset, byte[] bytes) implements DataOp {}

  private record Truncate(long size) implements DataOp {}

  private sealed interface MetaOp permits Link, Rename, Unlink {
    long seq();

    /** The entries ("e:dir/name") and inode ("i:n") this operation depends on or changes. */
    List<String> keys();
  }

  /** A new entry: a created file or a made directory. */
  private record Link(long seq, long dir, String name, long inode) implements MetaOp {
    @Override
    public List<String> keys() {
      return List.of("e:" + dir + "/" + name, "i:" + inode);
    }
  }

  private record Rename(long seq, long fromDir, String from, long toDir, String to, long inode)
      implements MetaOp {
    @Override
    public List<String> keys() {
      return List.of("e:" + fromDir + "/" + from, "e:" + toDir + "/" + to, "i:" + inode);
    }
  }

  private record Unlink(long seq, long dir, String name, long inode) implements MetaOp {
    @Override
    public List<String> keys() {
      return List.of("e:" + dir + "/" + name, "i:" + inode);
    }
  }

  private static final class Inode {
    final long id;
    final boolean directory;
    final Content durable = new Content(); // files only
    final List<DataOp> pending = new ArrayList<>(); // files only
    final TreeMap<String, Long> live = new TreeMap<>(); // directories only
    final List<MetaOp> pendingMeta = new ArrayList<>(); // directories only
    // Caches for a trace's thousands of images a moment (files only; null when stale, see
    // changed()): the durable content with every pending operation applied, shared by the images
    // that keep them all and never changed once made; and the SHA-256 of both contents.
    Content applied;
    byte[] durableHash;
    byte[] appliedHash;

    Inode(long id, boolean directory) {
      this.id = id;
      this.directory = directory;
    }

    /** Drops the caches: the durable content or the pending list changed. */
    void changed() {
      applied = null;
      durableHash = null;
      appliedHash = null;
    }
  }

  private final Options options;
  // Sorted by id, so a seeded cut picks the same inodes and pages on every run.
  private final TreeMap<Long, Inode> inodes = new TreeMap<>();
  private final Map<Long, TreeMap<String, Long>> durableEntries = new HashMap<>();
  private long nextInode = ROOT + 1;
  private long nextSeq;
  private long pendingBytes;
  private boolean cut;
  // An armed cut (cutWhenUnforced): fires inside the first write that reaches triggerBytes.
  private long triggerBytes;
  private PowerCut triggerCut;
  private SplittableRandom triggerRandom;
  private CompletableFuture<CrashImage> triggered;
  // Where every operation goes once recording started (ForgetfulFileSystem.record), or null.
  private FsTrace trace;

  /** An empty disk: the root directory alone, durable. */
  public DiskModel(Options options) {
    this.options = Objects.requireNonNull(options, "options");
    inodes.put(ROOT, new Inode(ROOT, true));
    durableEntries.put(ROOT, new TreeMap<>());
  }

  /** The options this disk was made with. */
  public Options options() {
    return options;
  }

  /** Whether the power was cut: from then on every operation throws. */
  public synchronized boolean isCut() {
    return cut;
  }

  /** Throws the dead disk's error once the power was cut. */
  synchronized void checkNotCut() throws IOException {
    if (cut) {
      throw new IOException("power lost (simulated)");
    }
  }

  /**
   * Starts recording every operation from now on into {@code t}, in order. The disk must be empty
   * (the root alone), so that the trace holds everything a replay needs and a replay allocates the
   * same inode numbers.
   */
  synchronized void record(FsTrace t) {
    Objects.requireNonNull(t, "t");
    if (trace != null) {
      throw new IllegalStateException("this disk records into a trace already");
    }
    if (inodes.size() != 1 || nextInode != ROOT + 1 || t.size() != 0) {
      throw new IllegalStateException(
          "a trace starts on an empty disk with an empty trace: the disk holds "
              + (inodes.size() - 1)
              + " entries, the trace "
              + t.size()
              + " operations");
    }
    trace = t;
  }

  /**
   * Puts a workload event into the trace between the file operations before and after it; nothing
   * when not recording or once the power is off.
   */
  synchronized void marker(String label) {
    Objects.requireNonNull(label, "label");
    if (!cut) {
      trace(s -> new FsOp.Marker(s, thread(), label));
    }
  }

  private void trace(java.util.function.LongFunction<FsOp> op) {
    if (trace != null) {
      trace.append(op.apply(trace.nextSeq()));
    }
  }

  private static String thread() {
    return Thread.currentThread().getName();
  }

  /** The inode of {@code name} in directory {@code dir} as the running process sees it, or −1. */
  synchronized long lookup(long dir, String name) {
    Inode d = inodes.get(dir);
    if (d == null || !d.directory) {
      return -1;
    }
    Long i = d.live.get(name);
    return i == null ? -1 : i;
  }

  /** Whether {@code inode} is a directory. */
  synchronized boolean isDirectory(long inode) {
    return inode(inode).directory;
  }

  /**
   * Adds an entry that is durable already, with its content: what was on the disk before the model
   * started.
   */
  synchronized long addDurable(long dir, String name, boolean directory, byte[] content) {
    long id = link(dir, name, directory, false);
    durableEntries.get(dir).put(name, id);
    if (!directory) {
      inode(id).durable.write(0, content, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);
      inode(id).changed();
    }
    return id;
  }

  /**
   * A new empty file {@code name} in {@code dir}; its entry is durable once {@code dir} is forced.
   */
  synchronized long create(long dir, String name) throws IOException {
    checkNotCut();
    long id = link(dir, name, false, true);
    trace(s -> new FsOp.Create(s, thread(), dir, name, id));
    return id;
  }

  /** A new directory {@code name} in {@code dir}; durable once {@code dir} is forced. */
  synchronized long mkdir(long dir, String name) throws IOException {
    checkNotCut();
    long id = link(dir, name, true, true);
    trace(s -> new FsOp.Mkdir(s, thread(), dir, name, id));
    return id;
  }

  private long link(long dir, String name, boolean directory, boolean pending) {
    Inode d = directory(dir);
    if (d.live.containsKey(name)) {
      throw new IllegalStateException(
          "the model is out of step: " + name + " already exists in directory " + dir);
    }
    Inode n = new Inode(nextInode++, directory);
    inodes.put(n.id, n);
    if (directory) {
      durableEntries.put(n.id, new TreeMap<>());
    }
    d.live.put(name, n.id);
    if (pending) {
      d.pendingMeta.add(new Link(nextSeq++, dir, name, n.id));
    }
    return n.id;
  }

  /**
   * Renames {@code from} in {@code fromDir} to {@code to} in {@code toDir}, replacing what {@code
   * to} named; durable once either directory is forced.
   */
  synchronized void rename(long fromDir, String from, long toDir, String to) throws IOException {
    checkNotCut();
    Inode fd = directory(fromDir);
    Inode td = directory(toDir);
    Long id = fd.live.get(from);
    if (id == null) {
      throw new IllegalStateException(
          "the model is out of step: no " + from + " in directory " + fromDir);
    }
    if (fromDir == toDir && from.equals(to)) {
      return; // rename(2) onto itself does nothing
    }
    fd.live.remove(from);
    Long replaced = td.live.put(to, id);
    Rename op = new Rename(nextSeq++, fromDir, from, toDir, to, id);
    fd.pendingMeta.add(op);
    if (toDir != fromDir) {
      td.pendingMeta.add(op);
    }
    long gone = replaced == null ? -1 : replaced;
    trace(s -> new FsOp.Rename(s, thread(), fromDir, from, toDir, to, id, gone));
  }

  /** Removes the entry {@code name} of {@code dir}; durable once {@code dir} is forced. */
  synchronized void unlink(long dir, String name) throws IOException {
    checkNotCut();
    Inode d = directory(dir);
    Long id = d.live.remove(name);
    if (id == null) {
      throw new IllegalStateException(
          "the model is out of step: no " + name + " in directory " + dir);
    }
    d.pendingMeta.add(new Unlink(nextSeq++, dir, name, id));
    trace(s -> new FsOp.Unlink(s, thread(), dir, name, id));
  }

  /** Records a write of {@code bytes} at {@code offset}; durable once the inode is forced. */
  synchronized void write(long inode, long offset, byte[] bytes) throws IOException {
    checkNotCut();
    Inode f = file(inode);
    if (bytes.length == 0) {
      return;
    }
    if (pendingBytes + bytes.length > MAX_PENDING_BYTES) {
      throw new IllegalStateException(
          "more than "
              + MAX_PENDING_BYTES
              + " unforced bytes: force more often in this test, the model holds them on the heap");
    }
    pendingBytes += bytes.length;
    byte[] copy = bytes.clone(); // shared by the pending list and the trace; neither changes it
    f.pending.add(new Write(offset, copy));
    f.changed();
    trace(s -> new FsOp.Write(s, thread(), inode, offset, copy));
    if (triggered != null && pendingBytes >= triggerBytes) {
      // The write happened (its caller sees success); the power goes right after it.
      CompletableFuture<CrashImage> done = triggered;
      triggered = null;
      done.complete(powerCut(triggerCut, triggerRandom));
    }
  }

  /**
   * Arms a cut that happens right after the first write that leaves {@code bytes} or more unforced
   * (over all files), so the cut lands while data is pending; the future completes with its image.
   */
  synchronized CompletableFuture<CrashImage> cutWhenUnforced(
      long bytes, PowerCut cut, SplittableRandom random) throws IOException {
    checkNotCut();
    triggerBytes = bytes;
    triggerCut = Objects.requireNonNull(cut, "cut");
    triggerRandom = Objects.requireNonNull(random, "random");
    triggered = new CompletableFuture<>();
    return triggered;
  }

  /** Records a size change; ordered with the inode's writes, durable once the inode is forced. */
  synchronized void truncate(long inode, long size) throws IOException {
    checkNotCut();
    Inode f = file(inode);
    f.pending.add(new Truncate(size));
    f.changed();
    trace(s -> new FsOp.Truncate(s, thread(), inode, size));
  }

  /**
   * Makes the inode's pending data durable, whichever channel wrote it: fsync works on the inode.
   */
  synchronized void force(long inode) throws IOException {
    checkNotCut();
    Inode f = file(inode);
    for (DataOp op : f.pending) {
      apply(f.durable, op);
      if (op instanceof Write w) {
        pendingBytes -= w.bytes.length;
      }
    }
    f.pending.clear();
    f.changed();
    trace(s -> new FsOp.Force(s, thread(), inode));
    if (options.fsyncPersistsOwnEntry()) {
      // ext4 commits the journal with the file's own entry; every directory's changes up to the
      // last one that names this inode go with it, in order.
      for (Inode d : List.copyOf(inodes.values())) {
        int last = -1;
        for (int i = 0; i < d.pendingMeta.size(); i++) {
          if (d.pendingMeta.get(i).keys().contains("i:" + inode)) {
            last = i;
          }
        }
        for (MetaOp op : List.copyOf(d.pendingMeta.subList(0, last + 1))) {
          commit(op);
        }
      }
    }
  }

  /** Makes the directory's pending entry changes durable, in order. */
  synchronized void forceDirectory(long dir) throws IOException {
    checkNotCut();
    for (MetaOp op : List.copyOf(directory(dir).pendingMeta)) {
      commit(op);
    }
    trace(s -> new FsOp.DirForce(s, thread(), dir));
  }

  private void commit(MetaOp op) {
    apply(durableEntries, op);
    for (long d : directoriesOf(op)) {
      directory(d).pendingMeta.remove(op);
    }
  }

  private static long[] directoriesOf(MetaOp op) {
    return switch (op) {
      case Link l -> new long[] {l.dir};
      case Rename r ->
          r.fromDir == r.toDir ? new long[] {r.fromDir} : new long[] {r.fromDir, r.toDir};
      case Unlink u -> new long[] {u.dir};
    };
  }

  private static void apply(Map<Long, TreeMap<String, Long>> entries, MetaOp op) {
    switch (op) {
      case Link l -> entries.computeIfAbsent(l.dir, k -> new TreeMap<>()).put(l.name, l.inode);
      case Rename r -> {
        TreeMap<String, Long> from = entries.computeIfAbsent(r.fromDir, k -> new TreeMap<>());
        from.remove(r.from, r.inode);
        entries.computeIfAbsent(r.toDir, k -> new TreeMap<>()).put(r.to, r.inode);
      }
      case Unlink u -> entries.computeIfAbsent(u.dir, k -> new TreeMap<>()).remove(u.name, u.inode);
    }
  }

  private static void apply(Content c, DataOp op) {
    switch (op) {
      case Write w -> c.write(w.offset, w.bytes, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);
      case Truncate t -> c.resize(t.size);
    }
  }

  /**
   * Cuts the power: returns the image {@code cut} leaves, with {@code random} choosing tears,
   * skipped pages and kept metadata; every later operation throws.
   */
  synchronized CrashImage powerCut(PowerCut cut, SplittableRandom random) throws IOException {
    checkNotCut();
    CrashImage image = image(cut, random);
    this.cut = true;
    return image;
  }

  /** The image {@code cut} would leave now, without cutting. */
  synchronized CrashImage image(PowerCut cut, SplittableRandom random) {
    Map<Long, Content> contents = new HashMap<>();
    switch (cut.kind()) {
      case DROP_UNFORCED -> {}
      case KEEP_ALL -> applyAllPending(contents);
      case TEAR_LAST -> {
        for (Inode f : filesWithPending()) {
          tearLast(f, contents.computeIfAbsent(f.id, k -> f.durable.copy()), cut, random);
        }
      }
      case SKIP_ONE_DATA -> skipOnePage(contents, random);
    }
    return materialise(contents, keptMetadata(cut, random));
  }

  /**
   * The image of crash state {@code s} at this moment (its prefix is the caller's business: {@link
   * TraceReplayer} brings the model there), without cutting.
   *
   * @throws IllegalArgumentException if {@code s} names a file without pending writes, a page no
   *     pending write touches or more entry changes than are pending: a state of another moment
   */
  synchronized CrashImage image(CrashState s) {
    Selection kept = select(s);
    return materialise(kept.contents(), kept.metadata());
  }

  /**
   * A SHA-256 of the image {@link #image(CrashState)} gives for {@code s}, in hex, made without
   * building the image: equal images give equal fingerprints, and different ones (with all but
   * negligible probability) different ones. The fingerprint is not {@link CrashImage#digest()}: it
   * hashes each file's SHA-256, and a file every image of this moment shares (its durable content,
   * or every pending operation applied) is hashed once, not once an image. A trace's exploration
   * groups thousands of states a moment by it.
   *
   * @throws IllegalArgumentException as {@link #image(CrashState)}
   */
  synchronized String fingerprint(CrashState s) {
    Selection kept = select(s);
    Map<Long, TreeMap<String, Long>> entries = entriesWith(kept.metadata());
    MessageDigest md = sha256();
    fingerprint(entries, kept.contents(), md);
    return HexFormat.of().formatHex(md.digest());
  }

  /** The file contents a state changes from the durable ones, and the entry changes it keeps. */
  private record Selection(Map<Long, Content> contents, List<MetaOp> metadata) {}

  private Selection select(CrashState s) {
    Map<Long, Content> contents = new HashMap<>();
    switch (s.cut().kind()) {
      case DROP_UNFORCED -> {}
      case KEEP_ALL -> applyAllPending(contents);
      case TEAR_LAST -> {
        Inode f = file(s.inode());
        long[] w = lastPendingWrite(s.inode());
        if (s.at() < w[0] || s.at() >= w[1]) {
          throw new IllegalArgumentException(
              s + ": the last pending write of inode " + s.inode() + " is " + Arrays.toString(w));
        }
        tearLastAt(f, contents.computeIfAbsent(f.id, k -> f.durable.copy()), s.at(), s.cut());
      }
      case SKIP_ONE_DATA -> {
        if (!pendingPages(s.inode()).contains(s.at())) {
          throw new IllegalArgumentException(
              s + ": no pending write of inode " + s.inode() + " touches that page");
        }
        applySkipping(contents, s.inode(), s.at());
      }
    }
    List<MetaOp> all = pendingMetadata();
    int i = s.metaIndex();
    if (i > all.size() || (s.metadata() == CrashState.Metadata.ALL_BUT_ONE && i == all.size())) {
      throw new IllegalArgumentException(s + ": " + all.size() + " entry changes are pending");
    }
    Set<MetaOp> kept =
        switch (s.metadata()) {
          case NONE -> Set.of();
          case ALL -> new HashSet<>(all);
          case PREFIX -> new HashSet<>(all.subList(0, i));
          case ALL_BUT_ONE -> {
            Set<MetaOp> k = new HashSet<>(all);
            k.remove(all.get(i));
            yield k;
          }
        };
    return new Selection(contents, closeUnderLoss(all, kept));
  }

  /** The files with a pending write, by inode number. */
  synchronized List<Long> inodesWithPendingWrites() {
    List<Long> out = new ArrayList<>();
    for (Inode f : filesWithPending()) {
      if (f.pending.stream().anyMatch(op -> op instanceof Write)) {
        out.add(f.id);
      }
    }
    return out;
  }

  /** The file offsets {@code [start, end)} of the last pending write of {@code inode}. */
  synchronized long[] lastPendingWrite(long inode) {
    Inode f = file(inode);
    for (int i = f.pending.size() - 1; i >= 0; i--) {
      if (f.pending.get(i) instanceof Write w) {
        return new long[] {w.offset, w.offset + w.bytes.length};
      }
    }
    throw new IllegalArgumentException("inode " + inode + " has no pending write");
  }

  /** The pages ({@link #PAGE} bytes of file offset) the pending writes of {@code inode} touch. */
  synchronized TreeSet<Long> pendingPages(long inode) {
    TreeSet<Long> touched = new TreeSet<>();
    for (DataOp op : file(inode).pending) {
      if (op instanceof Write w) {
        for (long p = w.offset / PAGE; p <= (w.offset + w.bytes.length - 1) / PAGE; p++) {
          touched.add(p);
        }
      }
    }
    return touched;
  }

  /** The issue numbers of the entry changes pending over all directories, in issue order. */
  synchronized long[] pendingMetadataSeqs() {
    return pendingMetadata().stream().mapToLong(MetaOp::seq).toArray();
  }

  private void applyAllPending(Map<Long, Content> contents) {
    for (Inode f : filesWithPending()) {
      contents.put(f.id, applied(f));
    }
  }

  /**
   * {@code f}'s durable content with every pending operation applied: made once a moment and shared
   * by every image that keeps them all, so nobody may change it.
   */
  private static Content applied(Inode f) {
    if (f.applied == null) {
      Content c = f.durable.copy();
      f.pending.forEach(op -> apply(c, op));
      f.applied = c;
    }
    return f.applied;
  }

  /** The image of the durable state with {@code contents} and the entry changes {@code kept}. */
  private CrashImage materialise(Map<Long, Content> contents, List<MetaOp> kept) {
    Map<Long, TreeMap<String, Long>> entries = entriesWith(kept);
    TreeSet<String> dirs = new TreeSet<>();
    TreeMap<String, byte[]> files = new TreeMap<>();
    walk(
        ROOT,
        "",
        entries,
        contents,
        new HashSet<>(),
        dirs::add,
        (rel, n, c) -> files.put(rel, c.toArray()));
    return new CrashImage(dirs, files);
  }

  /**
   * The durable directory entries with {@code kept} applied: the durable map itself when nothing is
   * kept (callers only read it), else a copy.
   */
  private Map<Long, TreeMap<String, Long>> entriesWith(List<MetaOp> kept) {
    if (kept.isEmpty()) {
      return durableEntries;
    }
    Map<Long, TreeMap<String, Long>> entries = new HashMap<>();
    durableEntries.forEach((d, m) -> entries.put(d, new TreeMap<>(m)));
    for (MetaOp op : kept) {
      apply(entries, op);
    }
    return entries;
  }

  private List<Inode> filesWithPending() {
    List<Inode> out = new ArrayList<>();
    for (Inode i : inodes.values()) {
      if (!i.directory && !i.pending.isEmpty()) {
        out.add(i);
      }
    }
    return out;
  }

  /**
   * Applies {@code f}'s pending operations up to its last write, which persists only up to a random
   * {@code tearBytes} boundary strictly inside it (or not at all when it crosses none); operations
   * after it are lost.
   */
  private static void tearLast(Inode f, Content c, PowerCut cut, SplittableRandom random) {
    Write w = null;
    for (DataOp op : f.pending) {
      if (op instanceof Write x) {
        w = x;
      }
    }
    if (w == null) {
      return; // truncations alone: nothing to tear, and unforced, so lost
    }
    long lo = w.offset;
    long hi = lo + w.bytes.length;
    long t = cut.tearBytes();
    long first = (lo / t + 1) * t; // the smallest boundary strictly after lo
    long tear = lo;
    if (first < hi) {
      long boundaries = (hi - 1 - first) / t + 1;
      tear = first + t * random.nextLong(boundaries);
    }
    tearLastAt(f, c, tear, cut);
  }

  /**
   * The offset a trace exploration tears the write {@code [lo, hi)} at: the last multiple of {@code
   * tearBytes} strictly inside it, so the most new bytes persist with the write still torn, or
   * {@code lo} when it crosses none (the write is lost, and {@code ZEROS} still extends the file).
   */
  static long lastTearPoint(long lo, long hi, int tearBytes) {
    long last = ((hi - 1) / tearBytes) * tearBytes; // the largest boundary at or below hi − 1
    return last > lo ? last : lo;
  }

  /**
   * Applies {@code f}'s pending operations before its last write, then that write up to file offset
   * {@code tear}; past it the write keeps the old content and either extends the file with zeros
   * ({@code ZEROS}) or ends it at the tear ({@code SHORT}). Operations after it are lost.
   */
  private static void tearLastAt(Inode f, Content c, long tear, PowerCut cut) {
    int last = -1;
    for (int i = 0; i < f.pending.size(); i++) {
      if (f.pending.get(i) instanceof Write) {
        last = i;
      }
    }
    for (int i = 0; i < last; i++) {
      apply(c, f.pending.get(i));
    }
    Write w = (Write) f.pending.get(last);
    long hi = w.offset + w.bytes.length;
    long endAt = cut.fill() == PowerCut.TearFill.SHORT ? tear : Long.MAX_VALUE;
    c.write(w.offset, w.bytes, tear, hi, endAt);
  }

  /**
   * Applies every pending data operation but one page, chosen uniformly among the (file, page)
   * pairs that pending writes touch: that page keeps its content (zeros past the old size).
   */
  private void skipOnePage(Map<Long, Content> contents, SplittableRandom random) {
    List<long[]> pages = new ArrayList<>();
    for (Inode f : filesWithPending()) {
      pendingPages(f.id).forEach(p -> pages.add(new long[] {f.id, p}));
    }
    long[] skip = pages.isEmpty() ? new long[] {-1, -1} : pages.get(random.nextInt(pages.size()));
    applySkipping(contents, skip[0], skip[1]);
  }

  /** Applies every pending data operation; page {@code page} of {@code inode} keeps its content. */
  private void applySkipping(Map<Long, Content> contents, long inode, long page) {
    for (Inode f : filesWithPending()) {
      if (f.id != inode) {
        contents.put(f.id, applied(f));
        continue;
      }
      Content c = f.durable.copy();
      contents.put(f.id, c);
      for (DataOp op : f.pending) {
        if (f.id == inode && op instanceof Write w) {
          c.write(w.offset, w.bytes, page * PAGE, (page + 1) * PAGE, Long.MAX_VALUE);
        } else {
          apply(c, op);
        }
      }
    }
  }

  /** Every pending entry change, over all directories, in issue order. */
  private List<MetaOp> pendingMetadata() {
    TreeMap<Long, MetaOp> all = new TreeMap<>();
    for (Inode d : inodes.values()) {
      d.pendingMeta.forEach(op -> all.put(op.seq(), op));
    }
    return new ArrayList<>(all.values());
  }

  /**
   * The unforced entry changes that survive {@code cut}, in issue order. Dropping one drops every
   * later change to the same entry or inode: a rename of a file whose creation was lost cannot
   * persist.
   */
  private List<MetaOp> keptMetadata(PowerCut cut, SplittableRandom random) {
    List<MetaOp> all = pendingMetadata();
    Set<MetaOp> kept = new HashSet<>();
    switch (cut.kind()) {
      case DROP_UNFORCED -> {}
      case KEEP_ALL -> kept.addAll(all);
      case TEAR_LAST, SKIP_ONE_DATA -> {
        if (options.order() == MetadataOrder.ORDERED) {
          for (Inode d : inodes.values()) {
            int n = d.pendingMeta.size();
            if (n > 0) {
              kept.addAll(d.pendingMeta.subList(0, random.nextInt(n + 1)));
            }
          }
        } else if (!all.isEmpty()) {
          List<MetaOp> ops = new ArrayList<>(all);
          ops.remove(random.nextInt(ops.size()));
          kept.addAll(ops);
        }
      }
    }
    return closeUnderLoss(all, kept);
  }

  /**
   * The changes of {@code all} (in issue order) that are in {@code kept} and follow no lost change
   * to the same entry or inode.
   */
  private static List<MetaOp> closeUnderLoss(List<MetaOp> all, Set<MetaOp> kept) {
    Set<String> lost = new HashSet<>();
    List<MetaOp> out = new ArrayList<>();
    for (MetaOp op : all) {
      if (kept.contains(op) && op.keys().stream().noneMatch(lost::contains)) {
        out.add(op);
      } else {
        lost.addAll(op.keys());
      }
    }
    return out;
  }

  /**
   * What {@link #walk} hands over of a file: its path, inode and the content the image gives it.
   */
  private interface FileVisit {
    void file(String rel, Inode n, Content c);
  }

  /**
   * Walks the image's tree from {@code dir} in name order (which the image alone decides), skipping
   * ignored names: each directory before its entries, each file with its content in {@code
   * contents}, or its durable content where {@code contents} has none.
   */
  private void walk(
      long dir,
      String prefix,
      Map<Long, TreeMap<String, Long>> entries,
      Map<Long, Content> contents,
      Set<Long> seen,
      java.util.function.Consumer<String> directory,
      FileVisit file) {
    TreeMap<String, Long> names = entries.get(dir);
    if (names == null || !seen.add(dir)) {
      return;
    }
    for (var e : names.entrySet()) {
      if (options.ignored().test(e.getKey())) {
        continue;
      }
      String rel = prefix.isEmpty() ? e.getKey() : prefix + "/" + e.getKey();
      Inode n = inode(e.getValue());
      if (n.directory) {
        directory.accept(rel);
        walk(n.id, rel, entries, contents, seen, directory, file);
      } else {
        Content c = contents.get(n.id);
        file.file(rel, n, c != null ? c : n.durable);
      }
    }
  }

  /**
   * {@link #walk}, hashing what an image holds: each directory's path, and each file's path, size
   * and SHA-256, in the walk's order. A file's durable and fully applied contents are hashed once
   * and cached on its inode.
   */
  private void fingerprint(
      Map<Long, TreeMap<String, Long>> entries, Map<Long, Content> contents, MessageDigest md) {
    walk(
        ROOT,
        "",
        entries,
        contents,
        new HashSet<>(),
        rel -> md.update(("d " + rel + "\n").getBytes(StandardCharsets.UTF_8)),
        (rel, n, c) -> {
          byte[] hash;
          if (c == n.durable) {
            if (n.durableHash == null) {
              n.durableHash = c.sha256();
            }
            hash = n.durableHash;
          } else if (c == n.applied) {
            if (n.appliedHash == null) {
              n.appliedHash = c.sha256();
            }
            hash = n.appliedHash;
          } else {
            hash = c.sha256();
          }
          md.update(("f " + rel + " " + c.size + "\n").getBytes(StandardCharsets.UTF_8));
          md.update(hash);
        });
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  private Inode inode(long id) {
    Inode i = inodes.get(id);
    if (i == null) {
      throw new IllegalArgumentException("no inode " + id);
    }
    return i;
  }

  private Inode directory(long id) {
    Inode i = inode(id);
    if (!i.directory) {
      throw new IllegalArgumentException("inode " + id + " is not a directory");
    }
    return i;
  }

  private Inode file(long id) {
    Inode i = inode(id);
    if (i.directory) {
      throw new IllegalArgumentException("inode " + id + " is a directory");
    }
    return i;
  }

  /** A file's bytes, growable; bytes past the size are always zero. Not thread-safe. */
  static final class Content {
    private byte[] data = new byte[0];
    private int size;

    Content copy() {
      Content c = new Content();
      c.data = Arrays.copyOf(data, size);
      c.size = size;
      return c;
    }

    byte[] toArray() {
      return Arrays.copyOf(data, size);
    }

    byte[] sha256() {
      MessageDigest md = DiskModel.sha256();
      md.update(data, 0, size);
      return md.digest();
    }

    /** Sets the size: zeros past the old end when it grows. */
    void resize(long newSize) {
      if (newSize < 0 || newSize > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException(
            "file size " + newSize + " is outside what the model holds");
      }
      int n = (int) newSize;
      if (n > data.length) {
        data = Arrays.copyOf(data, Math.max(n, 2 * data.length));
      } else if (n < size) {
        Arrays.fill(data, n, size, (byte) 0);
      }
      size = n;
    }

    /**
     * Writes {@code b} at {@code offset}, except the file offsets in {@code [keepFrom, keepTo)},
     * which keep their content (zeros past the old size); the file then ends at the larger of its
     * old size and {@code min(offset + b.length, endAt)}.
     */
    void write(long offset, byte[] b, long keepFrom, long keepTo, long endAt) {
      long end = offset + b.length;
      long stop = Math.max(size, Math.min(end, endAt));
      resize(stop);
      stop = Math.min(stop, end);
      copy(offset, b, offset, Math.min(stop, keepFrom));
      copy(offset, b, Math.max(offset, keepTo), stop);
    }

    private void copy(long offset, byte[] b, long from, long to) {
      if (from < to) {
        System.arraycopy(b, (int) (from - offset), data, (int) from, (int) (to - from));
      }
    }
  }
}
