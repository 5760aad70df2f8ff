package org.searchlab.core.mapping;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * The numeric field types of an Elasticsearch mapping and how a value becomes one: the integer
 * types ({@code long}, {@code integer}, {@code short}, {@code byte}) hold a {@code long} within
 * their range, the floating types ({@code double}, {@code float}) a {@code double} ({@code float}
 * values rounded to float precision first, as a float field stores them). As Elasticsearch's
 * default {@code coerce: true}, a numeric string is parsed and a fraction in an integer field is
 * truncated toward zero; a value out of the type's range is refused. Immutable and thread-safe.
 */
public enum NumberType {
  LONG("long", Long.MIN_VALUE, Long.MAX_VALUE),
  INTEGER("integer", Integer.MIN_VALUE, Integer.MAX_VALUE),
  SHORT("short", Short.MIN_VALUE, Short.MAX_VALUE),
  BYTE("byte", Byte.MIN_VALUE, Byte.MAX_VALUE),
  DOUBLE("double", 0, 0),
  FLOAT("float", 0, 0);

  private final String esName;
  private final long min;
  private final long max;

  NumberType(String esName, long min, long max) {
    this.esName = esName;
    this.min = min;
    this.max = max;
  }

  /** The type's name in a mapping. */
  public String esName() {
    return esName;
  }

  /** Whether values are whole numbers (held as {@code long}). */
  public boolean integral() {
    return this != DOUBLE && this != FLOAT;
  }

  /** The type named {@code name}, or null when it is not a numeric type. */
  public static NumberType of(String name) {
    for (NumberType t : values()) {
      if (t.esName.equals(name)) {
        return t;
      }
    }
    return null;
  }

  /**
   * A JSON value ({@link Number} or numeric {@link String}) as this type: a {@link Long} for the
   * integer types, a {@link Double} for the floating ones.
   *
   * @throws MappingException {@code mapper_parsing_exception} naming {@code field} and the value
   */
  public Object parse(String field, Object value) {
    BigDecimal d = decimal(field, value);
    if (integral()) {
      BigDecimal whole = d.setScale(0, RoundingMode.DOWN);
      if (whole.compareTo(BigDecimal.valueOf(min)) < 0
          || whole.compareTo(BigDecimal.valueOf(max)) > 0) {
        throw MappingException.parsing(
            "failed to parse field ["
                + field
                + "] of type ["
                + esName
                + "]: value ["
                + abbreviate(value)
                + "] is out of range for "
                + (this == LONG ? "a long" : "an " + esName)
                + " ["
                + min
                + ", "
                + max
                + "]");
      }
      return whole.longValue();
    }
    double v = d.doubleValue();
    if (this == FLOAT) {
      float f = (float) v;
      if (Float.isInfinite(f)) {
        throw MappingException.parsing(
            "failed to parse field ["
                + field
                + "] of type [float]: value ["
                + abbreviate(value)
                + "] is out of range for a float");
      }
      return (double) f;
    }
    if (Double.isInfinite(v)) {
      throw MappingException.parsing(
          "failed to parse field ["
              + field
              + "] of type [double]: value ["
              + abbreviate(value)
              + "] is out of range for a double");
    }
    return v;
  }

  /** A JSON number or numeric string as a decimal; a {@code mapper_parsing_exception} otherwise. */
  static BigDecimal decimal(String field, Object value) {
    try {
      if (value instanceof Long || value instanceof Integer) {
        return BigDecimal.valueOf(((Number) value).longValue());
      }
      if (value instanceof Double || value instanceof Float) {
        double d = ((Number) value).doubleValue();
        if (!Double.isFinite(d)) {
          throw new NumberFormatException();
        }
        return new BigDecimal(Double.toString(d));
      }
      if (value instanceof BigDecimal b) {
        return b;
      }
      if (value instanceof java.math.BigInteger b) {
        return new BigDecimal(b);
      }
      if (value instanceof String s && s.length() <= 64) {
        return new BigDecimal(s.trim());
      }
    } catch (NumberFormatException e) {
      // falls through to the error
    }
    throw MappingException.parsing(
        "failed to parse field ["
            + field
            + "]: ["
            + abbreviate(value)
            + "] is not a number; the field is numeric");
  }

  static String abbreviate(Object value) {
    String s = String.valueOf(value);
    return s.length() > 40 ? s.substring(0, 37) + "..." : s;
  }

  @Override
  public String toString() {
    return esName.toLowerCase(Locale.ROOT);
  }
}
