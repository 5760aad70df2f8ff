package org.searchlab.core.mapping;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Dates as Elasticsearch's {@code date} fields read them: a format expression of alternatives
 * separated by {@code ||}, each a built-in name ({@code strict_date_optional_time}, {@code
 * date_optional_time}, {@code strict_date}, {@code date}, {@code epoch_millis}, {@code
 * epoch_second}) or a {@link DateTimeFormatter} pattern ({@code yyyy/MM/dd HH:mm:ss}). The default
 * is {@value #DEFAULT_FORMAT}: an ISO-8601 date with optional time and zone (UTC when none), or
 * milliseconds since the epoch. A JSON number is always epoch milliseconds. Immutable and
 * thread-safe.
 */
public final class Dates {
  /** Elasticsearch's default format of a {@code date} field. */
  public static final String DEFAULT_FORMAT = "strict_date_optional_time||epoch_millis";

  /** ISO date, optional time (with optional fractions) and optional zone or offset. */
  private static final DateTimeFormatter ISO_OPTIONAL_TIME =
      new DateTimeFormatterBuilder()
          .append(DateTimeFormatter.ISO_LOCAL_DATE)
          .optionalStart()
          .appendLiteral('T')
          .appendValue(ChronoField.HOUR_OF_DAY, 2)
          .optionalStart()
          .appendLiteral(':')
          .appendValue(ChronoField.MINUTE_OF_HOUR, 2)
          .optionalStart()
          .appendLiteral(':')
          .appendValue(ChronoField.SECOND_OF_MINUTE, 2)
          .optionalStart()
          .appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true)
          .optionalEnd()
          .optionalEnd()
          .optionalEnd()
          .optionalStart()
          .appendOffset("+HH:MM", "Z")
          .optionalEnd()
          .optionalStart()
          .appendOffset("+HHMM", "Z")
          .optionalEnd()
          .optionalEnd()
          .toFormatter(Locale.ROOT)
          .withResolverStyle(ResolverStyle.STRICT)
          .withChronology(java.time.chrono.IsoChronology.INSTANCE);

  private Dates() {}

  /** Rejects a format expression with a part that is neither a known name nor a valid pattern. */
  public static String checkFormat(String format) {
    for (String part : parts(format)) {
      if (!builtIn(part)) {
        try {
          DateTimeFormatter.ofPattern(part, Locale.ROOT);
        } catch (IllegalArgumentException e) {
          throw MappingException.parsing(
              "date format ["
                  + NumberType.abbreviate(part)
                  + "] is neither a supported name (strict_date_optional_time, date_optional_time,"
                  + " strict_date, date, epoch_millis, epoch_second) nor a valid pattern");
        }
      }
    }
    return format;
  }

  private static List<String> parts(String format) {
    List<String> out = new ArrayList<>();
    for (String p : format.split("\\|\\|")) {
      String t = p.trim();
      if (!t.isEmpty()) {
        out.add(t);
      }
    }
    if (out.isEmpty()) {
      throw MappingException.parsing("date format [" + format + "] is empty");
    }
    return out;
  }

  private static boolean builtIn(String name) {
    return switch (name) {
      case "strict_date_optional_time",
          "date_optional_time",
          "strict_date",
          "date",
          "epoch_millis",
          "epoch_second" ->
          true;
      default -> false;
    };
  }

  /**
   * A value of a date field in epoch milliseconds: a JSON number as epoch milliseconds, a string by
   * the first alternative of {@code format} that reads it.
   *
   * @throws MappingException {@code mapper_parsing_exception} naming the field and the value
   */
  public static long parse(String field, String format, Object value) {
    if (value instanceof Number n) {
      if (value instanceof Double || value instanceof Float) {
        double d = n.doubleValue();
        if (!Double.isFinite(d) || Math.abs(d) > 9.2e18) {
          throw failed(field, value, format);
        }
        return (long) d;
      }
      return n.longValue();
    }
    if (!(value instanceof String s)) {
      throw failed(field, value, format);
    }
    Long millis = tryParse(format, s.trim());
    if (millis == null) {
      throw failed(field, value, format);
    }
    return millis;
  }

  /** The string as epoch milliseconds by {@code format}, or null when no alternative reads it. */
  public static Long tryParse(String format, String s) {
    if (s.isEmpty() || s.length() > 64) {
      return null;
    }
    for (String part : parts(format)) {
      Long v = tryPart(part, s);
      if (v != null) {
        return v;
      }
    }
    return null;
  }

  private static Long tryPart(String part, String s) {
    try {
      return switch (part) {
        case "epoch_millis" -> epoch(s, 1);
        case "epoch_second" -> epoch(s, 1000);
        case "strict_date_optional_time", "date_optional_time" -> iso(s);
        case "strict_date", "date" ->
            LocalDate.parse(s, DateTimeFormatter.ISO_LOCAL_DATE)
                .atStartOfDay(ZoneOffset.UTC)
                .toInstant()
                .toEpochMilli();
        default -> pattern(part, s);
      };
    } catch (DateTimeException | ArithmeticException | NumberFormatException e) {
      return null;
    }
  }

  private static Long epoch(String s, long unit) {
    if (!s.matches("-?\\d{1,19}(\\.\\d{1,9})?")) {
      return null;
    }
    java.math.BigDecimal d =
        new java.math.BigDecimal(s).multiply(java.math.BigDecimal.valueOf(unit));
    return d.setScale(0, java.math.RoundingMode.DOWN).longValueExact();
  }

  private static long iso(String s) {
    TemporalAccessor t = ISO_OPTIONAL_TIME.parse(s);
    LocalDate date = LocalDate.from(t);
    LocalTime time =
        t.isSupported(ChronoField.HOUR_OF_DAY)
            ? LocalTime.of(
                t.get(ChronoField.HOUR_OF_DAY),
                t.isSupported(ChronoField.MINUTE_OF_HOUR) ? t.get(ChronoField.MINUTE_OF_HOUR) : 0,
                t.isSupported(ChronoField.SECOND_OF_MINUTE)
                    ? t.get(ChronoField.SECOND_OF_MINUTE)
                    : 0,
                t.isSupported(ChronoField.NANO_OF_SECOND) ? t.get(ChronoField.NANO_OF_SECOND) : 0)
            : LocalTime.MIDNIGHT;
    ZoneOffset offset =
        t.isSupported(ChronoField.OFFSET_SECONDS)
            ? ZoneOffset.ofTotalSeconds(t.get(ChronoField.OFFSET_SECONDS))
            : ZoneOffset.UTC;
    return OffsetDateTime.of(date, time, offset).toInstant().toEpochMilli();
  }

  private static long pattern(String pattern, String s) {
    DateTimeFormatter f = DateTimeFormatter.ofPattern(pattern, Locale.ROOT);
    TemporalAccessor t = f.parse(s);
    if (t.isSupported(ChronoField.INSTANT_SECONDS)) {
      return Instant.from(t).toEpochMilli();
    }
    LocalDate date = LocalDate.from(t);
    LocalTime time =
        t.isSupported(ChronoField.HOUR_OF_DAY) ? LocalTime.from(t) : LocalTime.MIDNIGHT;
    ZoneOffset offset =
        t.isSupported(ChronoField.OFFSET_SECONDS)
            ? ZoneOffset.ofTotalSeconds(t.get(ChronoField.OFFSET_SECONDS))
            : ZoneOffset.UTC;
    return LocalDateTime.of(date, time).toInstant(offset).toEpochMilli();
  }

  /**
   * Whether a string looks like a date to Elasticsearch's dynamic date detection (its default
   * {@code dynamic_date_formats}: {@code strict_date_optional_time} and {@code yyyy/MM/dd HH:mm:ss
   * Z||yyyy/MM/dd Z}).
   */
  public static boolean detect(String s) {
    if (s.length() < 8 || s.length() > 40 || !Character.isDigit(s.charAt(0))) {
      return false;
    }
    return tryParse("strict_date_optional_time||yyyy/MM/dd HH:mm:ss Z||yyyy/MM/dd Z", s) != null;
  }

  /** Renders epoch milliseconds as Elasticsearch renders a date: ISO-8601 in UTC. */
  public static String format(long millis) {
    return DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochMilli(millis));
  }

  private static MappingException failed(String field, Object value, String format) {
    return MappingException.parsing(
        "failed to parse field ["
            + field
            + "] of type [date]: ["
            + NumberType.abbreviate(value)
            + "] does not match the format ["
            + format
            + "]");
  }
}
