package org.searchlab.mutable.memory;

import java.io.DataInput;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * A column of floats indexed by local document id, stored as their raw int bits in a {@link
 * PagedInts} so that one float is written atomically.
 *
 * <p>Thread safety: as {@link PagedInts}: one writer, any number of readers.
 */
public final class PagedFloats {
  private final PagedInts bits;

  public PagedFloats(float fill) {
    this.bits = new PagedInts(Float.floatToRawIntBits(fill));
  }

  public float get(int i) {
    return Float.intBitsToFloat(bits.get(i));
  }

  /** Writer only. */
  public void set(int i, float v) {
    bits.set(i, Float.floatToRawIntBits(v));
  }

  public void ensure(int i) {
    bits.ensure(i);
  }

  public long ramBytesUsed() {
    return bits.ramBytesUsed();
  }

  public void write(DataOutputStream out, int n) throws IOException {
    bits.write(out, n);
  }

  public void read(DataInput in) throws IOException {
    bits.read(in);
  }
}
