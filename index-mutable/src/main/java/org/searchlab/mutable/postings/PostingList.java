package org.searchlab.mutable.postings;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.IntPredicate;
import org.searchlab.mutable.memory.PagedBytes;

/**
 * The postings of one term in one field: a directory of {@link PostingBlock}s in ascending local id
 * order, the number of live documents holding the term (its document frequency), and a bound on the
 * frequency and norm of every posting it has ever held.
 *
 * <p>Thread safety: one writer (the index writer, or the compactor holding the writer's lock); any
 * number of lock-free readers, which see the list through a {@link PostingCursor}. How each change
 * stays invisible until complete:
 *
 * <ol>
 *   <li>an append to the last block writes the posting and the block's bounds, then publishes the
 *       block size with a release store ({@link PostingBlock#append});
 *   <li>a new last block is stored in the directory with a release store before the directory's
 *       volatile count is raised;
 *   <li>an insert before the last posting (a reused local id) copies its block with the posting in
 *       it and stores the copy over the old block with a release store; a copy that grows past
 *       {@link PostingBlock#MAX} is split, and the directory is replaced by a new one;
 *   <li>compaction builds a whole new directory and publishes it with one volatile store.
 * </ol>
 *
 * Readers holding an old block or directory keep a consistent older view; the garbage collector
 * frees it when they let go. The list-wide bounds only ever grow, so a reader's score bound never
 * falls below a posting it can see.
 */
public final class PostingList {
  private static final VarHandle BLOCKS = MethodHandles.arrayElementVarHandle(PostingBlock[].class);

  /** A directory of blocks; {@code count} is volatile and raised after the block is stored. */
  static final class Directory {
    final PostingBlock[] blocks;
    volatile int count;

    Directory(PostingBlock[] blocks, int count) {
      this.blocks = blocks;
      this.count = count;
    }

    PostingBlock block(int i) {
      return (PostingBlock) BLOCKS.getAcquire(blocks, i);
    }
  }

  /**
   * A term becomes dense, and keeps a bit per id beside its postings ({@link #denseBits}), once it
   * holds at least this many postings and at least one per {@value #DENSE_SPACING} ids below its
   * largest.
   */
  static final int DENSE_MIN_POSTINGS = 1024;

  static final int DENSE_SPACING = 32;

  private volatile Directory dir = new Directory(new PostingBlock[2], 0);
  // Null until the term is dense; then bit d is set for every posting of id d the list holds (the
  // writer sets it before the posting is published, and compaction rebuilds it without the
  // postings it drops). Grown by copying into a larger array published through this field.
  //
  // Not a PagedBits (the category and alive bits): the counting loop reads 64 words per window per
  // dense term, and PagedBits.word adds a capacity check, a page lookup and an acquire load to
  // each. Tried: with PagedBits, filtered lexical queries under categories of 2% or more took 17%
  // more CPU, those under smaller categories (which do not read the bits) 10% more, two JVMs on a
  // noisy machine. A reader needs no acquire per word: it loads this field after its visibility
  // serial, and every bit of a document visible to it was written before that was published.
  private volatile long[] dense;
  private volatile int docFreq;
  private volatile int maxFreq;
  private volatile int minNorm = 255;
  private long postings; // writer-owned: postings held, live or not

  /** Live documents holding the term. */
  public int docFreq() {
    return docFreq;
  }

  /** The largest frequency ever held (a bound for every posting a reader can see). */
  public int maxFreq() {
    return maxFreq;
  }

  /** The smallest unsigned norm ever held. */
  public int minNorm() {
    return minNorm;
  }

  Directory directory() {
    return dir;
  }

  /**
   * For a dense term, a bit per id set for every posting the list holds (read-only; a reader that
   * loads it after its visibility serial finds the bit of every posting of a document visible to
   * it, and possibly bits of documents not visible to it); null for a sparse term. Counting the
   * matches of a window from these words costs 64 word operations per 4,096 ids, where walking the
   * postings of a term in most documents (an English stop word, say) costs one per posting.
   */
  long[] denseBits() {
    return dense;
  }

  /** Writer only: postings held, live or dead. */
  public long postingCount() {
    return postings;
  }

  /** Writer only: the live document count changes by {@code delta}. */
  void adjustDocFreq(int delta) {
    docFreq = docFreq + delta;
  }

  /** Writer only: adds a posting for a document that is not yet visible. */
  void add(int doc, int freq, int normUnsigned) {
    // Bounds first, so a reader that reads them and then sees the posting is covered.
    if (freq > maxFreq) {
      maxFreq = freq;
    }
    if (normUnsigned < minNorm) {
      minNorm = normUnsigned;
    }
    postings++;
    long[] bits = dense;
    if (bits != null) {
      if ((doc >>> 6) >= bits.length) {
        bits =
            java.util.Arrays.copyOf(
                bits, Math.max((doc >>> 6) + 1, bits.length + (bits.length >> 1)));
        dense = bits;
      }
      bits[doc >>> 6] |= 1L << doc;
    } else if (postings >= DENSE_MIN_POSTINGS && postings * DENSE_SPACING > doc) {
      dense = bitsOf(doc);
    }
    Directory d = dir;
    int n = d.count;
    if (n == 0) {
      appendBlock(d, n, singleton(doc, freq, normUnsigned));
      return;
    }
    PostingBlock last = d.block(n - 1);
    int lastSize = last.writerSize();
    if (doc > last.docs[lastSize - 1]) {
      if (lastSize >= PostingBlock.TARGET) {
        appendBlock(d, n, singleton(doc, freq, normUnsigned));
      } else if (lastSize < last.capacity()) {
        last.append(doc, freq, normUnsigned);
      } else {
        // Blocks start small (most terms are rare) and double up to TARGET: copy, append to the
        // copy, publish the copy over the old block.
        PostingBlock grown =
            copy(last, lastSize, Math.min(PostingBlock.TARGET, 2 * last.capacity()));
        grown.append(doc, freq, normUnsigned);
        BLOCKS.setRelease(d.blocks, n - 1, grown);
      }
      return;
    }
    insertBefore(d, n, doc, freq, normUnsigned);
  }

  /** The bits of every posting held, and of {@code extra}. */
  private long[] bitsOf(int extra) {
    Directory d = dir;
    int n = d.count;
    int max = extra;
    if (n > 0) {
      PostingBlock last = d.block(n - 1);
      max = Math.max(max, last.docs[last.writerSize() - 1]);
    }
    long[] bits = new long[(max >>> 6) + 1 + (max >>> 9)];
    for (int i = 0; i < n; i++) {
      PostingBlock b = d.block(i);
      int size = b.writerSize();
      for (int j = 0; j < size; j++) {
        bits[b.docs[j] >>> 6] |= 1L << b.docs[j];
      }
    }
    bits[extra >>> 6] |= 1L << extra;
    return bits;
  }

  private static PostingBlock singleton(int doc, int freq, int normUnsigned) {
    PostingBlock b = new PostingBlock(2);
    b.append(doc, freq, normUnsigned);
    return b;
  }

  private static PostingBlock copy(PostingBlock src, int size, int capacity) {
    PostingBlock b = new PostingBlock(capacity);
    System.arraycopy(src.docs, 0, b.docs, 0, size);
    System.arraycopy(src.freqs, 0, b.freqs, 0, size);
    b.maxFreq = src.maxFreq;
    b.minNorm = src.minNorm;
    b.initSize(size);
    return b;
  }

  private void appendBlock(Directory d, int n, PostingBlock b) {
    if (n < d.blocks.length) {
      BLOCKS.setRelease(d.blocks, n, b);
      d.count = n + 1;
    } else {
      PostingBlock[] grown = new PostingBlock[Math.max(4, n * 2)];
      System.arraycopy(d.blocks, 0, grown, 0, n);
      grown[n] = b;
      dir = new Directory(grown, n + 1);
    }
  }

  /** A posting whose id is below the last one: copy-on-write of the block it belongs in. */
  private void insertBefore(Directory d, int n, int doc, int freq, int normUnsigned) {
    int lo = 0;
    int hi = n - 1;
    while (lo < hi) { // first block whose last doc ≥ doc
      int mid = (lo + hi) >>> 1;
      PostingBlock m = d.block(mid);
      if (m.docs[m.writerSize() - 1] < doc) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    PostingBlock old = d.block(lo);
    int size = old.writerSize();
    int at = java.util.Arrays.binarySearch(old.docs, 0, size, doc);
    assert at < 0 : "doc " + doc + " is already in the list";
    at = -at - 1;
    PostingBlock copy = new PostingBlock(size + 1);
    System.arraycopy(old.docs, 0, copy.docs, 0, at);
    System.arraycopy(old.freqs, 0, copy.freqs, 0, at);
    copy.docs[at] = doc;
    copy.freqs[at] = freq;
    System.arraycopy(old.docs, at, copy.docs, at + 1, size - at);
    System.arraycopy(old.freqs, at, copy.freqs, at + 1, size - at);
    copy.maxFreq = Math.max(old.maxFreq, freq);
    copy.minNorm = Math.min(old.minNorm, normUnsigned);
    copy.initSize(size + 1);
    if (size + 1 <= PostingBlock.MAX) {
      BLOCKS.setRelease(d.blocks, lo, copy);
      return;
    }
    PostingBlock first = slice(copy, 0, (size + 1) / 2, old);
    PostingBlock second = slice(copy, (size + 1) / 2, size + 1, old);
    PostingBlock[] blocks = new PostingBlock[Math.max(4, n + 1 + (n >> 2))];
    System.arraycopy(d.blocks, 0, blocks, 0, lo);
    blocks[lo] = first;
    blocks[lo + 1] = second;
    System.arraycopy(d.blocks, lo + 1, blocks, lo + 2, n - lo - 1);
    dir = new Directory(blocks, n + 1);
  }

  /** A part of a block; it keeps the bounds of the whole (still valid, perhaps loose). */
  private static PostingBlock slice(PostingBlock src, int from, int to, PostingBlock bounds) {
    PostingBlock b = new PostingBlock(to - from);
    System.arraycopy(src.docs, from, b.docs, 0, to - from);
    System.arraycopy(src.freqs, from, b.freqs, 0, to - from);
    b.maxFreq = src.maxFreq;
    b.minNorm = src.minNorm;
    b.initSize(to - from);
    return b;
  }

  /**
   * Writer only: rebuilds the list without the postings whose document {@code keep} rejects, in
   * blocks of {@link PostingBlock#TARGET} with exact bounds, and publishes it in one store.
   *
   * @return how many postings were dropped
   */
  int compact(IntPredicate keep, PagedBytes norms) {
    Directory d = dir;
    int n = d.count;
    int[] docs = new int[64];
    int[] freqs = new int[64];
    int kept = 0;
    int dropped = 0;
    for (int i = 0; i < n; i++) {
      PostingBlock b = d.block(i);
      int size = b.writerSize();
      for (int j = 0; j < size; j++) {
        if (!keep.test(b.docs[j])) {
          dropped++;
          continue;
        }
        if (kept == docs.length) {
          docs = java.util.Arrays.copyOf(docs, kept * 2);
          freqs = java.util.Arrays.copyOf(freqs, kept * 2);
        }
        docs[kept] = b.docs[j];
        freqs[kept++] = b.freqs[j];
      }
    }
    if (dropped == 0) {
      return 0;
    }
    int blocks = (kept + PostingBlock.TARGET - 1) / PostingBlock.TARGET;
    PostingBlock[] out = new PostingBlock[Math.max(2, blocks + 1)];
    for (int bi = 0; bi < blocks; bi++) {
      int from = bi * PostingBlock.TARGET;
      int to = Math.min(kept, from + PostingBlock.TARGET);
      PostingBlock b = new PostingBlock(to - from);
      for (int j = from; j < to; j++) {
        b.docs[j - from] = docs[j];
        b.freqs[j - from] = freqs[j];
        b.maxFreq = Math.max(b.maxFreq, freqs[j]);
        b.minNorm = Math.min(b.minNorm, norms.get(docs[j]) & 0xFF);
      }
      b.initSize(to - from);
      out[bi] = b;
    }
    dir = new Directory(out, blocks);
    postings -= dropped;
    if (dense != null) {
      // Without the dropped postings' bits; a reader still on the old bits sees those of
      // documents no longer visible to anyone, which its visibility check rejects.
      long[] bits = new long[dense.length];
      for (int j = 0; j < kept; j++) {
        bits[docs[j] >>> 6] |= 1L << docs[j];
      }
      dense = bits;
    }
    return dropped;
  }

  /** Heap bytes of the blocks and the directory. */
  long ramBytesUsed() {
    Directory d = dir;
    int n = d.count;
    long[] bits = dense;
    long bytes = 64 + 16 + 4L * d.blocks.length + (bits == null ? 0 : 16 + 8L * bits.length);
    for (int i = 0; i < n; i++) {
      bytes += d.block(i).ramBytesUsed();
    }
    return bytes;
  }
}
