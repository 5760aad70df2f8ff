package org.searchlab.mutable.memory;

import static org.searchlab.mutable.memory.Pages.PAGE_MASK;
import static org.searchlab.mutable.memory.Pages.PAGE_SHIFT;
import static org.searchlab.mutable.memory.Pages.PAGE_SIZE;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * A column of object references indexed by local document id (external ids, stored documents).
 *
 * <p>Thread safety: one writer; any number of readers. References are published with release
 * semantics and read with acquire semantics, so a reader that sees a reference sees the object as
 * the writer built it (the objects stored must not be modified after they are stored).
 *
 * @param <T> the element type
 */
public final class PagedRefs<T> {
  private static final VarHandle ARRAY = MethodHandles.arrayElementVarHandle(Object[].class);
  private volatile Object[][] pages = new Object[0][];

  @SuppressWarnings("unchecked")
  public T get(int i) {
    Object[][] p = pages;
    int pi = i >>> PAGE_SHIFT;
    if (pi >= p.length) {
      return null;
    }
    return (T) ARRAY.getAcquire(p[pi], i & PAGE_MASK);
  }

  /** Writer only. */
  public void set(int i, T v) {
    Object[][] p = pages;
    int pi = i >>> PAGE_SHIFT;
    if (pi >= p.length) {
      Object[][] grown = Arrays.copyOf(p, Math.max(pi + 1, p.length + (p.length >> 1) + 1));
      for (int k = p.length; k < grown.length; k++) {
        grown[k] = new Object[PAGE_SIZE];
      }
      pages = grown;
      p = grown;
    }
    ARRAY.setRelease(p[pi], i & PAGE_MASK, v);
  }

  /** Heap bytes of the reference arrays alone (not the referenced objects). */
  public long ramBytesUsed() {
    return 16L + (long) pages.length * (16 + 4L * PAGE_SIZE);
  }
}
