package org.searchlab.mutable.postings;

/**
 * {@link FilterIds} backed by a bit set, whose words a windowed run can test a posting against
 * without advancing anything: a category's bits. Used by one thread at a time; the words may change
 * under it (the writer sets and clears bits), which the caller's final per-document check covers.
 */
public interface FilterBits extends FilterIds {
  /** The bits of ids [64 · index, 64 · index + 64), zero beyond the set. */
  long word(int index);

  /** How many ids the filter holds (an estimate is fine): decides between the two run shapes. */
  int cardinality();
}
