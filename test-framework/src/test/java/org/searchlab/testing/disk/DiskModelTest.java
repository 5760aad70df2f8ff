package org.searchlab.testing.disk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.searchlab.testing.disk.DiskModel.ROOT;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.searchlab.testing.disk.DiskModel.MetadataOrder;
import org.searchlab.testing.disk.DiskModel.Options;
import org.searchlab.testing.disk.PowerCut.TearFill;

/**
 * The power-cut semantics of the design note of issue 70, §3, one case a row, on the model alone.
 * Where a cut draws at random, the case runs it over many fixed seeds and checks both that every
 * image is one the row allows and that each allowed outcome occurs.
 */
class DiskModelTest {
  private static final int SEEDS = 200;

  private static byte[] fill(int n, char c) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) c);
    return b;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static CrashImage cut(DiskModel m, PowerCut cut) {
    return m.image(cut, new SplittableRandom(0));
  }

  /** A file {@code name} in the root whose entry and content {@code durable} are forced. */
  private static long durableFile(DiskModel m, String name, byte[] durable) throws IOException {
    long f = m.create(ROOT, name);
    m.write(f, 0, durable);
    m.force(f);
    m.forceDirectory(ROOT);
    return f;
  }

  @Test
  void anUnforcedWriteIsDroppedAndKeepAllKeepsIt() throws IOException {
    DiskModel m = new DiskModel(Options.DEFAULT);
    long f = m.create(ROOT, "f");
    m.forceDirectory(ROOT);
    m.write(f, 0, utf8("abc"));
    assertEquals("", text(cut(m, PowerCut.dropUnforced()).content("f")));
    assertEquals("abc", text(cut(m, PowerCut.keepAll()).content("f")));
  }

  @Test
  void aForceMakesEveryEarlierWriteOfTheInodeDurable() throws IOException {
    DiskModel m = new DiskModel(Options.DEFAULT);
    long f = m.create(ROOT, "f");
    m.forceDirectory(ROOT);
    m.write(f, 0, utf8("ab"));
    m.write(f, 2, utf8("c"));
    m.force(f);
    m.write(f, 3, utf8("xyz"));
    assertEquals("abc", text(cut(m, PowerCut.dropUnforced()).content("f")));
    assertEquals("abcxyz", text(cut(m, PowerCut.keepAll()).content("f")));
  }

  @Test
  void aTruncationIsOrderedWithTheWrites() throws IOException {
    DiskModel m = new DiskModel(Options.DEFAULT);
    long f = durableFile(m, "f", fill(10, 'a'));
    m.truncate(f, 4);
    m.write(f, 8, utf8("xy"));
    assertEquals("aaaaaaaaaa", text(cut(m, PowerCut.dropUnforced()).content("f")));
    byte[] expected = utf8("aaaa\0\0\0\0xy");
    assertArrayEquals(expected, cut(m, PowerCut.keepAll()).content("f"));
    m.force(f);
    assertArrayEquals(expected, cut(m, PowerCut.dropUnforced()).content("f"));
  }

  @Test
  void aNewEntryIsLostWithoutADirectoryForceEvenWhenItsDataWasForced() throws IOException {
    DiskModel m = new DiskModel(Options.DEFAULT);
    long f = m.create(ROOT, "f");
    m.write(f, 0, utf8("data"));
    m.force(f);
    long d = m.mkdir(ROOT, "d");
    long g = m.create(d, "g");
    m.forceDirectory(d); // g's entry is durable in d, but d's own entry is not
    m.force(g);
    CrashImage dropped = cut(m, PowerCut.dropUnforced());
    assertEquals(Set.of(), dropped.fileNames());
    assertEquals(Set.of(), dropped.directories());

    m.forceDirectory(ROOT);
    CrashImage forced = cut(m, PowerCut.dropUnforced());
    assertEquals("data", text(forced.content("f")));
    assertEquals(Set.of("d"), forced.directories());
    assertEquals(Set.of("d/g", "f"), forced.fileNames());
  }

  @Test
  void withExt4sRuleAFileForceMakesItsOwnEntryDurable() throws IOException {
    DiskModel m = new DiskModel(Options.DEFAULT.withFsyncPersistsOwnEntry(true));
    long f = m.create(ROOT, "f");
    m.create(ROOT, "later");
    m.write(f, 0, utf8("data"));
    m.force(f);
    CrashImage image = cut(m, PowerCut.dropUnforced());
    assertEquals("data", text(image.content("f")));
    assertNull(image.content("later"), "a later entry of the directory is not f's to commit");
  }

  @Test
  void renamesAndUnlinksAreLostWithoutADirectoryForce() throws IOException {
    DiskModel m = new DiskModel(Options.DEFAULT);
    durableFile(m, "a", utf8("A"));
    durableFile(m, "b", utf8("B"));
    durableFile(m, "c", utf8("C"));
    m.rename(ROOT, "a", ROOT, "b"); // replaces b
    m.unlink(ROOT, "c");
    CrashImage dropped = cut(m, PowerCut.dropUnforced());
    assertEquals(Set.of("a", "b", "c"), dropped.fileNames());
    assertEquals("B", text(dropped.content("b")));

    m.forceDirectory(ROOT);
    CrashImage forced = cut(m, PowerCut.dropUnforced());
    assertEquals(Set.of("b"), forced.fileNames());
    assertEquals("A", text(forced.content("b")));
  }

  @Test
  void aDurableEntryOfANeverForcedFileHoldsNothing() throws IOException {
    // ext4's zero-length file after a rename: why every store forces before it renames.
    DiskModel m = new DiskModel(Options.DEFAULT);
    long tmp = m.create(ROOT, "x.tmp");
    m.write(tmp, 0, utf8("content"));
    m.rename(ROOT, "x.tmp", ROOT, "x");
    m.forceDirectory(ROOT);
    CrashImage image = cut(m, PowerCut.dropUnforced());
    assertEquals(Set.of("x"), image.fileNames());
    assertEquals(0, image.content("x").length);
  }

  @Test
  void keepAllReplaysEveryChangeInIssueOrder() throws IOException {
    DiskModel m = new DiskModel(Options.DEFAULT);
    long d = m.mkdir(ROOT, "d");
    long f = m.create(d, "f.tmp");
    m.write(f, 0, utf8("one"));
    m.rename(d, "f.tmp", d, "f");
    long g = m.create(ROOT, "g");
    m.write(g, 0, utf8("two"));
    m.unlink(ROOT, "g");
    CrashImage image = cut(m, PowerCut.keepAll());
    assertEquals(Set.of("d"), image.directories());
    assertEquals(Set.of("d/f"), image.fileNames());
    assertEquals("one", text(image.content("d/f")));
  }

  private static Set<Set<String>> namesOverSeeds(DiskModel m, PowerCut cut) {
    Set<Set<String>> seen = new HashSet<>();
    for (int s = 0; s < SEEDS; s++) {
      seen.add(new TreeSet<>(m.image(cut, new SplittableRandom(s)).fileNames()));
    }
    return seen;
  }

  @Test
  void orderedKeepsAPrefixOfEachDirectorysChanges() throws IOException {
    DiskModel m = new DiskModel(Options.DEFAULT);
    for (String name : List.of("a", "b", "c")) {
      m.create(ROOT, name);
    }
    for (PowerCut cut : List.of(PowerCut.skipOneData(), PowerCut.tearLast(512, TearFill.ZEROS))) {
      assertEquals(
          Set.of(Set.of(), Set.of("a"), Set.of("a", "b"), Set.of("a", "b", "c")),
          namesOverSeeds(m, cut),
          cut.toString());
    }
  }

  @Test
  void posixDropsOneChangeAndEveryLaterOneItEnables() throws IOException {
    DiskModel m = new DiskModel(Options.DEFAULT.withOrder(MetadataOrder.POSIX));
    for (String name : List.of("a", "b", "c")) {
      m.create(ROOT, name);
    }
    assertEquals(
        Set.of(Set.of("b", "c"), Set.of("a", "c"), Set.of("a", "b")),
        namesOverSeeds(m, PowerCut.skipOneData()));

    // A rename of a file whose creation was lost cannot persist: never y without x's creation.
    DiskModel renames = new DiskModel(Options.DEFAULT.withOrder(MetadataOrder.POSIX));
    renames.create(ROOT, "x");
    renames.rename(ROOT, "x", ROOT, "y");
    assertEquals(Set.of(Set.of(), Set.of("x")), namesOverSeeds(renames, PowerCut.skipOneData()));
    DiskModel ordered = new DiskModel(Options.DEFAULT);
    ordered.create(ROOT, "x");
    ordered.rename(ROOT, "x", ROOT, "y");
    assertEquals(
        Set.of(Set.of(), Set.of("x"), Set.of("y")),
        namesOverSeeds(ordered, PowerCut.skipOneData()));
  }

  @ParameterizedTest
  @CsvSource({"512, ZEROS", "512, SHORT", "4096, ZEROS", "4096, SHORT"})
  void theLastUnforcedWriteTearsAtABoundaryOfTheFileOffset(int tearBytes, TearFill fill)
      throws IOException {
    DiskModel m = new DiskModel(Options.DEFAULT);
    long f = durableFile(m, "f", fill(1000, 'a'));
    m.write(f, 1000, fill(100, 'b'));
    m.write(f, 1100, fill(4900, 'c')); // the last write: torn
    PowerCut cut = PowerCut.tearLast(tearBytes, fill);
    Set<Integer> tears = new TreeSet<>();
    for (int s = 0; s < SEEDS; s++) {
      byte[] c = m.image(cut, new SplittableRandom(s)).content("f");
      assertArrayEquals(fill(1000, 'a'), Arrays.copyOf(c, 1000), "durable bytes");
      assertArrayEquals(fill(100, 'b'), Arrays.copyOfRange(c, 1000, 1100), "earlier writes whole");
      int tear = 1100;
      while (tear < c.length && c[tear] == 'c') {
        tear++;
      }
      tears.add(tear);
      assertEquals(0, tear % tearBytes, "torn at a boundary: " + tear);
      assertTrue(tear > 1100 && tear < 6000, "strictly inside the write: " + tear);
      if (fill == TearFill.ZEROS) {
        assertEquals(6000, c.length, "the size persisted");
        assertArrayEquals(new byte[6000 - tear], Arrays.copyOfRange(c, tear, 6000), "zeros");
      } else {
        assertEquals(tear, c.length, "the file ends at the tear");
      }
    }
    if (tearBytes == 4096) {
      assertEquals(Set.of(4096), tears, "the only page boundary inside the write");
    } else {
      assertEquals(9, tears.size(), "every sector boundary from 1536 to 5632 occurs: " + tears);
    }
  }

  @Test
  void aTornOverwriteKeepsTheOldBytesAfterTheTear() throws IOException {
    for (TearFill fill : TearFill.values()) {
      DiskModel m = new DiskModel(Options.DEFAULT);
      long f = durableFile(m, "f", fill(1000, 'a'));
      m.write(f, 0, fill(1000, 'c'));
      byte[] expected = fill(1000, 'a');
      Arrays.fill(expected, 0, 512, (byte) 'c');
      assertArrayEquals(expected, cut(m, PowerCut.tearLast(512, fill)).content("f"), fill.name());

      // A write crossing no boundary is lost whole; ZEROS keeps its size.
      m.write(f, 1000, fill(100, 'd'));
      byte[] c = cut(m, PowerCut.tearLast(4096, fill)).content("f");
      assertEquals(fill == TearFill.ZEROS ? 1100 : 1000, c.length, fill.name());
      assertArrayEquals(new byte[c.length - 1000], Arrays.copyOfRange(c, 1000, c.length));
    }
  }

  @Test
  void skipOneDataLosesOnePageWhileLaterPagesPersist() throws IOException {
    DiskModel m = new DiskModel(Options.DEFAULT);
    long f = m.create(ROOT, "f");
    m.forceDirectory(ROOT);
    m.write(f, 0, fill(3 * 4096, 'r')); // one write call, three pages
    Set<Integer> skipped = new TreeSet<>();
    for (int s = 0; s < SEEDS; s++) {
      byte[] c = m.image(PowerCut.skipOneData(), new SplittableRandom(s)).content("f");
      assertEquals(3 * 4096, c.length, "later pages extended the file");
      int holes = 0;
      for (int p = 0; p < 3; p++) {
        byte[] page = Arrays.copyOfRange(c, p * 4096, (p + 1) * 4096);
        if (Arrays.equals(page, new byte[4096])) {
          holes++;
          skipped.add(p);
        } else {
          assertArrayEquals(fill(4096, 'r'), page, "page " + p);
        }
      }
      assertEquals(1, holes, "exactly one page is a hole of zeros");
    }
    assertEquals(Set.of(0, 1, 2), skipped);

    // Over durable content, the skipped page keeps it.
    DiskModel over = new DiskModel(Options.DEFAULT);
    long g = durableFile(over, "g", fill(8192, 'a'));
    over.write(g, 0, fill(8192, 'b'));
    Set<String> seen = new HashSet<>();
    for (int s = 0; s < SEEDS; s++) {
      byte[] c = over.image(PowerCut.skipOneData(), new SplittableRandom(s)).content("g");
      seen.add(text(Arrays.copyOf(c, 1)) + text(Arrays.copyOfRange(c, 4096, 4097)));
    }
    assertEquals(Set.of("ab", "ba"), seen);
  }

  @Test
  void aCutStopsTheDisk() throws IOException {
    DiskModel m = new DiskModel(Options.DEFAULT);
    long f = durableFile(m, "f", utf8("x"));
    m.powerCut(PowerCut.dropUnforced(), new SplittableRandom(0));
    assertTrue(m.isCut());
    IOException e = assertThrows(IOException.class, () -> m.write(f, 0, utf8("y")));
    assertTrue(e.getMessage().contains("power lost"), e.getMessage());
    assertThrows(IOException.class, () -> m.force(f));
    assertThrows(IOException.class, () -> m.create(ROOT, "g"));
    assertThrows(
        IOException.class, () -> m.powerCut(PowerCut.dropUnforced(), new SplittableRandom(0)));
  }

  @Test
  void theDigestCoversNamesAndContentsAndSurvivesWritingTheImage(@TempDir Path tmp)
      throws IOException {
    DiskModel m = new DiskModel(Options.DEFAULT);
    long d = m.mkdir(ROOT, "d");
    long f = m.create(d, "f");
    m.write(f, 0, utf8("content"));
    CrashImage a = cut(m, PowerCut.keepAll());
    assertEquals(a.digest(), cut(m, PowerCut.keepAll()).digest());
    assertNotEquals(a.digest(), cut(m, PowerCut.dropUnforced()).digest());
    m.write(f, 0, utf8("C"));
    assertNotEquals(a.digest(), cut(m, PowerCut.keepAll()).digest(), "one byte differs");

    a.writeTo(tmp.resolve("image"));
    CrashImage back = CrashImage.read(tmp.resolve("image"));
    assertEquals(a.digest(), back.digest());
    assertEquals("content", text(back.content("d/f")));
    assertThrows(IOException.class, () -> a.writeTo(tmp.resolve("image")), "not empty");
  }

  @Test
  void anArmedCutFiresRightAfterTheWriteThatLeavesEnoughUnforced() throws Exception {
    DiskModel m = new DiskModel(Options.DEFAULT);
    long f = durableFile(m, "f", utf8("forced"));
    var armed = m.cutWhenUnforced(10, PowerCut.keepAll(), new SplittableRandom(0));
    m.write(f, 6, utf8("12345"));
    assertTrue(!armed.isDone() && !m.isCut(), "5 bytes unforced: not yet");
    m.write(f, 11, utf8("67890")); // succeeds, then the power goes
    assertTrue(m.isCut());
    assertEquals("forced1234567890", text(armed.get().content("f")));
    assertThrows(IOException.class, () -> m.force(f));
  }
}
