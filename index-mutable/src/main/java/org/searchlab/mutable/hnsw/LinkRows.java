package org.searchlab.mutable.hnsw;

/**
 * Where {@link HnswAdjacency} mirrors each node's level-0 list for searches: behind the node's
 * float vector ({@link RowFloatSlots}) when the graph walks floats, behind its int8 or 1-bit code
 * ({@link RowCodes}) when it walks codes, or beside its neighbours' 1-bit codes ({@link
 * InlineCodeRows}) with {@link HnswConfig#inlineCodes()}. The readers are the implementations' own,
 * typed by the row.
 *
 * <p>Thread-safety: the writer thread only; each implementation says how readers see the links.
 */
interface LinkRows {
  /**
   * Mirrors {@code ids} as the level-0 links of {@code id}'s row, published with a release store of
   * the count; nothing when the row is absent. Writer thread.
   */
  void setLinks(int id, int[] ids);

  /** Heap bytes of the mirrored links, counts included: the graph reports them as its own. */
  long linkBytes();
}
