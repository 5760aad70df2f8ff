package org.searchlab.mutable.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.searchlab.testing.TestSeeds;

/**
 * {@link PagedInts}, {@link PagedLongs} and {@link PagedBytes}, through one adapter: values land on
 * the right side of page boundaries, new pages read as the fill value, a snapshot round-trips, and
 * readers racing a writer that grows the column page after page never fail, never see a value that
 * was not written (a torn long has unequal halves), and see every value published to them.
 */
class PagedColumnsTest {
  /** One column type behind a common face; values are longs, narrowed by the column. */
  enum Kind {
    INTS {
      @Override
      Column create() {
        return new IntsColumn();
      }
    },
    LONGS {
      @Override
      Column create() {
        return new LongsColumn();
      }
    },
    BYTES {
      @Override
      Column create() {
        return new BytesColumn();
      }
    };

    abstract Column create();
  }

  /** What the tests need of a column. */
  abstract static class Column {
    final long fill;

    Column(long fill) {
      this.fill = fill;
    }

    abstract void set(int i, long v);

    abstract void setRelease(int i, long v);

    abstract long get(int i);

    abstract long getAcquire(int i);

    abstract int capacity();

    abstract void ensure(int i);

    abstract void write(DataOutputStream out, int n) throws IOException;

    abstract Column readCopy(DataInputStream in) throws IOException;

    /** The value the tests write at {@code i}: never the fill value, never 0. */
    abstract long value(int i);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void valuesLandOnTheirSideOfPageBoundaries(Kind kind) throws IOException {
    Column c = kind.create();
    assertEquals(0, c.capacity());
    c.set(PAGE_SIZE - 1, c.value(PAGE_SIZE - 1));
    assertEquals(PAGE_SIZE, c.capacity());
    c.set(PAGE_SIZE, c.value(PAGE_SIZE));
    assertTrue(c.capacity() >= 2 * PAGE_SIZE, "capacity " + c.capacity());
    int far = 5 * PAGE_SIZE + 3;
    c.setRelease(far, c.value(far));
    assertTrue(c.capacity() > far, "capacity " + c.capacity());
    for (int i : new int[] {0, PAGE_SIZE - 2, PAGE_SIZE + 1, 2 * PAGE_SIZE, far - 1, far + 1}) {
      assertEquals(c.fill, c.get(i), "unwritten entry " + i);
    }
    for (int i : new int[] {PAGE_SIZE - 1, PAGE_SIZE, far}) {
      assertEquals(c.value(i), c.get(i), "entry " + i);
      assertEquals(c.value(i), c.getAcquire(i), "entry " + i);
    }
    int beyond = c.capacity() + 2 * PAGE_SIZE;
    c.ensure(beyond);
    assertTrue(c.capacity() > beyond);
    assertEquals(c.fill, c.get(beyond));

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int n = far + 2 * PAGE_SIZE; // past what the column had when written: padded with fill
    c.write(new DataOutputStream(bytes), n);
    Column copy = c.readCopy(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    for (int i = 0; i < n; i++) {
      assertEquals(c.get(i), copy.get(i), "entry " + i + " after a round trip");
    }
  }

  /**
   * One writer fills a column id after id across six pages, publishing a limit after each value (as
   * {@code LocalIds} publishes its limit); readers check ids below the limit they read, the last
   * one, and ids past it up to the capacity (fill, or the value being written).
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void readersNeverSeeUnwrittenOrTornValuesWhileTheColumnGrows(Kind kind) throws Exception {
    long seed = TestSeeds.seed("PagedColumnsTest.growth." + kind);
    Column c = kind.create();
    int n = 6 * PAGE_SIZE + 11;
    AtomicLong limit = new AtomicLong();
    List<Runnable> checks = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      SplittableRandom r = new SplittableRandom(seed + t);
      checks.add(
          () -> {
            int l = (int) limit.get();
            if (l > 0) {
              check(c, l - 1, true);
              check(c, r.nextInt(l), true);
            }
            int cap = c.capacity();
            if (cap > l) {
              check(c, l + r.nextInt(cap - l), false);
            }
          });
    }
    long made =
        Race.run(
            n,
            64,
            i -> {
              if ((i & 1) == 0) {
                c.set(i, c.value(i));
              } else {
                c.setRelease(i, c.value(i));
              }
              limit.set(i + 1);
            },
            checks);
    assertTrue(made >= n / 64, "checks " + made);
    for (int i = 0; i < n; i++) {
      assertEquals(c.value(i), c.get(i), "entry " + i);
    }
  }

  /** Published ids hold their value; others hold the fill or their value (being written). */
  private static void check(Column c, int i, boolean published) {
    long plain = c.get(i);
    long acquired = c.getAcquire(i);
    for (long v : new long[] {plain, acquired}) {
      boolean ok = v == c.value(i) || (!published && v == c.fill);
      if (!ok) {
        throw new AssertionError(
            "entry "
                + i
                + (published ? " (published)" : "")
                + " reads "
                + v
                + ", wrote "
                + c.value(i));
      }
    }
  }

  private static final class IntsColumn extends Column {
    private final PagedInts c = new PagedInts(-7);

    IntsColumn() {
      super(-7);
    }

    @Override
    void set(int i, long v) {
      c.set(i, (int) v);
    }

    @Override
    void setRelease(int i, long v) {
      c.setRelease(i, (int) v);
    }

    @Override
    long get(int i) {
      return c.get(i);
    }

    @Override
    long getAcquire(int i) {
      return c.getAcquire(i);
    }

    @Override
    int capacity() {
      return c.capacity();
    }

    @Override
    void ensure(int i) {
      c.ensure(i);
    }

    @Override
    void write(DataOutputStream out, int n) throws IOException {
      c.write(out, n);
    }

    @Override
    Column readCopy(DataInputStream in) throws IOException {
      IntsColumn copy = new IntsColumn();
      copy.c.read(in);
      return copy;
    }

    @Override
    long value(int i) {
      return i + 1;
    }
  }

  private static final class LongsColumn extends Column {
    private final PagedLongs c = new PagedLongs(-7L);

    LongsColumn() {
      super(-7L);
    }

    @Override
    void set(int i, long v) {
      c.set(i, v);
    }

    @Override
    void setRelease(int i, long v) {
      c.setRelease(i, v);
    }

    @Override
    long get(int i) {
      return c.get(i);
    }

    @Override
    long getAcquire(int i) {
      return c.getAcquire(i);
    }

    @Override
    int capacity() {
      return c.capacity();
    }

    @Override
    void ensure(int i) {
      c.ensure(i);
    }

    @Override
    void write(DataOutputStream out, int n) throws IOException {
      c.write(out, n);
    }

    @Override
    Column readCopy(DataInputStream in) throws IOException {
      LongsColumn copy = new LongsColumn();
      copy.c.read(in);
      return copy;
    }

    /** Equal halves: a torn read (half old, half new) cannot pass as a written value. */
    @Override
    long value(int i) {
      long half = i + 1;
      return half << 32 | half;
    }
  }

  private static final class BytesColumn extends Column {
    private final PagedBytes c = new PagedBytes((byte) -7);

    BytesColumn() {
      super(-7);
    }

    @Override
    void set(int i, long v) {
      c.set(i, (byte) v);
    }

    @Override
    void setRelease(int i, long v) {
      c.setRelease(i, (byte) v);
    }

    @Override
    long get(int i) {
      return c.get(i);
    }

    @Override
    long getAcquire(int i) {
      return c.getAcquire(i);
    }

    @Override
    int capacity() {
      return c.capacity();
    }

    @Override
    void ensure(int i) {
      c.ensure(i);
    }

    @Override
    void write(DataOutputStream out, int n) throws IOException {
      c.write(out, n);
    }

    @Override
    Column readCopy(DataInputStream in) throws IOException {
      BytesColumn copy = new BytesColumn();
      copy.c.read(in);
      return copy;
    }

    @Override
    long value(int i) {
      return 1 + i % 100;
    }
  }
}
