package org.searchlab.core.agg;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Set;
import org.searchlab.core.agg.AggregationSource.KeywordDictionary;
import org.searchlab.core.agg.AggregationSource.NumericValues;
import org.searchlab.core.agg.AggregationSource.OrdinalValues;
import org.searchlab.core.agg.MatchSet.LeafMatches;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.query.FieldValues;

/**
 * {@code cardinality}: how many distinct values the matching documents have. Exact while there are
 * at most {@code precision_threshold} of them; beyond it a HyperLogLog estimate (Flajolet et al.
 * 2007, with the small-range linear counting of Heule et al. 2013, "HyperLogLog in Practice") over
 * {@code 2^p} registers, p chosen from the threshold as Elasticsearch chooses it (3,000 gives p =
 * 14, 16,384 registers), so its relative standard error is {@code 1.04 / √(2^p)}: 0.81% at the
 * default. The registers take a 64-bit mix of each value (UTF-8 bytes of a keyword, the bits of a
 * number), so the estimate depends only on the set of values: both stores give the same number.
 * Stateless.
 */
final class Cardinalities {
  /** Elasticsearch's default {@code precision_threshold}. */
  static final int DEFAULT_PRECISION_THRESHOLD = 3000;

  /** Elasticsearch's largest {@code precision_threshold}; larger values are taken as this. */
  static final int MAX_PRECISION_THRESHOLD = 40_000;

  private Cardinalities() {}

  /** Registers' bits for a threshold: Elasticsearch's {@code precisionFromThreshold}. */
  static int precision(int threshold) {
    long entries = (long) Math.ceil(threshold / 0.75);
    int bits = 64 - Long.numberOfLeadingZeros(entries * Integer.BYTES);
    return Math.max(4, Math.min(18, bits));
  }

  /** The relative standard error of the estimate once the threshold is passed. */
  static double relativeError(int threshold) {
    return 1.04 / Math.sqrt(1 << precision(threshold));
  }

  static AggregationResult cardinality(
      Aggregation.Cardinality c, FieldType f, AggregationSource source, MatchSet docs)
      throws IOException {
    int threshold = Math.min(c.precisionThreshold(), MAX_PRECISION_THRESHOLD);
    if (f == null) {
      return new AggregationResult.Count("cardinality", 0);
    }
    if (f instanceof FieldType.Keyword) {
      KeywordDictionary dict = source.dictionary(c.field());
      BitSet seen = new BitSet();
      boolean missingSeen = false;
      for (LeafMatches l : docs.leaves()) {
        OrdinalValues ov = dict == null ? null : source.leaves().get(l.leaf()).ordinals(c.field());
        for (int i = 0; i < l.count(); i++) {
          if (ov != null && ov.advanceExact(l.docs()[i])) {
            for (int j = 0, n = ov.count(); j < n; j++) {
              seen.set((int) ov.ord(j));
            }
          } else if (c.missing() != null) {
            missingSeen = true;
          }
        }
      }
      String missing = c.missing() == null ? null : String.valueOf(c.missing());
      Set<String> terms = new HashSet<>();
      Hll hll = null;
      for (int ord = seen.nextSetBit(0); ord >= 0; ord = seen.nextSetBit(ord + 1)) {
        String t = dict.term(ord);
        if (hll == null) {
          terms.add(t);
          if (terms.size() > threshold) {
            hll = Hll.ofStrings(precision(threshold), terms);
          }
        } else {
          hll.add(hash(t));
        }
      }
      if (missingSeen) {
        if (hll == null) {
          terms.add(missing);
        } else {
          hll.add(hash(missing));
        }
      }
      if (hll == null && terms.size() > threshold) {
        hll = Hll.ofStrings(precision(threshold), terms);
      }
      return new AggregationResult.Count(
          "cardinality", hll == null ? terms.size() : hll.estimate());
    }
    boolean floating = AggregationEngine.isFloating(f);
    Object missingValue =
        c.missing() == null ? null : FieldValues.termValue(f, c.field(), c.missing());
    Set<Long> exact = new HashSet<>();
    Hll hll = null;
    for (LeafMatches l : docs.leaves()) {
      NumericValues nv = source.leaves().get(l.leaf()).numbers(c.field());
      for (int i = 0; i < l.count(); i++) {
        boolean has = nv != null && nv.advanceExact(l.docs()[i]);
        int n = has ? nv.count() : missingValue != null ? 1 : 0;
        for (int j = 0; j < n; j++) {
          long bits =
              has
                  ? (floating ? Double.doubleToLongBits(nv.doubleValue(j)) : nv.longValue(j))
                  : (missingValue instanceof Double d
                      ? Double.doubleToLongBits(d)
                      : ((Number) missingValue).longValue());
          if (hll != null) {
            hll.add(mix(bits));
          } else if (exact.add(bits) && exact.size() > threshold) {
            hll = new Hll(precision(threshold));
            for (long b : exact) {
              hll.add(mix(b));
            }
            exact = null;
          }
        }
      }
    }
    return new AggregationResult.Count("cardinality", hll == null ? exact.size() : hll.estimate());
  }

  /** MurmurHash3's 64-bit finalizer: spreads a value's bits over the hash. */
  static long mix(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }

  /** A 64-bit hash of a string's UTF-8 bytes (FNV-1a, then {@link #mix}). */
  static long hash(String s) {
    long h = 0xcbf29ce484222325L;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return mix(h);
  }

  /** HyperLogLog registers. */
  static final class Hll {
    private final int p;
    private final byte[] registers;

    Hll(int p) {
      this.p = p;
      this.registers = new byte[1 << p];
    }

    static Hll ofStrings(int p, Set<String> values) {
      Hll h = new Hll(p);
      for (String v : values) {
        h.add(hash(v));
      }
      return h;
    }

    void add(long hash) {
      int index = (int) (hash >>> (64 - p));
      long rest = hash << p;
      int rank = rest == 0 ? 64 - p + 1 : Long.numberOfLeadingZeros(rest) + 1;
      if (rank > registers[index]) {
        registers[index] = (byte) rank;
      }
    }

    long estimate() {
      int m = registers.length;
      double sum = 0;
      int zeros = 0;
      for (byte r : registers) {
        sum += Math.scalb(1.0, -r);
        if (r == 0) {
          zeros++;
        }
      }
      double alpha = 0.7213 / (1 + 1.079 / m);
      double e = alpha * m * (double) m / sum;
      if (e <= 2.5 * m && zeros > 0) {
        e = m * Math.log((double) m / zeros); // linear counting for small cardinalities
      }
      return Math.round(e);
    }
  }
}
