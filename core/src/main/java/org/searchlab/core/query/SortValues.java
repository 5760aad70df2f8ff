package org.searchlab.core.query;

import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.mapping.FieldType;

/**
 * The values a sorted search reports per hit and reads back from {@code search_after}, as
 * Elasticsearch writes them: a {@code Long} for integer, date and boolean fields, a {@code Double}
 * for floating-point ones, a {@code String} for keywords, a {@code Float} for {@code _score}. A
 * document without a value reports the value its position stands for: the type's largest value when
 * it sorts last ascending or first descending, the smallest otherwise, and null for a keyword.
 * Stateless.
 */
public final class SortValues {
  private SortValues() {}

  /** The value a document without one reports under {@code key}. */
  public static Object missing(SortKey key, FieldType f) {
    if (f instanceof FieldType.Keyword || f == null) {
      return null;
    }
    boolean high = key.ascending() != key.missingFirst();
    if (f instanceof FieldType.Numeric n && !n.type().integral()) {
      return high ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
    }
    return high ? Long.MAX_VALUE : Long.MIN_VALUE;
  }

  /**
   * A {@code search_after} value read as the sort value type of its key's field.
   *
   * @throws InvalidRequestException when it cannot be one (text on a numeric field)
   */
  public static Object coerce(SortKey key, FieldType f, Object v) {
    if (v == null) {
      return null;
    }
    if (key.field().equals(SortKey.SCORE)) {
      return number(key, v).floatValue();
    }
    if (key.field().equals(SortKey.DOC)) {
      return number(key, v).longValue();
    }
    return switch (f) {
      case FieldType.Keyword k -> String.valueOf(v);
      case FieldType.Numeric n when !n.type().integral() -> number(key, v).doubleValue();
      case FieldType.Date d when v instanceof String s && !s.matches("-?\\d+") ->
          org.searchlab.core.mapping.Dates.parse(key.field(), d.format(), s);
      case FieldType.Bool b when v instanceof Boolean x -> x ? 1L : 0L;
      default -> {
        java.math.BigDecimal d = decimal(key, v);
        try {
          yield d.longValueExact();
        } catch (ArithmeticException e) {
          throw new InvalidRequestException(
              "search_after value [" + abbreviate(v) + "] of [" + key.field() + "] is not a long");
        }
      }
    };
  }

  private static Number number(SortKey key, Object v) {
    if (v instanceof String s && (s.equals("Infinity") || s.equals("-Infinity"))) {
      return s.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    return v instanceof Number n ? n : decimal(key, v);
  }

  private static java.math.BigDecimal decimal(SortKey key, Object v) {
    try {
      return new java.math.BigDecimal(String.valueOf(v).trim());
    } catch (NumberFormatException e) {
      throw new InvalidRequestException(
          "search_after value [" + abbreviate(v) + "] of [" + key.field() + "] is not a number");
    }
  }

  private static String abbreviate(Object v) {
    String s = String.valueOf(v);
    return s.length() > 40 ? s.substring(0, 40) + "..." : s;
  }
}
