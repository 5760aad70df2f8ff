package org.searchlab.core.query;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.mapping.Dates;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.MappingException;
import org.searchlab.core.mapping.NumberType;

/**
 * What the values of {@code term}, {@code terms} and {@code range} queries mean on each field type,
 * as Elasticsearch's field mappers build their queries: the one definition both stores and the
 * oracle use. A query value is normalised to the form {@link
 * org.searchlab.core.mapping.ParsedDocument} gives indexed values: a {@link String} for text (one
 * token, not analysed) and keyword, a {@link Long} for the integer types, dates (epoch
 * milliseconds) and booleans (1 or 0), a {@link Double} for float (rounded to float) and double.
 * Stateless and thread-safe.
 */
public final class FieldValues {
  private FieldValues() {}

  /**
   * The indexed value a {@code term} query's value stands for, or null when it can match nothing
   * (an unmapped field, a fraction on an integer field, a number beyond the type's range).
   *
   * @throws InvalidRequestException for a value that cannot be one of the field's (not a number on
   *     a numeric field, not a date on a date field, any value on a vector field)
   */
  public static Object termValue(FieldType f, String field, Object value) {
    if (f == null || value == null) {
      return null;
    }
    return switch (f) {
      case FieldType.Text t -> string(value);
      case FieldType.Keyword k -> string(value);
      case FieldType.Numeric n -> {
        BigDecimal d = decimal(field, value);
        if (n.type().integral()) {
          if (d.stripTrailingZeros().scale() > 0) {
            yield null; // Elasticsearch: "Value [1.5] has a decimal part"
          }
          try {
            long l = d.longValueExact();
            Object parsed = n.type().parse(field, l);
            yield parsed;
          } catch (ArithmeticException | MappingException e) {
            yield null;
          }
        }
        double v = d.doubleValue();
        yield n.type() == NumberType.FLOAT ? (double) (float) v : v;
      }
      case FieldType.Bool b -> bool(field, value) ? 1L : 0L;
      case FieldType.Date dt -> date(field, dt.format(), value);
      case FieldType.DenseVector v ->
          throw new InvalidRequestException(
              "field [" + field + "] of type [dense_vector] does not support term queries");
      case FieldType.ObjectField o -> null;
    };
  }

  /** A range's bounds on one field type, normalised; see {@link #range}. */
  public sealed interface Bounds {}

  /** Whole-number bounds, both inclusive; empty when {@code min > max}. */
  public record LongBounds(long min, long max) implements Bounds {
    public boolean contains(long v) {
      return v >= min && v <= max;
    }
  }

  /** Floating bounds, both inclusive; empty when {@code min > max}. */
  public record DoubleBounds(double min, double max) implements Bounds {
    public boolean contains(double v) {
      return v >= min && v <= max;
    }
  }

  /** Keyword bounds in UTF-8 byte order (Lucene's term order); a null end is unbounded. */
  public record StringBounds(String lower, boolean includeLower, String upper, boolean includeUpper)
      implements Bounds {
    public boolean contains(String v) {
      if (lower != null) {
        int c = compareUtf8(v, lower);
        if (c < 0 || (c == 0 && !includeLower)) {
          return false;
        }
      }
      if (upper != null) {
        int c = compareUtf8(v, upper);
        return c < 0 || (c == 0 && includeUpper);
      }
      return true;
    }
  }

  /**
   * The bounds of {@code r} on field type {@code f}, or null when it can match nothing (an unmapped
   * field). Integer bounds round inward ({@code gte 1.5} is {@code ≥ 2}, {@code gt 1} is {@code ≥
   * 2}); float and double bounds step to the next representable value for an exclusive end; date
   * bounds are read with the query's or the field's format, an exclusive end moving by one
   * millisecond.
   *
   * @throws InvalidRequestException for a bound that is not a value of the field, or a range on a
   *     field type without an order here (text, vectors)
   */
  public static Bounds range(FieldType f, Query.Range r) {
    if (f == null || f instanceof FieldType.ObjectField) {
      return null;
    }
    String field = r.field();
    return switch (f) {
      case FieldType.Numeric n when n.type().integral() -> {
        long min = Long.MIN_VALUE;
        long max = Long.MAX_VALUE;
        if (r.gte() != null) {
          min = clamp(decimal(field, r.gte()).setScale(0, RoundingMode.CEILING));
        } else if (r.gt() != null) {
          BigDecimal d = decimal(field, r.gt()).setScale(0, RoundingMode.FLOOR);
          min =
              d.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : clamp(d) + 1;
          if (d.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) >= 0) {
            yield new LongBounds(1, 0);
          }
        }
        if (r.lte() != null) {
          max = clamp(decimal(field, r.lte()).setScale(0, RoundingMode.FLOOR));
        } else if (r.lt() != null) {
          BigDecimal d = decimal(field, r.lt()).setScale(0, RoundingMode.CEILING);
          if (d.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) <= 0) {
            yield new LongBounds(1, 0);
          }
          max = clamp(d) - 1;
        }
        yield new LongBounds(min, max);
      }
      case FieldType.Numeric n -> {
        boolean isFloat = n.type() == NumberType.FLOAT;
        double min = Double.NEGATIVE_INFINITY;
        double max = Double.POSITIVE_INFINITY;
        if (r.gte() != null) {
          min = floating(field, r.gte(), isFloat);
        } else if (r.gt() != null) {
          double v = floating(field, r.gt(), isFloat);
          min = isFloat ? Math.nextUp((float) v) : Math.nextUp(v);
        }
        if (r.lte() != null) {
          max = floating(field, r.lte(), isFloat);
        } else if (r.lt() != null) {
          double v = floating(field, r.lt(), isFloat);
          max = isFloat ? Math.nextDown((float) v) : Math.nextDown(v);
        }
        yield new DoubleBounds(min, max);
      }
      case FieldType.Date d -> {
        String format = r.format() != null ? Dates.checkFormat(r.format()) : d.format();
        long min = Long.MIN_VALUE;
        long max = Long.MAX_VALUE;
        if (r.gte() != null) {
          min = date(field, format, r.gte());
        } else if (r.gt() != null) {
          min = date(field, format, r.gt()) + 1;
        }
        if (r.lte() != null) {
          max = date(field, format, r.lte());
        } else if (r.lt() != null) {
          max = date(field, format, r.lt()) - 1;
        }
        yield new LongBounds(min, max);
      }
      case FieldType.Bool b -> {
        long min = 0;
        long max = 1;
        if (r.gte() != null) {
          min = bool(field, r.gte()) ? 1 : 0;
        } else if (r.gt() != null) {
          min = bool(field, r.gt()) ? 2 : 1;
        }
        if (r.lte() != null) {
          max = bool(field, r.lte()) ? 1 : 0;
        } else if (r.lt() != null) {
          max = bool(field, r.lt()) ? 0 : -1;
        }
        yield new LongBounds(min, max);
      }
      case FieldType.Keyword k ->
          new StringBounds(
              r.gte() != null ? string(r.gte()) : r.gt() != null ? string(r.gt()) : null,
              r.gte() != null,
              r.lte() != null ? string(r.lte()) : r.lt() != null ? string(r.lt()) : null,
              r.lte() != null);
      default ->
          throw new InvalidRequestException(
              "[range] queries on ["
                  + f.esName()
                  + "] fields are not supported; field ["
                  + field
                  + "] is one");
    };
  }

  private static long clamp(BigDecimal d) {
    if (d.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      return Long.MAX_VALUE;
    }
    if (d.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) < 0) {
      return Long.MIN_VALUE;
    }
    return d.longValue();
  }

  private static double floating(String field, Object v, boolean isFloat) {
    double d = decimal(field, v).doubleValue();
    return isFloat ? (double) (float) d : d;
  }

  /** Compares two strings by their UTF-8 bytes, as Lucene orders terms. */
  public static int compareUtf8(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int i = 0; i < n; i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y) {
        // Surrogates (supplementary characters) sort above every BMP character in UTF-8.
        boolean sx = Character.isSurrogate(x);
        boolean sy = Character.isSurrogate(y);
        if (sx != sy) {
          return sx ? 1 : -1;
        }
        return Character.compare(x, y);
      }
    }
    return Integer.compare(a.length(), b.length());
  }

  /** UTF-8 bytes of a string, for callers that key by them. */
  public static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String string(Object v) {
    return switch (v) {
      case String s -> s;
      case BigDecimal d -> d.toPlainString();
      default -> String.valueOf(v);
    };
  }

  private static BigDecimal decimal(String field, Object v) {
    try {
      return switch (v) {
        case Long l -> BigDecimal.valueOf(l);
        case Integer i -> BigDecimal.valueOf(i);
        case Double d -> new BigDecimal(Double.toString(d));
        case Float f -> new BigDecimal(Float.toString(f));
        case BigDecimal d -> d;
        case String s when s.length() <= 64 -> new BigDecimal(s.trim());
        default -> throw new NumberFormatException();
      };
    } catch (NumberFormatException e) {
      String shown = String.valueOf(v);
      throw new InvalidRequestException(
          "failed to create query: ["
              + (shown.length() > 40 ? shown.substring(0, 37) + "..." : shown)
              + "] is not a number, and field ["
              + field
              + "] is numeric");
    }
  }

  private static boolean bool(String field, Object v) {
    if (v instanceof Boolean b) {
      return b;
    }
    if (v instanceof String s && (s.equals("true") || s.equals("false"))) {
      return s.equals("true");
    }
    throw new InvalidRequestException(
        "failed to create query: field ["
            + field
            + "] is a boolean; ["
            + v
            + "] is not true or false");
  }

  private static long date(String field, String format, Object v) {
    try {
      return Dates.parse(field, format, v);
    } catch (MappingException e) {
      throw new InvalidRequestException(
          "failed to create query: "
              + e.getMessage()
              + " (date math such as now-1d is not supported)");
    }
  }
}
