package org.searchlab.mutable.memory;

import java.io.DataInput;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * A bitset indexed by local document id, paged so that it grows without moving published words.
 * Used for the alive bits and the per-category bits.
 *
 * <p>Thread safety: one writer ({@link #set}, {@link #clear}); any number of readers. Each word is
 * stored with release semantics, so a reader that sees a bit also sees what the writer wrote before
 * setting it. Different bits of one word are never lost: the single writer reads-modifies-writes.
 */
public final class PagedBits {
  private final PagedLongs words = new PagedLongs(0L);
  private int count;

  public boolean get(int i) {
    int w = i >>> 6;
    if ((long) w << 6 >= capacity()) {
      return false;
    }
    return (words.getAcquire(w) & (1L << i)) != 0;
  }

  /** Writer only. */
  public void set(int i) {
    int w = i >>> 6;
    words.ensure(w);
    long old = words.get(w);
    if ((old & (1L << i)) == 0) {
      words.setRelease(w, old | (1L << i));
      count++;
    }
  }

  /** Writer only. */
  public void clear(int i) {
    int w = i >>> 6;
    if ((long) w << 6 >= capacity()) {
      return;
    }
    long old = words.get(w);
    if ((old & (1L << i)) != 0) {
      words.setRelease(w, old & ~(1L << i));
      count--;
    }
  }

  /** The word holding bits {@code 64·w} to {@code 64·w + 63}; 0 past the end. */
  public long word(int w) {
    if ((long) w << 6 >= capacity()) {
      return 0;
    }
    return words.getAcquire(w);
  }

  /** Bits below this can be set. */
  public long capacity() {
    return (long) words.capacity() << 6;
  }

  /** The number of set bits, as the writer last left it (readers may see a stale value). */
  public int cardinality() {
    return count;
  }

  /** The first set bit at or after {@code from} and below {@code limit}, or −1. */
  public int nextSetBit(int from, int limit) {
    long cap = Math.min(capacity(), limit);
    if (from >= cap) {
      return -1;
    }
    int w = from >>> 6;
    long word = words.getAcquire(w) & (-1L << from);
    while (true) {
      if (word != 0) {
        int bit = (w << 6) + Long.numberOfTrailingZeros(word);
        return bit < cap ? bit : -1;
      }
      w++;
      if ((long) w << 6 >= cap) {
        return -1;
      }
      word = words.getAcquire(w);
    }
  }

  public long ramBytesUsed() {
    return words.ramBytesUsed();
  }

  public void write(DataOutputStream out, int nBits) throws IOException {
    out.writeInt(count);
    words.write(out, (nBits + 63) >>> 6);
  }

  public void read(DataInput in) throws IOException {
    count = in.readInt();
    words.read(in);
  }
}
