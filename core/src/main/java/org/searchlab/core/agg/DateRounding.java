package org.searchlab.core.agg;

import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;
import java.util.Map;
import org.searchlab.core.InvalidRequestException;

/**
 * How {@code date_histogram} rounds epoch milliseconds down to its bucket's start, as
 * Elasticsearch's {@code Rounding} does: a calendar interval truncates the local date-time in the
 * zone (weeks start on Monday, quarters in January, April, July and October) and maps it back to an
 * instant; a fixed interval floors the local time to a multiple of its length. Also parses
 * intervals and writes keys. Immutable and thread-safe.
 */
final class DateRounding {
  /** Elasticsearch's calendar interval names, each with its one-unit short form. */
  static final Map<String, Unit> CALENDAR =
      Map.ofEntries(
          Map.entry("minute", Unit.MINUTE),
          Map.entry("1m", Unit.MINUTE),
          Map.entry("hour", Unit.HOUR),
          Map.entry("1h", Unit.HOUR),
          Map.entry("day", Unit.DAY),
          Map.entry("1d", Unit.DAY),
          Map.entry("week", Unit.WEEK),
          Map.entry("1w", Unit.WEEK),
          Map.entry("month", Unit.MONTH),
          Map.entry("1M", Unit.MONTH),
          Map.entry("quarter", Unit.QUARTER),
          Map.entry("1q", Unit.QUARTER),
          Map.entry("year", Unit.YEAR),
          Map.entry("1y", Unit.YEAR));

  /** A calendar unit and about how long it is, for estimates. */
  enum Unit {
    MINUTE(60_000L),
    HOUR(3_600_000L),
    DAY(86_400_000L),
    WEEK(7 * 86_400_000L),
    MONTH(28 * 86_400_000L),
    QUARTER(90 * 86_400_000L),
    YEAR(365 * 86_400_000L);

    final long shortestMillis;

    Unit(long shortestMillis) {
      this.shortestMillis = shortestMillis;
    }
  }

  private final Unit unit;
  private final long fixedMillis;
  private final ZoneId zone;

  private DateRounding(Unit unit, long fixedMillis, ZoneId zone) {
    this.unit = unit;
    this.fixedMillis = fixedMillis;
    this.zone = zone;
  }

  static DateRounding of(Aggregation.DateHistogram d) {
    ZoneId zone = zone(d.timeZone());
    if (d.calendarInterval() != null) {
      Unit u = CALENDAR.get(d.calendarInterval());
      if (u == null) {
        throw new InvalidRequestException(
            "The supplied interval ["
                + d.calendarInterval()
                + "] could not be parsed as a calendar interval.");
      }
      return new DateRounding(u, 0, zone);
    }
    return new DateRounding(null, d.fixedIntervalMillis(), zone);
  }

  /** A time zone by Elasticsearch's names: {@code UTC}, {@code Z}, {@code +01:00}, region ids. */
  static ZoneId zone(String name) {
    try {
      return ZoneId.of(name);
    } catch (DateTimeException e) {
      throw new InvalidRequestException(
          "[time_zone] [" + InvalidName.prefix(name) + "] is not a known time zone or offset");
    }
  }

  /**
   * A fixed interval in milliseconds: a positive integer and a unit of {@code ms}, {@code s},
   * {@code m}, {@code h} or {@code d} ({@code 90m}, {@code 12h}, {@code 30d}).
   */
  static long parseFixed(String s) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(\\d{1,12})(ms|s|m|h|d)").matcher(s == null ? "" : s);
    if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
      throw new InvalidRequestException(
          "failed to parse setting [date_histogram.fixedInterval] with value ["
              + InvalidName.prefix(s)
              + "] as a time value: a positive number with a unit of ms, s, m, h or d is needed");
    }
    long n = Long.parseLong(m.group(1));
    long unit =
        switch (m.group(2)) {
          case "ms" -> 1;
          case "s" -> 1000;
          case "m" -> 60_000;
          case "h" -> 3_600_000;
          default -> 86_400_000;
        };
    return Math.multiplyExact(n, unit);
  }

  /** The start of the bucket {@code millis} falls in. */
  long round(long millis) {
    if (unit == null) {
      long offset =
          zone.getRules().getOffset(Instant.ofEpochMilli(millis)).getTotalSeconds() * 1000L;
      long local = millis + offset;
      long rounded = Math.floorDiv(local, fixedMillis) * fixedMillis;
      long back =
          zone.getRules().getOffset(Instant.ofEpochMilli(rounded - offset)).getTotalSeconds()
              * 1000L;
      return rounded - back;
    }
    LocalDateTime t = LocalDateTime.ofInstant(Instant.ofEpochMilli(millis), zone);
    LocalDateTime r =
        switch (unit) {
          case MINUTE -> t.truncatedTo(ChronoUnit.MINUTES);
          case HOUR -> t.truncatedTo(ChronoUnit.HOURS);
          case DAY -> t.truncatedTo(ChronoUnit.DAYS);
          case WEEK ->
              t.truncatedTo(ChronoUnit.DAYS)
                  .with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
          case MONTH -> t.truncatedTo(ChronoUnit.DAYS).withDayOfMonth(1);
          case QUARTER ->
              t.truncatedTo(ChronoUnit.DAYS)
                  .withDayOfMonth(1)
                  .withMonth((t.getMonthValue() - 1) / 3 * 3 + 1);
          case YEAR -> t.truncatedTo(ChronoUnit.DAYS).withDayOfYear(1);
        };
    return ZonedDateTime.ofLocal(r, zone, null).toInstant().toEpochMilli();
  }

  private long offset(long millis) {
    return zone.getRules().getOffset(Instant.ofEpochMilli(millis)).getTotalSeconds() * 1000L;
  }

  /** The start of the bucket after the one starting at {@code start}. */
  long next(long start) {
    if (unit == null) {
      // The next multiple of the interval in local time, back in UTC: adding the interval to the
      // instant instead can land in the same bucket again where the zone's offset falls back.
      long local = start + offset(start) + fixedMillis;
      long next = local - offset(local - offset(local));
      return next > start ? next : start + fixedMillis;
    }
    LocalDateTime t = LocalDateTime.ofInstant(Instant.ofEpochMilli(start), zone);
    LocalDateTime n =
        switch (unit) {
          case MINUTE -> t.plusMinutes(1);
          case HOUR -> t.plusHours(1);
          case DAY -> t.plusDays(1);
          case WEEK -> t.plusWeeks(1);
          case MONTH -> t.plusMonths(1);
          case QUARTER -> t.plusMonths(3);
          case YEAR -> t.plusYears(1);
        };
    long next = round(ZonedDateTime.ofLocal(n, zone, null).toInstant().toEpochMilli());
    return next > start ? next : round(start + 3_600_000L * 24 * 31); // a zone's gap
  }

  /** About how many buckets lie from {@code lo} to {@code hi}, for an error message. */
  long estimate(long lo, long hi) {
    long width = unit == null ? fixedMillis : unit.shortestMillis;
    return (hi - lo) / width + 1;
  }

  /**
   * Epoch milliseconds as a date field's format expression writes them (its first alternative):
   * {@code strict_date_optional_time} as {@code 2020-01-31T00:00:00.000Z} (the zone's offset when
   * not UTC), {@code epoch_millis} and {@code epoch_second} as numbers, {@code strict_date} as the
   * day, a pattern by itself.
   */
  static String format(long millis, String zoneName, String format) {
    ZoneId zone = zone(zoneName);
    String first = format == null ? "strict_date_optional_time" : format.split("\\|\\|")[0].trim();
    ZonedDateTime t = Instant.ofEpochMilli(millis).atZone(zone);
    return switch (first) {
      case "epoch_millis" -> Long.toString(millis);
      case "epoch_second" -> Long.toString(Math.floorDiv(millis, 1000));
      case "strict_date", "date" -> DateTimeFormatter.ISO_LOCAL_DATE.format(t);
      case "strict_date_optional_time", "date_optional_time" ->
          DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX", Locale.ROOT).format(t);
      default -> DateTimeFormatter.ofPattern(first, Locale.ROOT).format(t);
    };
  }

  /** Short prefixes of request values for error messages. */
  static final class InvalidName {
    private InvalidName() {}

    static String prefix(String s) {
      if (s == null) {
        return "null";
      }
      return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }
  }
}
