package org.searchlab.testing.disk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.testing.disk.DiskModel.Options;

/**
 * The forgetful file system through the plain {@code java.nio.file} API a store uses: the namespace
 * half (directories and entries with and without a directory force) and the data half (streams,
 * channels, a force through another channel, tears and skipped pages in real images).
 */
class ForgetfulFileSystemTest {
  @TempDir Path tmp;

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static byte[] fill(int n, char c) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) c);
    return b;
  }

  /** Fsyncs a directory as the stores do: a channel opened for reading, forced. */
  private static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  private static CrashImage dropUnforced(ForgetfulFileSystem fs) {
    return fs.crashImage(PowerCut.dropUnforced(), new SplittableRandom(0));
  }

  private ForgetfulFileSystem newFs(String name) throws IOException {
    return ForgetfulFileSystem.over(tmp.resolve(name), Options.DEFAULT);
  }

  // ---- namespace half ----

  @Test
  void entriesWithoutADirectoryForceAreLostAndKeepAllIsTheLiveTree() throws IOException {
    ForgetfulFileSystem fs = newFs("disk");
    Path d = fs.resolve("d", "e");
    Files.createDirectories(d);
    Path f = d.resolve("f");
    Files.write(f, utf8("x"));
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
      ch.force(true); // the data is durable, its entry and its directories' are not
    }
    assertEquals(Set.of(), dropUnforced(fs).fileNames());
    assertEquals(Set.of(), dropUnforced(fs).directories());
    CrashImage all = fs.crashImage(PowerCut.keepAll(), new SplittableRandom(0));
    assertEquals(CrashImage.read(tmp.resolve("disk")).digest(), all.digest());
    assertEquals(Set.of("d", "d/e"), all.directories());
  }

  @Test
  void mkdirCreateRenameAndDeletePersistOnceTheirDirectoryIsForced() throws IOException {
    ForgetfulFileSystem fs = newFs("disk");
    Path d = fs.resolve("d");
    Files.createDirectory(d);
    forceDirectory(fs.root());
    assertEquals(Set.of("d"), dropUnforced(fs).directories());

    Path a = d.resolve("a");
    try (FileChannel ch =
        FileChannel.open(a, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(utf8("A")));
      ch.force(false);
    }
    assertEquals(Set.of(), dropUnforced(fs).fileNames());
    forceDirectory(d);
    assertEquals("A", text(dropUnforced(fs).content("d/a")));

    Path b = d.resolve("b");
    Files.move(a, b, StandardCopyOption.ATOMIC_MOVE);
    assertEquals(Set.of("d/a"), dropUnforced(fs).fileNames(), "the rename is not durable yet");
    forceDirectory(d);
    assertEquals(Set.of("d/b"), dropUnforced(fs).fileNames());
    assertEquals("A", text(dropUnforced(fs).content("d/b")));

    Files.delete(b);
    assertFalse(Files.exists(b), "the live tree lost it at once");
    assertEquals(Set.of("d/b"), dropUnforced(fs).fileNames(), "the unlink is not durable yet");
    forceDirectory(d);
    assertEquals(Set.of(), dropUnforced(fs).fileNames());
  }

  @Test
  void whatTheDirectoryHeldBeforeIsDurable() throws IOException {
    Path realRoot = tmp.resolve("disk");
    Files.createDirectories(realRoot.resolve("wal"));
    Files.write(realRoot.resolve("wal/wal-1.log"), utf8("records"));
    Files.write(realRoot.resolve("store.properties"), utf8("k=v"));
    ForgetfulFileSystem fs = ForgetfulFileSystem.over(realRoot, Options.DEFAULT);
    assertEquals(CrashImage.read(realRoot).digest(), dropUnforced(fs).digest());
  }

  @Test
  void pathsListAndDescribeTheRealTree() throws IOException {
    ForgetfulFileSystem fs = newFs("disk");
    Path wal = fs.resolve("wal");
    Files.createDirectories(wal);
    Files.createDirectories(wal); // exists: no error, no second entry
    Files.write(wal.resolve("wal-2.log"), utf8("two"));
    Files.write(wal.resolve("wal-1.log"), utf8("one"));
    Files.write(wal.resolve("other.txt"), utf8("x"));
    List<Path> logs = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(wal, "wal-*.log")) {
      ds.forEach(logs::add);
    }
    logs.sort(null);
    assertEquals(List.of(wal.resolve("wal-1.log"), wal.resolve("wal-2.log")), logs);
    for (Path p : logs) {
      assertSame(fs, p.getFileSystem());
    }
    assertEquals(3, Files.size(logs.get(0)));
    assertTrue(Files.isDirectory(wal));
    assertEquals(wal, wal.toRealPath());
    assertSame(fs, wal.toAbsolutePath().getFileSystem());
    assertEquals("one", text(Files.readAllBytes(logs.get(0))));
    assertThrows(IOException.class, () -> Files.write(fs.getPath(tmp.toString(), "x"), utf8("x")));
  }

  // ---- data half ----

  @Test
  void streamsAndChannelsRoundTripAndOnlyForcedBytesSurvive() throws IOException {
    ForgetfulFileSystem fs = newFs("disk");
    Path f = fs.resolve("f");
    Files.write(f, utf8("hello"));
    forceDirectory(fs.root());
    assertEquals("hello", text(Files.readAllBytes(f)));
    assertEquals("", text(dropUnforced(fs).content("f")), "written, never forced");

    try (OutputStream out = Files.newOutputStream(f)) { // truncates
      out.write(utf8("abc"));
    }
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
      ch.write(ByteBuffer.wrap(utf8("Z")), 1);
      ch.position(3);
      ch.write(new ByteBuffer[] {ByteBuffer.wrap(utf8("de")), ByteBuffer.wrap(utf8("f"))});
      ch.force(false);
      ch.write(ByteBuffer.wrap(utf8("-unforced")));
    }
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.APPEND)) {
      ch.write(ByteBuffer.wrap(utf8("+appended")));
    }
    assertEquals("aZcdef-unforced+appended", text(Files.readAllBytes(f)));
    assertEquals("aZcdef", text(dropUnforced(fs).content("f")));
    assertEquals(
        CrashImage.read(tmp.resolve("disk")).digest(),
        fs.crashImage(PowerCut.keepAll(), new SplittableRandom(0)).digest());

    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
      ch.truncate(2);
      assertEquals("aZcdef", text(dropUnforced(fs).content("f")), "the cut is not durable yet");
      ch.force(true);
    }
    assertEquals("aZ", text(dropUnforced(fs).content("f")));
  }

  @Test
  void aForceThroughAnotherChannelCoversTheFile() throws IOException {
    // HnswSnapshot writes through a stream and forces through a second channel (M1).
    ForgetfulFileSystem fs = newFs("disk");
    Path f = fs.resolve("graph.bin.tmp");
    try (OutputStream out = Files.newOutputStream(f)) {
      out.write(fill(10_000, 'g'));
    }
    forceDirectory(fs.root());
    assertEquals(0, dropUnforced(fs).content("graph.bin.tmp").length);
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
      ch.force(true);
    }
    assertArrayEquals(fill(10_000, 'g'), dropUnforced(fs).content("graph.bin.tmp"));
  }

  @Test
  void aTearAndASkippedPageShowInTheWrittenImage() throws IOException {
    ForgetfulFileSystem fs = newFs("disk");
    Path f = fs.resolve("log");
    try (FileChannel ch =
        FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(fill(1000, 'a')));
      ch.force(false);
      forceDirectory(fs.root());
      ch.write(ByteBuffer.wrap(fill(3 * 4096, 'b'))); // unforced: offsets 1000 to 13288
    }

    Path skipped = tmp.resolve("skipped");
    fs.crashImage(PowerCut.skipOneData(), new SplittableRandom(1)).writeTo(skipped);
    byte[] s = Files.readAllBytes(skipped.resolve("log"));
    assertEquals(13_288, s.length);
    assertArrayEquals(fill(1000, 'a'), Arrays.copyOf(s, 1000), "forced bytes are kept");
    int zeros = 0;
    for (byte x : s) {
      zeros += x == 0 ? 1 : 0;
    }
    assertTrue(zeros > 0 && zeros <= 4096, "one page, or its part past the durable end: " + zeros);

    Path torn = tmp.resolve("torn");
    CrashImage cut =
        fs.powerCut(PowerCut.tearLast(4096, PowerCut.TearFill.SHORT), new SplittableRandom(2));
    cut.writeTo(torn);
    byte[] t = Files.readAllBytes(torn.resolve("log"));
    assertTrue(t.length % 4096 == 0 && t.length > 1000 && t.length < 13_288, "" + t.length);
    assertArrayEquals(fill(t.length - 1000, 'b'), Arrays.copyOfRange(t, 1000, t.length));

    // The disk is dead: every operation fails, as on a device that lost power.
    assertTrue(fs.isCut());
    IOException e = assertThrows(IOException.class, () -> Files.write(f, utf8("x")));
    assertTrue(e.getMessage().contains("power lost"), e.getMessage());
    assertThrows(IOException.class, () -> Files.readAllBytes(f));

    // A fresh forgetful file system over the image starts with all of it durable.
    ForgetfulFileSystem again = ForgetfulFileSystem.over(torn, Options.DEFAULT);
    assertEquals(cut.digest(), dropUnforced(again).digest());
  }
}
