package org.searchlab.mutable.memory;

/** Page geometry shared by the paged columns. Stateless. */
public final class Pages {
  /** log2 of the page size. */
  public static final int PAGE_SHIFT = 12;

  /** Entries per page: 4096, so one page of longs is 32 KiB. */
  public static final int PAGE_SIZE = 1 << PAGE_SHIFT;

  static final int PAGE_MASK = PAGE_SIZE - 1;

  private Pages() {}

  /** The number of pages needed to hold index {@code i}. */
  static int pagesFor(int i) {
    return (i >>> PAGE_SHIFT) + 1;
  }
}
