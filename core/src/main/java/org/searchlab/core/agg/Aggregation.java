package org.searchlab.core.agg;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.SortKey;

/**
 * One aggregation of a search (Elasticsearch's {@code aggs}): a summary computed over every
 * document the search matches, not only the returned hits. Bucket aggregations ({@link Terms},
 * {@link Range}, {@link Histogram}, {@link DateHistogram}, {@link Filter}, {@link Filters}) split
 * the matches into buckets and may hold sub-aggregations computed per bucket; metric aggregations
 * ({@link Metric}, {@link Cardinality}, {@link TopHits}) compute values and hold none. Each record
 * is Elasticsearch's aggregation of the same name with its defaults; {@link
 * AggregationChecks#check} rejects bad input against a mapping. Immutable.
 *
 * <p>What a search aggregates: the query's matches; over a {@code knn} search its top {@code k}
 * hits; for a query with kNN searches the union of both, as Elasticsearch defines it.
 */
public sealed interface Aggregation {
  /** Elasticsearch's {@code search.max_buckets}: the most buckets one response may hold. */
  int MAX_BUCKETS = 65_536;

  /** Elasticsearch's {@code index.max_inner_result_window}: top_hits' {@code from + size} limit. */
  int MAX_TOP_HITS = 100;

  /** Elasticsearch's name for this aggregation's type, as a request and a response name it. */
  String type();

  /** The sub-aggregations computed per bucket; empty for a metric aggregation. */
  default Map<String, Aggregation> subAggregations() {
    return Map.of();
  }

  /** Copies a sub-aggregation map, keeping its order. */
  private static Map<String, Aggregation> copy(Map<String, Aggregation> subs) {
    return subs == null || subs.isEmpty()
        ? Map.of()
        : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(subs));
  }

  /**
   * How terms buckets are ordered: by document count, by key, or by a single-value metric
   * sub-aggregation ({@code "avg_price"}, or {@code "price_stats.avg"} for one value of a {@code
   * stats}). Ties are broken by key ascending, as Elasticsearch does.
   *
   * @param path {@code _count}, {@code _key}, or a sub-aggregation's name with an optional {@code
   *     .value} ({@code .count}, {@code .min}, ... for {@code stats})
   * @param ascending whether smaller comes first
   */
  record BucketOrder(String path, boolean ascending) {
    public static final String COUNT = "_count";
    public static final String KEY = "_key";

    /** Elasticsearch's default for terms: most documents first. */
    public static final BucketOrder COUNT_DESC = new BucketOrder(COUNT, false);

    public static final BucketOrder KEY_ASC = new BucketOrder(KEY, true);

    public BucketOrder {
      Objects.requireNonNull(path, "path");
    }
  }

  /**
   * The most frequent values of a keyword, numeric, date or boolean field ({@code terms}): one
   * bucket per value, its {@code doc_count} the matching documents that have it. A document with
   * several values counts once in each of their buckets.
   *
   * @param field the field
   * @param size how many buckets to return, 1 to {@value #MAX_BUCKETS}
   * @param shardSize accepted and ignored: counts are exact on one shard
   * @param order the order of buckets, then key ascending for ties
   * @param minDocCount buckets with fewer documents are left out; 0 also returns values no matching
   *     document has
   * @param missing the value a document without one counts as, or null to leave it out
   */
  record Terms(
      String field,
      int size,
      int shardSize,
      List<BucketOrder> order,
      long minDocCount,
      Object missing,
      Map<String, Aggregation> subAggregations)
      implements Aggregation {
    public static final int DEFAULT_SIZE = 10;

    public Terms {
      Objects.requireNonNull(field, "field");
      order =
          order == null || order.isEmpty() ? List.of(BucketOrder.COUNT_DESC) : List.copyOf(order);
      subAggregations = copy(subAggregations);
    }

    public static Terms of(String field) {
      return new Terms(field, DEFAULT_SIZE, 0, List.of(), 1, null, Map.of());
    }

    @Override
    public String type() {
      return "terms";
    }
  }

  /**
   * One range of {@link Range}: {@code from} inclusive, {@code to} exclusive, either open.
   *
   * @param key the bucket's key, or null for Elasticsearch's {@code "from-to"} ({@code "*-100.0"})
   * @param from the lower bound, or null for none
   * @param to the upper bound, or null for none
   */
  record RangeSpec(String key, Double from, Double to) {}

  /**
   * Documents by which of the given ranges a numeric or date field's value falls in ({@code
   * range}); a document may count in several overlapping ranges, once each.
   *
   * @param keyed whether the response is an object by key instead of a list
   */
  record Range(
      String field, List<RangeSpec> ranges, boolean keyed, Map<String, Aggregation> subAggregations)
      implements Aggregation {
    public Range {
      Objects.requireNonNull(field, "field");
      ranges = List.copyOf(ranges);
      subAggregations = copy(subAggregations);
    }

    @Override
    public String type() {
      return "range";
    }
  }

  /**
   * Documents by fixed-width buckets of a numeric field ({@code histogram}): a value {@code v}
   * falls in the bucket keyed {@code floor((v − offset) / interval) × interval + offset}.
   *
   * @param interval the width, &gt; 0
   * @param offset shifts the bucket boundaries, in {@code [0, interval)}
   * @param minDocCount buckets with fewer documents are left out; 0 (the default) fills the gaps
   *     between the first and last bucket, and to the extended bounds
   * @param extendedMin with {@code minDocCount} 0, buckets start no later than this, or null
   * @param extendedMax with {@code minDocCount} 0, buckets end no earlier than this, or null
   * @param keyed whether the response is an object by key instead of a list
   */
  record Histogram(
      String field,
      double interval,
      double offset,
      long minDocCount,
      Double extendedMin,
      Double extendedMax,
      boolean keyed,
      Map<String, Aggregation> subAggregations)
      implements Aggregation {
    public Histogram {
      Objects.requireNonNull(field, "field");
      subAggregations = copy(subAggregations);
    }

    @Override
    public String type() {
      return "histogram";
    }
  }

  /**
   * Documents by calendar or fixed intervals of a date field ({@code date_histogram}). A calendar
   * interval rounds down in the time zone (a month starts on its first day, a week on Monday); a
   * fixed one is a multiple of its length in milliseconds since the epoch, shifted by the zone's
   * offset.
   *
   * @param calendarInterval {@code minute}, {@code hour}, {@code day}, {@code week}, {@code month},
   *     {@code quarter}, {@code year} (or {@code 1m}, {@code 1h}, {@code 1d}, {@code 1w}, {@code
   *     1M}, {@code 1q}, {@code 1y}), or null when fixed
   * @param fixedIntervalMillis the fixed interval in milliseconds, or 0 when calendar
   * @param timeZone the zone buckets are rounded in ({@code UTC}, {@code +01:00}, {@code
   *     Europe/Berlin})
   * @param format how {@code key_as_string} is written, or null for the field's format
   * @param extendedMin with {@code minDocCount} 0, epoch milliseconds buckets start no later than,
   *     or null
   * @param extendedMax likewise for the end, or null
   */
  record DateHistogram(
      String field,
      String calendarInterval,
      long fixedIntervalMillis,
      String timeZone,
      String format,
      long minDocCount,
      Long extendedMin,
      Long extendedMax,
      boolean keyed,
      Map<String, Aggregation> subAggregations)
      implements Aggregation {
    public DateHistogram {
      Objects.requireNonNull(field, "field");
      timeZone = timeZone == null ? "UTC" : timeZone;
      subAggregations = copy(subAggregations);
    }

    /**
     * Reads Elasticsearch's {@code fixed_interval} ({@code 90m}, {@code 12h}, {@code 30d}: a
     * positive integer and one of {@code ms}, {@code s}, {@code m}, {@code h}, {@code d}) as
     * milliseconds.
     */
    public static long parseFixedInterval(String s) {
      return DateRounding.parseFixed(s);
    }

    /**
     * Epoch milliseconds as a date format expression's first alternative writes them in a zone
     * ({@code strict_date_optional_time}: {@code 2024-01-31T00:00:00.000Z}).
     */
    public static String formatDate(long millis, String zone, String format) {
      return DateRounding.format(millis, zone, format);
    }

    @Override
    public String type() {
      return "date_histogram";
    }
  }

  /** The matching documents that also match a query, as one bucket ({@code filter}). */
  record Filter(Query filter, Map<String, Aggregation> subAggregations) implements Aggregation {
    public Filter {
      Objects.requireNonNull(filter, "filter");
      subAggregations = copy(subAggregations);
    }

    @Override
    public String type() {
      return "filter";
    }
  }

  /**
   * One bucket per query ({@code filters}): named (a response object by name, names in ascending
   * order as Elasticsearch sorts them) or anonymous (a list in request order).
   *
   * @param filters the queries by name; for anonymous filters the names are {@code "0"}, {@code
   *     "1"}, ...
   * @param keyed whether the filters were named
   * @param otherBucketKey the key of the bucket of documents matching none, or null for no such
   *     bucket ({@code other_bucket})
   */
  record Filters(
      Map<String, Query> filters,
      boolean keyed,
      String otherBucketKey,
      Map<String, Aggregation> subAggregations)
      implements Aggregation {
    public Filters {
      LinkedHashMap<String, Query> ordered = new LinkedHashMap<>();
      if (keyed) {
        List<String> names = new ArrayList<>(filters.keySet());
        names.sort(null);
        for (String n : names) {
          ordered.put(n, filters.get(n));
        }
      } else {
        ordered.putAll(filters);
      }
      filters = java.util.Collections.unmodifiableMap(ordered);
      subAggregations = copy(subAggregations);
    }

    @Override
    public String type() {
      return "filters";
    }
  }

  /** The single-field metrics of {@link Metric}. */
  enum MetricKind {
    MIN("min"),
    MAX("max"),
    AVG("avg"),
    SUM("sum"),
    VALUE_COUNT("value_count"),
    STATS("stats");

    private final String esName;

    MetricKind(String esName) {
      this.esName = esName;
    }

    public String esName() {
      return esName;
    }

    /** The kind named {@code name} by Elasticsearch, or null. */
    public static MetricKind of(String name) {
      for (MetricKind k : values()) {
        if (k.esName.equals(name)) {
          return k;
        }
      }
      return null;
    }
  }

  /**
   * A metric over every value of a field in the matching documents: {@code min}, {@code max},
   * {@code avg}, {@code sum} (compensated, as Elasticsearch sums), {@code value_count} (values, not
   * documents) or {@code stats} (all five). Numeric, date and boolean fields; {@code value_count}
   * also keywords.
   *
   * @param missing the value a document without one counts as, or null
   */
  record Metric(MetricKind kind, String field, Object missing) implements Aggregation {
    public Metric {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(field, "field");
    }

    @Override
    public String type() {
      return kind.esName();
    }
  }

  /**
   * How many distinct values a field has in the matching documents ({@code cardinality}): exact
   * while the distinct values seen are at most {@code precisionThreshold}, then a HyperLogLog++
   * estimate (see {@link Cardinalities}).
   *
   * @param precisionThreshold 0 to {@value Cardinalities#MAX_PRECISION_THRESHOLD}; Elasticsearch's
   *     default is {@value Cardinalities#DEFAULT_PRECISION_THRESHOLD}
   */
  record Cardinality(String field, int precisionThreshold, Object missing) implements Aggregation {
    public Cardinality {
      Objects.requireNonNull(field, "field");
    }

    @Override
    public String type() {
      return "cardinality";
    }
  }

  /**
   * The best matching documents of a bucket ({@code top_hits}), with their sources; only under a
   * bucket aggregation.
   *
   * @param from how many top hits to skip
   * @param size how many to return; {@code from + size} at most {@value #MAX_TOP_HITS}
   * @param sort the order, by score when empty
   * @param source whether hits carry their {@code _source}
   */
  record TopHits(int from, int size, List<SortKey> sort, boolean source) implements Aggregation {
    public static final int DEFAULT_SIZE = 3;

    public TopHits {
      sort = sort == null ? List.of() : List.copyOf(sort);
    }

    @Override
    public String type() {
      return "top_hits";
    }
  }
}
