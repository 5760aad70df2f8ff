package org.searchlab.server;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import org.searchlab.core.Filter;

/**
 * The bounds of a range on the integer {@code price} field, collected from any number of {@code
 * gt}/{@code gte}/{@code lt}/{@code lte} (Elasticsearch) or {@code < <= > >= =} (YQL) conditions
 * with integral or fractional values of any size, and turned into one exact inclusive {@link
 * Filter.PriceRange}. Exact means: no overflow and no rounding the wrong way, so {@code gt
 * 2147483647} matches nothing (an int cannot be larger) where a cast would wrap around and match
 * everything, and {@code gte 9.5} starts at 10. Bounds that exclude every int give {@link
 * Filter.PriceRange#EMPTY}, which matches nothing, as Elasticsearch answers such a range with no
 * hits rather than an error. Not thread-safe; one per query.
 *
 * <p>Values are clamped to [{@code Integer.MIN_VALUE − 1}, {@code Integer.MAX_VALUE + 1}] before
 * rounding: beyond an int every value acts alike, and {@code 1e999999999} must not become a
 * billion-digit integer.
 */
public final class PriceBounds {
  private static final BigDecimal BELOW = BigDecimal.valueOf((long) Integer.MIN_VALUE - 1);
  private static final BigDecimal ABOVE = BigDecimal.valueOf((long) Integer.MAX_VALUE + 1);

  /** The smallest admitted price, or {@code null} when unbounded below. */
  private BigInteger min;

  /** The largest admitted price, or {@code null} when unbounded above. */
  private BigInteger max;

  private boolean any;

  /** Whether any condition was added. */
  public boolean any() {
    return any;
  }

  /** {@code price ≥ v}. */
  public void gte(BigDecimal v) {
    raiseMin(clamp(v).setScale(0, RoundingMode.CEILING).toBigIntegerExact());
  }

  /** {@code price > v}. */
  public void gt(BigDecimal v) {
    raiseMin(clamp(v).setScale(0, RoundingMode.FLOOR).toBigIntegerExact().add(BigInteger.ONE));
  }

  /** {@code price ≤ v}. */
  public void lte(BigDecimal v) {
    lowerMax(clamp(v).setScale(0, RoundingMode.FLOOR).toBigIntegerExact());
  }

  /** {@code price < v}. */
  public void lt(BigDecimal v) {
    lowerMax(
        clamp(v).setScale(0, RoundingMode.CEILING).toBigIntegerExact().subtract(BigInteger.ONE));
  }

  /** {@code price = v}: both bounds (a fractional {@code v} matches nothing). */
  public void eq(BigDecimal v) {
    gte(v);
    lte(v);
  }

  /** The exact inclusive int range; {@link Filter.PriceRange#EMPTY} when no int qualifies. */
  public Filter.PriceRange range() {
    long lo = min == null ? Integer.MIN_VALUE : min.longValueExact();
    long hi = max == null ? Integer.MAX_VALUE : max.longValueExact();
    lo = Math.max(lo, Integer.MIN_VALUE);
    hi = Math.min(hi, Integer.MAX_VALUE);
    if (lo > hi) {
      return Filter.PriceRange.EMPTY;
    }
    return new Filter.PriceRange((int) lo, (int) hi);
  }

  private void raiseMin(BigInteger v) {
    any = true;
    min = min == null || v.compareTo(min) > 0 ? v : min;
  }

  private void lowerMax(BigInteger v) {
    any = true;
    max = max == null || v.compareTo(max) < 0 ? v : max;
  }

  private static BigDecimal clamp(BigDecimal v) {
    return v.compareTo(BELOW) < 0 ? BELOW : v.compareTo(ABOVE) > 0 ? ABOVE : v;
  }
}
