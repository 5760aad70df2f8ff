package org.searchlab.mutable.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.searchlab.mutable.memory.Pages.PAGE_SIZE;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/**
 * {@link PagedBits}: bits and the count across word and page boundaries, {@link
 * PagedBits#nextSetBit}, snapshots, and readers racing a writer that grows the set over several
 * pages of words.
 */
class PagedBitsTest {
  private static final int BITS_PER_PAGE = PAGE_SIZE * 64;

  @Test
  void bitsAndCountAcrossWordAndPageBoundaries() throws IOException {
    PagedBits bits = new PagedBits();
    assertFalse(bits.get(5));
    assertEquals(-1, bits.nextSetBit(0, 100));
    int[] at = {0, 63, 64, 65, BITS_PER_PAGE - 1, BITS_PER_PAGE, 3 * BITS_PER_PAGE + 7};
    for (int i : at) {
      bits.set(i);
      bits.set(i); // a second set changes nothing
    }
    assertEquals(at.length, bits.cardinality());
    for (int i : at) {
      assertTrue(bits.get(i), "bit " + i);
    }
    for (int i :
        new int[] {1, 62, 66, BITS_PER_PAGE - 2, BITS_PER_PAGE + 1, 3 * BITS_PER_PAGE + 8}) {
      assertFalse(bits.get(i), "unset bit " + i);
    }
    assertEquals(1L | 1L << 63, bits.word(0));
    assertEquals(0b11L, bits.word(1));
    assertEquals(BITS_PER_PAGE - 1, bits.nextSetBit(66, Integer.MAX_VALUE));
    assertEquals(-1, bits.nextSetBit(66, BITS_PER_PAGE - 1));
    assertEquals(BITS_PER_PAGE, bits.nextSetBit(BITS_PER_PAGE, BITS_PER_PAGE + 1));
    assertEquals(3 * BITS_PER_PAGE + 7, bits.nextSetBit(BITS_PER_PAGE + 1, Integer.MAX_VALUE));
    assertFalse(bits.get((int) bits.capacity() + 64));
    assertEquals(0, bits.word((int) (bits.capacity() >>> 6) + 1));

    bits.clear(64);
    bits.clear(64); // a second clear changes nothing
    bits.clear((int) bits.capacity() + 100); // past the end: nothing to clear
    assertEquals(at.length - 1, bits.cardinality());
    assertFalse(bits.get(64));
    assertTrue(bits.get(65), "clearing bit 64 kept bit 65 of the same word");

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int n = 3 * BITS_PER_PAGE + 8;
    bits.write(new DataOutputStream(bytes), n);
    PagedBits copy = new PagedBits();
    copy.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    assertEquals(bits.cardinality(), copy.cardinality());
    for (int i = 0; i < n; i++) {
      assertEquals(bits.get(i), copy.get(i), "bit " + i + " after a round trip");
    }
  }

  /**
   * The writer sets every bit {@code i} with {@code i % 3 != 0} in order over three pages of words
   * and publishes a limit after each; readers check random bits and {@code nextSetBit} below the
   * limit they read. A lost bit (a stale read-modify-write of a word) or a missing page fails.
   */
  @Test
  void readersSeeEveryPublishedBitWhileTheSetGrows() throws Exception {
    long seed = TestSeeds.seed("PagedBitsTest.growth");
    PagedBits bits = new PagedBits();
    int n = 2 * BITS_PER_PAGE + 1000;
    AtomicInteger limit = new AtomicInteger();
    List<Runnable> checks = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      SplittableRandom r = new SplittableRandom(seed + t);
      checks.add(
          () -> {
            int l = limit.get();
            if (l == 0) {
              return;
            }
            int j = r.nextInt(l);
            if (bits.get(j) != expected(j)) {
              throw new AssertionError("bit " + j + " below the limit " + l);
            }
            int want = expected(j) ? j : j + 1; // never two unset bits in a row
            int next = bits.nextSetBit(j, l);
            if (next != (want < l ? want : -1)) {
              throw new AssertionError("nextSetBit(" + j + ", " + l + ") = " + next);
            }
          });
    }
    long made =
        Race.run(
            n,
            256,
            i -> {
              if (expected(i)) {
                bits.set(i);
              }
              limit.set(i + 1);
            },
            checks);
    assertTrue(made >= n / 256, "checks " + made);
    int count = 0;
    for (int i = 0; i < n; i++) {
      assertEquals(expected(i), bits.get(i), "bit " + i);
      count += expected(i) ? 1 : 0;
    }
    assertEquals(count, bits.cardinality());
  }

  private static boolean expected(int i) {
    return i % 3 != 0;
  }
}
