package org.searchlab.testing.disk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.searchlab.testing.disk.DiskModel.ROOT;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.testing.disk.CrashStates.Coverage;
import org.searchlab.testing.disk.DiskModel.Options;
import org.searchlab.testing.disk.PowerCut.TearFill;

/**
 * Recording, replaying and enumerating crash states (issue 70, design note §4.1–4.2), on a
 * hand-built trace whose states and images are counted by hand in the comments below.
 */
class CrashStatesTest {
  @TempDir Path tmp;

  private static byte[] fill(int n, char c) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) c);
    return b;
  }

  /**
   * The hand-built trace, 13 operations; forces at 4, 5, 10 and 12, so the persistence points are
   * the prefixes 4, 5, 6, 10, 11, 12 and 13.
   */
  private static FsTrace handBuilt() throws IOException {
    DiskModel m = new DiskModel(Options.DEFAULT);
    FsTrace t = new FsTrace();
    m.record(t);
    m.marker("invoke 1"); // 0
    long f = m.create(ROOT, "f"); // 1: inode 2
    m.write(f, 0, fill(100, 'a')); // 2: page 0
    m.write(f, 5000, fill(100, 'b')); // 3: page 1
    m.force(f); // 4
    m.forceDirectory(ROOT); // 5
    m.marker("ack 1"); // 6
    m.write(f, 100, fill(600, 'c')); // 7: [100, 700), page 0
    long g = m.create(ROOT, "g"); // 8: inode 3
    m.write(g, 0, fill(10, 'd')); // 9
    m.force(g); // 10
    m.rename(ROOT, "g", ROOT, "h"); // 11
    m.forceDirectory(ROOT); // 12
    assertEquals(2, f);
    assertEquals(3, g);
    return t;
  }

  private static Map<String, Long> countByKind(List<CrashState> states) {
    return states.stream()
        .collect(
            Collectors.groupingBy(
                s -> s.cut().kind() + "/" + s.metadata(), TreeMap::new, Collectors.counting()));
  }

  private static Set<String> digests(FsTrace t, List<CrashState> states) {
    TraceReplayer r = new TraceReplayer(t, Options.DEFAULT);
    Set<String> out = new HashSet<>();
    for (CrashState s : states) {
      out.add(r.image(s).digest());
    }
    return out;
  }

  @Test
  void orderedCoverageCountsEveryKindOfStateAtEveryPersistencePoint() throws IOException {
    FsTrace t = handBuilt();
    List<CrashState> states = CrashStates.all(t, Options.DEFAULT, Coverage.ORDERED);
    // KEEP_ALL: prefixes 0..13. DROP_UNFORCED: one a point (7), plus the entry-change prefixes
    // m = 1..pending where a pending list first stands: 1 at 4 (create f; still pending at 5), 1
    // at 10 (create g; still at 11), 2 at 12 (create g, rename).
    // TEAR_LAST, four each for f at 4, 10, 11, 12, 13 and for g at 10. SKIP_ONE_DATA: f's pages 0
    // and 1 at 4; f's page 0 and g's at 10; f's page 0 at 11, 12, 13.
    assertEquals(
        Map.of(
            "KEEP_ALL/ALL", 14L,
            "DROP_UNFORCED/NONE", 7L,
            "DROP_UNFORCED/PREFIX", 4L,
            "TEAR_LAST/ALL", 24L,
            "SKIP_ONE_DATA/ALL", 7L),
        countByKind(states));
    assertEquals(56, states.size());
    // Distinct images, by hand: KEEP_ALL leaves 8 (empty; f empty; f 100 B; f 5,100 B; f with c;
    // and g empty, g, h beside it). DROP_UNFORCED adds f + h; its prefixes f + empty g (at 10)
    // and f + g (at 12).
    // The tears add f without b (ZEROS, 5,100 B) and cut at 5,000 (SHORT) at 4, g zero-filled at
    // 10, and f torn at 512 beside empty g, beside g and beside h. The skipped pages add f without
    // a at 4 and g zero-filled beside the new f at 10. 19 in all.
    assertEquals(19, digests(t, states).size());
  }

  /**
   * The fingerprint an exploration groups states by (hashing each file once a moment) groups them
   * exactly as the images' digests do, under both coverages: two states share a fingerprint if and
   * only if their images are equal.
   */
  @Test
  void fingerprintsGroupStatesExactlyAsTheImagesDigestsDo() throws IOException {
    FsTrace t = handBuilt();
    for (Coverage c : Coverage.values()) {
      List<CrashState> states = CrashStates.all(t, Options.DEFAULT, c);
      TraceReplayer byImage = new TraceReplayer(t, Options.DEFAULT);
      TraceReplayer byFingerprint = new TraceReplayer(t, Options.DEFAULT);
      Map<String, Set<String>> fingerprintsOfDigest = new TreeMap<>();
      Map<String, Set<String>> digestsOfFingerprint = new TreeMap<>();
      for (CrashState s : states) {
        String d = byImage.image(s).digest();
        String f = byFingerprint.fingerprint(s);
        fingerprintsOfDigest.computeIfAbsent(d, k -> new HashSet<>()).add(f);
        digestsOfFingerprint.computeIfAbsent(f, k -> new HashSet<>()).add(d);
      }
      for (Set<String> one : fingerprintsOfDigest.values()) {
        assertEquals(1, one.size(), c + ": one image, several fingerprints " + one);
      }
      for (Set<String> one : digestsOfFingerprint.values()) {
        assertEquals(1, one.size(), c + ": one fingerprint, several images " + one);
      }
      assertEquals(digests(t, states).size(), digestsOfFingerprint.size(), c.toString());
    }
  }

  @Test
  void posixCoverageLosesEachPendingEntryChangeInTurn() throws IOException {
    FsTrace t = handBuilt();
    List<CrashState> states = CrashStates.all(t, Options.DEFAULT, Coverage.POSIX);
    // One state a pending entry change where a pending list first stands: 1 at 4, 1 at 10, 2 at
    // 12.
    assertEquals(Map.of("DROP_UNFORCED/ALL_BUT_ONE", 4L), countByKind(states));
    // Empty (create f lost), f alone (create g lost; losing it loses the rename too), f + g
    // (the rename lost).
    assertEquals(3, digests(t, states).size());
    CrashState renameLost =
        new CrashState(12, PowerCut.dropUnforced(), -1, -1, CrashState.Metadata.ALL_BUT_ONE, 1);
    CrashImage image = TraceReplayer.image(t, Options.DEFAULT, renameLost);
    assertEquals(Set.of("f", "g"), image.fileNames());
    assertArrayEquals(fill(10, 'd'), image.content("g"));
  }

  @Test
  void aTornWriteAndASkippedPageLeaveWhatTheStateNames() throws IOException {
    FsTrace t = handBuilt();
    TraceReplayer r = new TraceReplayer(t, Options.DEFAULT);
    // At 4, f's last write [5000, 5100) crosses no 512-byte boundary: it is lost whole; ZEROS
    // keeps the size it gave the file, SHORT does not.
    long at = DiskModel.lastTearPoint(5000, 5100, 512);
    assertEquals(5000, at);
    byte[] zeros =
        r.image(
                new CrashState(
                    4, PowerCut.tearLast(512, TearFill.ZEROS), 2, at, CrashState.Metadata.ALL, -1))
            .content("f");
    byte[] expect = new byte[5100];
    System.arraycopy(fill(100, 'a'), 0, expect, 0, 100);
    assertArrayEquals(expect, zeros);
    byte[] shortened =
        r.image(
                new CrashState(
                    4, PowerCut.tearLast(512, TearFill.SHORT), 2, at, CrashState.Metadata.ALL, -1))
            .content("f");
    assertArrayEquals(Arrays.copyOf(expect, 5000), shortened);
    // At 10, f's write [100, 700) tears at 512: 'c' up to 512, the durable content after it.
    assertEquals(512, DiskModel.lastTearPoint(100, 700, 512));
    byte[] torn =
        r.image(
                new CrashState(
                    10,
                    PowerCut.tearLast(512, TearFill.ZEROS),
                    2,
                    512,
                    CrashState.Metadata.ALL,
                    -1))
            .content("f");
    assertEquals('c', torn[511]);
    assertEquals(0, torn[512]);
    assertEquals('b', torn[5000]);
    // Skipping f's page 0 at 4 loses 'a' and keeps 'b'; a page no write touches is refused.
    byte[] skipped =
        r.image(new CrashState(4, PowerCut.skipOneData(), 2, 0, CrashState.Metadata.ALL, -1))
            .content("f");
    assertEquals(0, skipped[0]);
    assertEquals('b', skipped[5000]);
    assertThrows(
        IllegalArgumentException.class,
        () ->
            r.image(new CrashState(4, PowerCut.skipOneData(), 2, 7, CrashState.Metadata.ALL, -1)));
  }

  @Test
  void theForgetfulFileSystemRecordsEveryOperationAndAReplayMatchesTheLiveTree()
      throws IOException {
    ForgetfulFileSystem fs = ForgetfulFileSystem.over(tmp.resolve("disk"), Options.DEFAULT);
    FsTrace t = new FsTrace();
    fs.record(t);
    Path dir = fs.resolve("d");
    Files.createDirectory(dir);
    fs.marker("invoke 1");
    try (FileChannel ch =
        FileChannel.open(
            dir.resolve("x.tmp"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(fill(3000, 'x')));
      ch.truncate(2000);
      ch.force(true);
    }
    Files.move(dir.resolve("x.tmp"), dir.resolve("x"), StandardCopyOption.ATOMIC_MOVE);
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
    Files.delete(dir.resolve("x"));
    fs.marker("ack 1");
    List<Class<?>> kinds = t.ops().stream().<Class<?>>map(Object::getClass).toList();
    assertEquals(
        List.of(
            FsOp.Mkdir.class,
            FsOp.Marker.class,
            FsOp.Create.class,
            FsOp.Write.class,
            FsOp.Truncate.class,
            FsOp.Force.class,
            FsOp.Rename.class,
            FsOp.DirForce.class,
            FsOp.Unlink.class,
            FsOp.Marker.class),
        kinds);
    for (int i = 0; i < t.size(); i++) {
      assertEquals(i, t.ops().get(i).seq(), "global sequence numbers");
    }
    assertEquals(1, t.markerValues("ack")[t.size()]);
    assertEquals(0, t.markerValues("ack")[t.size() - 1]);
    // Every prefix's KEEP_ALL image from the trace alone equals what the live disk showed then.
    CrashImage live = CrashImage.read(tmp.resolve("disk"));
    assertEquals(live, TraceReplayer.image(t, Options.DEFAULT, CrashState.keepAll(t.size())));
    // The durable state: the directory is not forced in the root, so nothing survives.
    assertEquals(
        Set.of(),
        TraceReplayer.image(t, Options.DEFAULT, CrashState.dropUnforced(t.size())).directories());
  }

  @Test
  void aSavedTraceLoadsBackAndGivesTheSameImages() throws IOException {
    FsTrace t = handBuilt();
    Path file = tmp.resolve("t.trace");
    t.save(file);
    FsTrace back = FsTrace.load(file);
    assertEquals(t.size(), back.size());
    assertEquals(t.ops().toString(), back.ops().toString());
    List<CrashState> states = CrashStates.all(t, Options.DEFAULT, Coverage.ORDERED);
    assertEquals(states, CrashStates.all(back, Options.DEFAULT, Coverage.ORDERED));
    assertEquals(digests(t, states), digests(back, states));
    // Rewinding restarts from the empty disk and gives the same image.
    TraceReplayer r = new TraceReplayer(back, Options.DEFAULT);
    String late = r.image(CrashState.keepAll(13)).digest();
    assertEquals(
        TraceReplayer.image(t, Options.DEFAULT, CrashState.keepAll(3)).digest(),
        r.image(CrashState.keepAll(3)).digest());
    assertEquals(late, r.image(CrashState.keepAll(13)).digest());
  }

  @Test
  void recordingStartsOnAnEmptyDiskOnly() throws IOException {
    Files.createDirectories(tmp.resolve("full"));
    Files.write(tmp.resolve("full").resolve("old"), new byte[] {1});
    ForgetfulFileSystem fs = ForgetfulFileSystem.over(tmp.resolve("full"), Options.DEFAULT);
    assertThrows(IllegalStateException.class, () -> fs.record(new FsTrace()));
    List<CrashState> sample =
        CrashStates.sample(
            CrashStates.all(handBuilt(), Options.DEFAULT, Coverage.ORDERED),
            10,
            new SplittableRandom(1));
    assertEquals(10, sample.size());
  }
}
