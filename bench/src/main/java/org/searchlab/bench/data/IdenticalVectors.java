package org.searchlab.bench.data;

import java.util.Arrays;
import java.util.Iterator;

/**
 * Groups of identical vectors in a corpus: how many documents share their vector with at least one
 * other, and the largest such group. Identical texts embed to identical vectors (a catalogue's
 * twins), and a generator that copies a document makes more of them; tie-aware recall counts any
 * member of a group, but a graph holding many copies of one point links them to each other and can
 * cut a group off. Vectors are compared by a 64-bit hash of their bits, so two different vectors
 * are counted as one group only when their hashes collide (about N² / 2⁶⁵: under 10⁻⁷ at 1M).
 *
 * @param inGroups documents whose vector at least one other document has
 * @param groups how many distinct vectors are shared
 * @param largest the most documents sharing one vector (1 when none do)
 */
record IdenticalVectors(long inGroups, long groups, long largest) {

  /** Counts the groups among the first {@code n} vectors of {@code vectors}. */
  static IdenticalVectors of(Iterator<float[]> vectors, int n) {
    long[] hashes = new long[n];
    for (int i = 0; i < n; i++) {
      hashes[i] = hash(vectors.next());
    }
    Arrays.sort(hashes);
    long inGroups = 0;
    long groups = 0;
    long largest = n == 0 ? 0 : 1;
    for (int i = 0; i < n; ) {
      int j = i + 1;
      while (j < n && hashes[j] == hashes[i]) {
        j++;
      }
      if (j - i > 1) {
        groups++;
        inGroups += j - i;
        largest = Math.max(largest, j - i);
      }
      i = j;
    }
    return new IdenticalVectors(inGroups, groups, largest);
  }

  /** A 64-bit hash of a vector's bits (−0.0 and 0.0 differ, as they do in the file). */
  static long hash(float[] v) {
    long h = 0x9E3779B97F4A7C15L ^ v.length;
    for (float f : v) {
      h = mix(h ^ Float.floatToRawIntBits(f));
    }
    return h;
  }

  /** The finaliser of SplitMix64: every input bit reaches every output bit. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
