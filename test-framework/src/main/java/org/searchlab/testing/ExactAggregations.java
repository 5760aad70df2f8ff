// Over 500 lines: the oracle of every aggregation type in one class, written apart from core's
// implementation on purpose, so that each can be read against Elasticsearch's documentation.
package org.searchlab.testing;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.searchlab.core.Hit;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.TotalHits;
import org.searchlab.core.agg.Aggregation;
import org.searchlab.core.agg.AggregationResult;
import org.searchlab.core.agg.AggregationResult.Bucket;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.ParsedDocument;
import org.searchlab.core.query.FieldValues;
import org.searchlab.core.query.SortKey;

/**
 * The reference for aggregations: each one computed straight from the matching documents' parsed
 * values, the way Elasticsearch's documentation defines it, written apart from the stores' shared
 * implementation ({@code org.searchlab.core.agg}) so that a test comparing the two checks the
 * semantics as well as each store's reading of its values. Counts, keys, bucket order (ties by key)
 * and min, max and counts are exact; sums and averages are plain double sums (the stores compensate
 * theirs, so compare them with a relative tolerance); {@code cardinality} is the exact count of
 * distinct values (the stores estimate above the threshold). Not thread-safe; one per search.
 */
final class ExactAggregations {
  private final ExactCorpus corpus;
  private final Mapping mapping;
  private final ExactQueries queries;
  private long buckets;

  /** A matching document: its ordinal in the corpus and its score. */
  record Match(int ord, float score) {}

  ExactAggregations(ExactCorpus corpus, Mapping mapping, ExactQueries queries) {
    this.corpus = corpus;
    this.mapping = mapping;
    this.queries = queries;
  }

  Map<String, AggregationResult> all(Map<String, Aggregation> aggs, List<Match> docs) {
    Map<String, AggregationResult> out = new LinkedHashMap<>();
    aggs.forEach((name, a) -> out.put(name, one(a, docs)));
    return out;
  }

  private void count(long n) {
    buckets += n;
    if (buckets > Aggregation.MAX_BUCKETS) {
      throw new InvalidRequestException("too_many_buckets_exception", "too many buckets");
    }
  }

  private AggregationResult one(Aggregation a, List<Match> docs) {
    return switch (a) {
      case Aggregation.Terms t -> terms(t, docs);
      case Aggregation.Range r -> range(r, docs);
      case Aggregation.Histogram h -> histogram(h, docs);
      case Aggregation.DateHistogram d -> dateHistogram(d, docs);
      case Aggregation.Filter f -> {
        List<Match> in = docs.stream().filter(m -> queries.matches(f.filter(), m.ord())).toList();
        count(1);
        yield new AggregationResult.SingleBucket("filter", in.size(), all(f.subAggregations(), in));
      }
      case Aggregation.Filters f -> filters(f, docs);
      case Aggregation.Metric m -> metric(m, docs);
      case Aggregation.Cardinality c -> {
        Set<Object> distinct = new HashSet<>();
        for (Match m : docs) {
          List<Object> v = values(c.field(), corpus.at(m.ord()));
          if (v.isEmpty() && c.missing() != null) {
            v = List.of(missing(c.field(), c.missing()));
          }
          distinct.addAll(v);
        }
        yield new AggregationResult.Count("cardinality", distinct.size());
      }
      case Aggregation.TopHits t -> topHits(t, docs);
    };
  }

  /**
   * A document's values of a field: keyword strings (distinct, as doc values keep them), longs of
   * integers, dates and booleans, doubles of floating-point numbers (repeats kept, ascending).
   */
  private List<Object> values(String field, ParsedDocument d) {
    FieldType f = mapping.leaf(field);
    if (f == null) {
      return List.of();
    }
    if (d.strings(field) != null && f instanceof FieldType.Keyword) {
      return new ArrayList<>(new LinkedHashSet<>(List.of(d.strings(field))));
    }
    List<Object> out = new ArrayList<>();
    if (d.longs(field) != null) {
      for (long v : d.longs(field)) {
        out.add(v);
      }
    } else if (d.doubles(field) != null) {
      for (double v : d.doubles(field)) {
        out.add(v);
      }
    }
    out.sort(ExactAggregations::compare);
    return out;
  }

  private Object missing(String field, Object missing) {
    FieldType f = mapping.leaf(field);
    return f instanceof FieldType.Keyword
        ? String.valueOf(missing)
        : FieldValues.termValue(f, field, missing);
  }

  static int compare(Object a, Object b) {
    if (a instanceof String x && b instanceof String y) {
      return FieldValues.compareUtf8(x, y);
    }
    if (a instanceof Long x && b instanceof Long y) {
      return Long.compare(x, y);
    }
    return Double.compare(((Number) a).doubleValue(), ((Number) b).doubleValue());
  }

  private static double number(Object v) {
    return ((Number) v).doubleValue();
  }

  private static final class Counted {
    long count;
    List<Match> docs = new ArrayList<>();
  }

  private AggregationResult terms(Aggregation.Terms t, List<Match> docs) {
    FieldType f = mapping.leaf(t.field());
    Map<Object, Counted> byKey = new LinkedHashMap<>();
    for (Match m : docs) {
      List<Object> vs = new ArrayList<>(new LinkedHashSet<>(values(t.field(), corpus.at(m.ord()))));
      if (vs.isEmpty() && t.missing() != null && f != null) {
        vs = List.of(missing(t.field(), t.missing()));
      }
      for (Object v : vs) {
        Counted c = byKey.computeIfAbsent(v, x -> new Counted());
        c.count++;
        c.docs.add(m);
      }
    }
    if (t.minDocCount() == 0) {
      for (int ord = 0; ord < corpus.ordinals(); ord++) {
        if (corpus.at(ord) != null) {
          for (Object v : values(t.field(), corpus.at(ord))) {
            byKey.computeIfAbsent(v, x -> new Counted());
          }
        }
      }
    }
    List<Map.Entry<Object, Counted>> candidates = new ArrayList<>();
    for (Map.Entry<Object, Counted> e : byKey.entrySet()) {
      if (e.getValue().count >= Math.max(1, t.minDocCount()) || t.minDocCount() == 0) {
        candidates.add(e);
      }
    }
    Map<Object, Map<String, AggregationResult>> subs = new LinkedHashMap<>();
    Comparator<Map.Entry<Object, Counted>> order = null;
    boolean byKeyOrder = false;
    for (Aggregation.BucketOrder o : t.order()) {
      Comparator<Map.Entry<Object, Counted>> one;
      switch (o.path()) {
        case "_count" -> one = Comparator.comparingLong(e -> e.getValue().count);
        case "_key" -> {
          one = (x, y) -> compare(x.getKey(), y.getKey());
          byKeyOrder = true;
        }
        default -> {
          for (Map.Entry<Object, Counted> e : candidates) {
            subs.computeIfAbsent(e.getKey(), k -> all(t.subAggregations(), e.getValue().docs));
          }
          // NaN (an empty bucket's avg) last in either direction, as Elasticsearch sorts it.
          Comparator<Map.Entry<Object, Counted>> byValue =
              Comparator.comparingDouble(e -> subValue(o.path(), subs.get(e.getKey())));
          if (!o.ascending()) {
            byValue = byValue.reversed();
          }
          Comparator<Map.Entry<Object, Counted>> directed = byValue;
          one =
              (x, y) -> {
                boolean nx = Double.isNaN(subValue(o.path(), subs.get(x.getKey())));
                boolean ny = Double.isNaN(subValue(o.path(), subs.get(y.getKey())));
                return nx || ny ? Boolean.compare(nx, ny) : directed.compare(x, y);
              };
          order = order == null ? one : order.thenComparing(one);
          continue;
        }
      }
      one = o.ascending() ? one : one.reversed();
      order = order == null ? one : order.thenComparing(one);
    }
    if (!byKeyOrder) {
      order = order.thenComparing((x, y) -> compare(x.getKey(), y.getKey()));
    }
    candidates.sort(order);
    int n = Math.min(t.size(), candidates.size());
    count(n);
    long other = 0;
    for (int i = n; i < candidates.size(); i++) {
      other += candidates.get(i).getValue().count;
    }
    List<Bucket> out = new ArrayList<>();
    for (Map.Entry<Object, Counted> e : candidates.subList(0, n)) {
      Map<String, AggregationResult> s =
          subs.containsKey(e.getKey())
              ? subs.get(e.getKey())
              : all(t.subAggregations(), e.getValue().docs);
      out.add(new Bucket(e.getKey(), keyString(f, e.getKey()), e.getValue().count, null, null, s));
    }
    return new AggregationResult.Buckets("terms", out, false, other);
  }

  private static String keyString(FieldType f, Object key) {
    if (f instanceof FieldType.Date) {
      return formatDate((Long) key, ZoneId.of("UTC"));
    }
    if (f instanceof FieldType.Bool) {
      return (Long) key != 0 ? "true" : "false";
    }
    return null;
  }

  static String formatDate(long millis, ZoneId zone) {
    return DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX", Locale.ROOT)
        .format(Instant.ofEpochMilli(millis).atZone(zone));
  }

  private static double subValue(String path, Map<String, AggregationResult> subs) {
    int dot = path.indexOf('.');
    AggregationResult r = subs.get(dot < 0 ? path : path.substring(0, dot));
    String metric = dot < 0 ? null : path.substring(dot + 1);
    return switch (r) {
      case AggregationResult.Value v ->
          v.value() != null
              ? v.value()
              : v.type().equals("min")
                  ? Double.POSITIVE_INFINITY
                  : v.type().equals("max") ? Double.NEGATIVE_INFINITY : Double.NaN;
      case AggregationResult.Count c -> c.value();
      case AggregationResult.Stats s ->
          switch (metric) {
            case "count" -> s.count();
            case "min" -> s.min();
            case "max" -> s.max();
            case "sum" -> s.sum();
            default -> s.avg();
          };
      case AggregationResult.SingleBucket b -> b.docCount();
      default -> throw new IllegalStateException(path);
    };
  }

  private AggregationResult range(Aggregation.Range r, List<Match> docs) {
    FieldType f = mapping.leaf(r.field());
    List<Aggregation.RangeSpec> ranges = new ArrayList<>(r.ranges());
    ranges.sort(
        Comparator.comparingDouble(
                (Aggregation.RangeSpec s) -> s.from() == null ? Double.NEGATIVE_INFINITY : s.from())
            .thenComparingDouble(s -> s.to() == null ? Double.POSITIVE_INFINITY : s.to()));
    count(ranges.size());
    List<Bucket> out = new ArrayList<>();
    for (Aggregation.RangeSpec s : ranges) {
      List<Match> in = new ArrayList<>();
      for (Match m : docs) {
        for (Object v : values(r.field(), corpus.at(m.ord()))) {
          double d = number(v);
          if ((s.from() == null || d >= s.from()) && (s.to() == null || d < s.to())) {
            in.add(m);
            break;
          }
        }
      }
      String key = s.key() != null ? s.key() : bound(f, s.from()) + "-" + bound(f, s.to());
      out.add(new Bucket(key, null, in.size(), s.from(), s.to(), all(r.subAggregations(), in)));
    }
    return new AggregationResult.Buckets("range", out, r.keyed(), 0);
  }

  private static String bound(FieldType f, Double b) {
    if (b == null) {
      return "*";
    }
    return f instanceof FieldType.Date ? formatDate(b.longValue(), ZoneId.of("UTC")) : b.toString();
  }

  private AggregationResult histogram(Aggregation.Histogram h, List<Match> docs) {
    TreeMap<Double, List<Match>> byKey = new TreeMap<>();
    java.util.function.DoubleUnaryOperator round =
        v -> Math.floor((v - h.offset()) / h.interval()) * h.interval() + h.offset();
    for (Match m : docs) {
      Set<Double> keys = new LinkedHashSet<>();
      for (Object v : values(h.field(), corpus.at(m.ord()))) {
        keys.add(round.applyAsDouble(number(v)));
      }
      for (double k : keys) {
        byKey.computeIfAbsent(k, x -> new ArrayList<>()).add(m);
      }
    }
    if (h.minDocCount() == 0) {
      Double lo = byKey.isEmpty() ? null : byKey.firstKey();
      Double hi = byKey.isEmpty() ? null : byKey.lastKey();
      if (h.extendedMin() != null) {
        double e = round.applyAsDouble(h.extendedMin());
        lo = lo == null ? e : Math.min(lo, e);
      }
      if (h.extendedMax() != null) {
        double e = round.applyAsDouble(h.extendedMax());
        hi = hi == null ? e : Math.max(hi, e);
      }
      // Elasticsearch's InternalHistogram.nextKey: round(key + interval + interval / 2), since
      // round(key + interval) can give key back for an interval inexact in binary.
      for (Double k = lo; k != null && hi != null && k <= hi; ) {
        byKey.computeIfAbsent(k, x -> new ArrayList<>());
        if (byKey.size() > Aggregation.MAX_BUCKETS) {
          throw new InvalidRequestException("too_many_buckets_exception", "too many buckets");
        }
        double next = round.applyAsDouble(k + h.interval() + h.interval() / 2);
        if (next <= k) {
          break;
        }
        k = next;
      }
    }
    List<Bucket> out = new ArrayList<>();
    for (Map.Entry<Double, List<Match>> e : byKey.entrySet()) {
      if (e.getValue().size() >= h.minDocCount()) {
        out.add(
            new Bucket(
                e.getKey(),
                null,
                e.getValue().size(),
                null,
                null,
                all(h.subAggregations(), e.getValue())));
      }
    }
    count(out.size());
    return new AggregationResult.Buckets("histogram", out, h.keyed(), 0);
  }

  private AggregationResult dateHistogram(Aggregation.DateHistogram d, List<Match> docs) {
    ZoneId zone = ZoneId.of(d.timeZone());
    TreeMap<Long, List<Match>> byKey = new TreeMap<>();
    for (Match m : docs) {
      Set<Long> keys = new LinkedHashSet<>();
      for (Object v : values(d.field(), corpus.at(m.ord()))) {
        keys.add(roundDate((Long) v, d, zone));
      }
      for (long k : keys) {
        byKey.computeIfAbsent(k, x -> new ArrayList<>()).add(m);
      }
    }
    if (d.minDocCount() == 0 && !byKey.isEmpty()) {
      long lo = byKey.firstKey();
      long hi = byKey.lastKey();
      if (d.extendedMin() != null) {
        lo = Math.min(lo, roundDate(d.extendedMin(), d, zone));
      }
      if (d.extendedMax() != null) {
        hi = Math.max(hi, roundDate(d.extendedMax(), d, zone));
      }
      // Every bucket start from lo to hi: round each instant one millisecond past the last start.
      for (long k = lo; k <= hi; ) {
        byKey.computeIfAbsent(k, x -> new ArrayList<>());
        if (byKey.size() > Aggregation.MAX_BUCKETS) {
          throw new InvalidRequestException("too_many_buckets_exception", "too many buckets");
        }
        k = nextDate(k, d, zone);
      }
    }
    List<Bucket> out = new ArrayList<>();
    for (Map.Entry<Long, List<Match>> e : byKey.entrySet()) {
      if (e.getValue().size() >= d.minDocCount()) {
        out.add(
            new Bucket(
                e.getKey(),
                formatDate(e.getKey(), zone),
                e.getValue().size(),
                null,
                null,
                all(d.subAggregations(), e.getValue())));
      }
    }
    count(out.size());
    return new AggregationResult.Buckets("date_histogram", out, d.keyed(), 0);
  }

  private static long roundDate(long millis, Aggregation.DateHistogram d, ZoneId zone) {
    if (d.calendarInterval() == null) {
      long offset =
          zone.getRules().getOffset(Instant.ofEpochMilli(millis)).getTotalSeconds() * 1000L;
      long local =
          Math.floorDiv(millis + offset, d.fixedIntervalMillis()) * d.fixedIntervalMillis();
      return local
          - zone.getRules().getOffset(Instant.ofEpochMilli(local - offset)).getTotalSeconds()
              * 1000L;
    }
    LocalDateTime t = LocalDateTime.ofInstant(Instant.ofEpochMilli(millis), zone);
    LocalDateTime day = t.truncatedTo(ChronoUnit.DAYS);
    LocalDateTime r =
        switch (d.calendarInterval()) {
          case "minute", "1m" -> t.truncatedTo(ChronoUnit.MINUTES);
          case "hour", "1h" -> t.truncatedTo(ChronoUnit.HOURS);
          case "day", "1d" -> day;
          case "week", "1w" -> day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
          case "month", "1M" -> day.withDayOfMonth(1);
          case "quarter", "1q" ->
              day.withDayOfMonth(1).withMonth((t.getMonthValue() - 1) / 3 * 3 + 1);
          default -> day.withDayOfYear(1);
        };
    return ZonedDateTime.ofLocal(r, zone, null).toInstant().toEpochMilli();
  }

  private static long offsetAt(long millis, ZoneId zone) {
    return zone.getRules().getOffset(Instant.ofEpochMilli(millis)).getTotalSeconds() * 1000L;
  }

  private static long nextDate(long start, Aggregation.DateHistogram d, ZoneId zone) {
    if (d.calendarInterval() == null) {
      // The next multiple of the interval in local time, back in UTC: adding the interval to the
      // instant instead can land in the same bucket again where the zone's offset falls.
      long local = start + offsetAt(start, zone) + d.fixedIntervalMillis();
      long next = local - offsetAt(local - offsetAt(local, zone), zone);
      return next > start ? next : start + d.fixedIntervalMillis();
    }
    LocalDateTime t = LocalDateTime.ofInstant(Instant.ofEpochMilli(start), zone);
    LocalDateTime n =
        switch (d.calendarInterval()) {
          case "minute", "1m" -> t.plusMinutes(1);
          case "hour", "1h" -> t.plusHours(1);
          case "day", "1d" -> t.plusDays(1);
          case "week", "1w" -> t.plusWeeks(1);
          case "month", "1M" -> t.plusMonths(1);
          case "quarter", "1q" -> t.plusMonths(3);
          default -> t.plusYears(1);
        };
    return roundDate(ZonedDateTime.ofLocal(n, zone, null).toInstant().toEpochMilli(), d, zone);
  }

  private AggregationResult filters(Aggregation.Filters f, List<Match> docs) {
    List<Bucket> out = new ArrayList<>();
    Set<Match> matchedAny = new HashSet<>();
    for (Map.Entry<String, org.searchlab.core.query.Query> e : f.filters().entrySet()) {
      List<Match> in = docs.stream().filter(m -> queries.matches(e.getValue(), m.ord())).toList();
      matchedAny.addAll(in);
      out.add(new Bucket(e.getKey(), null, in.size(), null, null, all(f.subAggregations(), in)));
    }
    if (f.otherBucketKey() != null) {
      List<Match> rest = docs.stream().filter(m -> !matchedAny.contains(m)).toList();
      out.add(
          new Bucket(
              f.otherBucketKey(), null, rest.size(), null, null, all(f.subAggregations(), rest)));
    }
    count(out.size());
    return new AggregationResult.Buckets("filters", out, f.keyed(), 0);
  }

  private AggregationResult metric(Aggregation.Metric m, List<Match> docs) {
    FieldType f = mapping.leaf(m.field());
    List<Double> all = new ArrayList<>();
    long count = 0;
    for (Match d : docs) {
      List<Object> vs = values(m.field(), corpus.at(d.ord()));
      if (vs.isEmpty() && m.missing() != null && f != null) {
        vs = List.of(missing(m.field(), m.missing()));
      }
      count += vs.size();
      if (!(f instanceof FieldType.Keyword)) {
        for (Object v : vs) {
          all.add(number(v));
        }
      }
    }
    double sum = 0;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (double v : all) {
      sum += v;
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    boolean dates = f instanceof FieldType.Date;
    return switch (m.kind()) {
      case VALUE_COUNT -> new AggregationResult.Count("value_count", count);
      case MIN -> value("min", all.isEmpty() ? null : min, dates);
      case MAX -> value("max", all.isEmpty() ? null : max, dates);
      case AVG -> value("avg", all.isEmpty() ? null : sum / all.size(), dates);
      case SUM -> value("sum", sum, dates);
      case STATS -> new AggregationResult.Stats(all.size(), min, max, sum, dates);
    };
  }

  private static AggregationResult value(String type, Double v, boolean dates) {
    return new AggregationResult.Value(
        type, v, dates && v != null ? formatDate(v.longValue(), ZoneId.of("UTC")) : null);
  }

  private AggregationResult topHits(Aggregation.TopHits t, List<Match> docs) {
    List<Match> sorted = new ArrayList<>(docs);
    List<SortKey> keys = t.sort().isEmpty() ? List.of(SortKey.BY_SCORE) : t.sort();
    sorted.sort(
        ExactSort.comparator(keys, mapping, (ord, field) -> values(field, corpus.at(ord)), corpus));
    List<Hit> hits = new ArrayList<>();
    for (int i = t.from(); i < Math.min(sorted.size(), t.from() + t.size()); i++) {
      Match m = sorted.get(i);
      hits.add(new Hit(corpus.at(m.ord()).id(), m.score(), corpus.at(m.ord()).document()));
    }
    return new AggregationResult.TopHitsResult(TotalHits.exact(docs.size()), hits);
  }
}
