package org.searchlab.mutable.postings;

import org.searchlab.core.scoring.Bm25;
import org.searchlab.mutable.memory.PagedBytes;

/**
 * Walks one {@link PostingList} in ascending local id order, as its directory was when the cursor
 * was created (blocks replaced later may be seen old or new; both hold every posting of a visible
 * document). Also answers "which block would hold this id" without moving, for block-max bounds.
 *
 * <p>Not thread-safe: one cursor per query thread.
 */
final class PostingCursor {
  static final int NO_MORE = Integer.MAX_VALUE;

  private final PostingList.Directory dir;
  private final long[] dense;
  private final int blockCount;
  private int bi = -1;
  private PostingBlock block;
  private int blockSize;
  private int pos;
  private int doc = -1;

  private int shallowIndex;
  private PostingBlock shallowBlock;
  private int shallowSize;

  PostingCursor(PostingList list) {
    this.dir = list.directory();
    this.dense = list.denseBits();
    this.blockCount = dir.count;
  }

  /** Whether the term had a bit per id when the cursor was made ({@link PostingList#denseBits}). */
  boolean dense() {
    return dense != null;
  }

  /**
   * For a dense term: {@link #markWindow} from the term's bits instead of its postings, for ids in
   * [{@code from}, {@code end}) of a window starting at {@code start} (a multiple of 64): sets the
   * ids' bits in {@code termBits} and {@code matches} (where {@code mask} has them), records no
   * frequencies and does not move the cursor; {@link #advance} finds a frequency when one is
   * needed. The bits may also hold ids no longer (or not yet) visible to the caller, as the
   * postings may; the caller's visibility check rejects them.
   */
  void markWindowDense(int start, int from, int end, long[] termBits, long[] matches, long[] mask) {
    long[] bits = dense;
    int first = start >>> 6;
    int words = (end - start + 63) >>> 6;
    int limit = Math.min(words, bits.length - first);
    // from may lie below start (a range that starts mid-word) or above it (the previous window's
    // end, when the first posting after it is 64 or more ids on): start at from's word, if any.
    for (int w = from > start ? (from - start) >>> 6 : 0; w < limit; w++) {
      long word = bits[first + w];
      int lo = start + (w << 6);
      if (lo < from) {
        word &= -1L << (from - lo);
      }
      if (lo + 64 > end) {
        word &= (1L << (end - lo)) - 1;
      }
      if (mask != null) {
        word &= mask[w];
      }
      termBits[w] = word;
      matches[w] |= word;
    }
  }

  int doc() {
    return doc;
  }

  int freq() {
    return block.freqs[pos];
  }

  /** The block the cursor is on: its last doc. */
  int blockLastDoc() {
    return block.docs[blockSize - 1];
  }

  int blockMaxFreq() {
    return block.maxFreq;
  }

  int blockMinNorm() {
    return block.minNorm;
  }

  int nextDoc() {
    if (block != null && pos + 1 < blockSize) {
      return doc = block.docs[++pos];
    }
    return enterBlock(bi + 1, Integer.MIN_VALUE);
  }

  /**
   * Scores every posting from the current one up to (not including) id {@code end} into a window
   * that starts at id {@code start}: adds its BM25 score as {@code term} of {@code q} to {@code
   * scores[id - start]} and sets the id's bit in {@code matches}, skipping ids whose bit is clear
   * in {@code mask} (null: none skipped). Leaves the cursor on the first posting with id ≥ {@code
   * end}. The same sums as {@link #nextDoc} and {@link LexicalQuery#score} posting by posting, a
   * block at a time: the block's arrays and the position stay in registers instead of going through
   * the cursor's fields for every posting, as Lucene's {@code nextDocsAndScores} hands out a buffer
   * at a time.
   */
  void scoreWindow(
      int start, int end, double[] scores, long[] matches, long[] mask, LexicalQuery q, int term) {
    float weight = q.weight(term);
    float[] cache = q.cache(term);
    PagedBytes norms = q.norms(term);
    while (block != null) {
      int[] docs = block.docs;
      int[] freqs = block.freqs;
      int size = blockSize;
      int p = pos;
      if (mask == null) {
        for (; p < size; p++) {
          int d = docs[p];
          if (d >= end) {
            break;
          }
          int o = d - start;
          matches[o >>> 6] |= 1L << o;
          scores[o] += Bm25.score(weight, freqs[p], cache[norms.get(d) & 0xFF]);
        }
      } else {
        for (; p < size; p++) {
          int d = docs[p];
          if (d >= end) {
            break;
          }
          int o = d - start;
          long bit = 1L << o;
          if ((mask[o >>> 6] & bit) != 0) {
            matches[o >>> 6] |= bit;
            scores[o] += Bm25.score(weight, freqs[p], cache[norms.get(d) & 0xFF]);
          }
        }
      }
      if (p < size) {
        pos = p;
        doc = docs[p];
        return;
      }
      enterBlock(bi + 1, Integer.MIN_VALUE);
    }
  }

  /**
   * Like {@link #scoreWindow} but without scoring: records each posting's frequency in {@code
   * freqsOut[id - start]} and sets the id's bit in both {@code termBits} and {@code matches}. For
   * the counting phase, where every match must be counted but only an id whose bound can beat the
   * k-th score needs its BM25 (see {@link WindowedMaxScore}). The block walk is {@link
   * #scoreWindow}'s, written out again rather than shared: a choice between scoring and recording
   * would sit in the hottest loop of a lexical query.
   */
  void markWindow(
      int start, int end, int[] freqsOut, long[] termBits, long[] matches, long[] mask) {
    while (block != null) {
      int[] docs = block.docs;
      int[] freqs = block.freqs;
      int size = blockSize;
      int p = pos;
      if (mask == null) {
        for (; p < size; p++) {
          int d = docs[p];
          if (d >= end) {
            break;
          }
          int o = d - start;
          long bit = 1L << o;
          matches[o >>> 6] |= bit;
          termBits[o >>> 6] |= bit;
          freqsOut[o] = freqs[p];
        }
      } else {
        for (; p < size; p++) {
          int d = docs[p];
          if (d >= end) {
            break;
          }
          int o = d - start;
          long bit = 1L << o;
          if ((mask[o >>> 6] & bit) != 0) {
            matches[o >>> 6] |= bit;
            termBits[o >>> 6] |= bit;
            freqsOut[o] = freqs[p];
          }
        }
      }
      if (p < size) {
        pos = p;
        doc = docs[p];
        return;
      }
      enterBlock(bi + 1, Integer.MIN_VALUE);
    }
  }

  /** Moves to the first posting with id ≥ {@code target}. */
  int advance(int target) {
    if (doc >= target) {
      return doc;
    }
    if (block != null && block.docs[blockSize - 1] >= target) {
      return doc = block.docs[pos = scan(block.docs, pos + 1, blockSize, target)];
    }
    int b = Math.max(bi + 1, 0);
    while (b < blockCount) {
      PostingBlock cand = dir.block(b);
      int size = cand.size();
      if (size > 0 && cand.docs[size - 1] >= target) {
        break;
      }
      b++;
    }
    return enterBlock(b, target);
  }

  private int enterBlock(int b, int target) {
    while (b < blockCount) {
      PostingBlock cand = dir.block(b);
      int size = cand.size();
      if (size > 0 && cand.docs[size - 1] >= target) {
        bi = b;
        block = cand;
        blockSize = size;
        // nextDoc enters a block at its first posting: no search for it
        pos = cand.docs[0] >= target ? 0 : scan(cand.docs, 0, size, target);
        return doc = cand.docs[pos];
      }
      b++;
    }
    bi = blockCount;
    block = null;
    return doc = NO_MORE;
  }

  /**
   * The first index in [from, to) whose doc is ≥ target; the range's last doc is ≥ target. Most
   * targets lie a few postings ahead (the next id of another term, or of the filter), so the scan
   * gallops from {@code from} (1, 2, 4, … postings ahead) and binary-searches only the last step,
   * instead of binary-searching the whole rest of the block (which a profile of filtered hybrid
   * queries showed as the largest single cost).
   */
  private static int scan(int[] docs, int from, int to, int target) {
    int lo = from;
    int step = 1;
    while (lo + step < to && docs[lo + step] < target) {
      lo += step;
      step <<= 1;
    }
    if (docs[lo] >= target) {
      return lo;
    }
    int hi = Math.min(to, lo + step + 1);
    int at = java.util.Arrays.binarySearch(docs, lo + 1, hi, target);
    return at >= 0 ? at : -at - 1;
  }

  /**
   * Positions the shallow pointer on the first block whose last doc is ≥ {@code target} (targets
   * must not decrease) and returns whether that block's range starts at or before it; the shallow
   * accessors then describe that block.
   */
  boolean shallowAdvance(int target) {
    while (true) {
      if (shallowBlock == null) {
        if (shallowIndex >= blockCount) {
          return false;
        }
        shallowBlock = dir.block(shallowIndex);
        shallowSize = shallowBlock.size();
      }
      if (shallowSize > 0 && shallowBlock.docs[shallowSize - 1] >= target) {
        return shallowBlock.docs[0] <= target;
      }
      shallowIndex++;
      shallowBlock = null;
    }
  }

  /**
   * The largest frequency and the smallest norm over the blocks that hold ids in [{@code from},
   * {@code to}), packed as {@code maxFreq << 8 | minNorm}, or −1 when no block does. Moves the
   * shallow pointer to the first of them ({@code from} must not decrease between calls).
   */
  long windowImpact(int from, int to) {
    shallowAdvance(from);
    if (shallowBlock == null) {
      return -1;
    }
    int maxFreq = 0;
    int minNorm = 255;
    boolean any = false;
    PostingBlock b = shallowBlock;
    int size = shallowSize;
    int index = shallowIndex;
    while (true) {
      if (size > 0) {
        if (b.docs[0] >= to) {
          break;
        }
        any = true;
        maxFreq = Math.max(maxFreq, b.maxFreq);
        minNorm = Math.min(minNorm, b.minNorm);
        if (b.docs[size - 1] >= to) {
          break;
        }
      }
      if (++index >= blockCount) {
        break;
      }
      b = dir.block(index);
      size = b.size();
    }
    return any ? ((long) maxFreq << 8) | minNorm : -1;
  }

  /** Whether the shallow pointer has run past the last block. */
  boolean shallowExhausted() {
    return shallowBlock == null && shallowIndex >= blockCount;
  }

  int shallowFirstDoc() {
    return shallowBlock.docs[0];
  }

  int shallowLastDoc() {
    return shallowBlock.docs[shallowSize - 1];
  }

  int shallowMaxFreq() {
    return shallowBlock.maxFreq;
  }

  int shallowMinNorm() {
    return shallowBlock.minNorm;
  }
}
