package org.searchlab.mutable.memory;

import static org.searchlab.mutable.memory.Pages.PAGE_MASK;
import static org.searchlab.mutable.memory.Pages.PAGE_SHIFT;
import static org.searchlab.mutable.memory.Pages.PAGE_SIZE;

import java.io.DataInput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * A column of ints indexed by local document id, in pages that never move once published.
 *
 * <p>Thread safety: one writer ({@link #set}, {@link #setRelease}); any number of readers. A reader
 * sees a value written before a release it has acquired (typically a document's visibility serial);
 * an int is written atomically, so a racing reader sees the old or the new value, never a mix.
 */
public final class PagedInts {
  private static final VarHandle ARRAY = MethodHandles.arrayElementVarHandle(int[].class);
  private final int fill;
  private volatile int[][] pages = new int[0][];

  /** A column whose unwritten entries read as {@code fill}. */
  public PagedInts(int fill) {
    this.fill = fill;
  }

  public int get(int i) {
    return pages[i >>> PAGE_SHIFT][i & PAGE_MASK];
  }

  public int getAcquire(int i) {
    return (int) ARRAY.getAcquire(pages[i >>> PAGE_SHIFT], i & PAGE_MASK);
  }

  /** Writer only. */
  public void set(int i, int v) {
    page(i)[i & PAGE_MASK] = v;
  }

  /** Writer only: a store that publishes every earlier write to a reader that acquires it. */
  public void setRelease(int i, int v) {
    ARRAY.setRelease(page(i), i & PAGE_MASK, v);
  }

  /** Writer only: a full-fence store, for seqlock version counters. */
  public void setVolatile(int i, int v) {
    ARRAY.setVolatile(page(i), i & PAGE_MASK, v);
  }

  /** Ids below this have a page. */
  public int capacity() {
    return pages.length << PAGE_SHIFT;
  }

  /** Writer only: makes sure index {@code i} has a page. */
  public void ensure(int i) {
    page(i);
  }

  private int[] page(int i) {
    int[][] p = pages;
    int pi = i >>> PAGE_SHIFT;
    if (pi >= p.length) {
      int[][] grown = Arrays.copyOf(p, Math.max(pi + 1, p.length + (p.length >> 1) + 1));
      for (int k = p.length; k < grown.length; k++) {
        grown[k] = new int[PAGE_SIZE];
        if (fill != 0) {
          Arrays.fill(grown[k], fill);
        }
      }
      pages = grown; // volatile publish: the new pages are fully initialised
      p = grown;
    }
    return p[pi];
  }

  public long ramBytesUsed() {
    return 16L + (long) pages.length * (16 + 4L * PAGE_SIZE);
  }

  /** Writes the first {@code n} entries. */
  public void write(DataOutputStream out, int n) throws IOException {
    out.writeInt(n);
    for (int i = 0; i < n; i++) {
      out.writeInt(i < capacity() ? get(i) : fill);
    }
  }

  /** Reads what {@link #write} wrote, into an empty column. Writer only. */
  public void read(DataInput in) throws IOException {
    int n = in.readInt();
    for (int i = 0; i < n; i++) {
      set(i, in.readInt());
    }
  }
}
