package org.searchlab.core.agg;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.searchlab.core.Hit;
import org.searchlab.core.TotalHits;

/**
 * The answer to one {@link Aggregation}, in the terms of Elasticsearch's response: what each
 * dialect renders in its own shape. Immutable.
 */
public sealed interface AggregationResult {
  /** The type of the aggregation this answers ({@code terms}, {@code min}, ...). */
  String type();

  /**
   * One bucket of a multi-bucket aggregation.
   *
   * @param key the value it stands for: a {@code String} (keywords, range and filter names), a
   *     {@code Long} (integer, date and boolean terms, date histograms) or a {@code Double}
   *     (floating-point terms, histograms)
   * @param keyAsString the key as the field's format writes it (dates: ISO-8601; booleans: {@code
   *     true}/{@code false}), or null when the key is written as it is
   * @param docCount how many matching documents fall in it
   * @param from a range bucket's lower bound, or null
   * @param to a range bucket's upper bound, or null
   * @param subAggregations the sub-aggregations over the bucket's documents, by name, in request
   *     order
   */
  record Bucket(
      Object key,
      String keyAsString,
      long docCount,
      Double from,
      Double to,
      Map<String, AggregationResult> subAggregations) {
    public Bucket {
      Objects.requireNonNull(key, "key");
      subAggregations = subAggregations == null ? Map.of() : subAggregations;
    }
  }

  /**
   * The buckets of {@code terms}, {@code range}, {@code histogram}, {@code date_histogram} or
   * {@code filters}, in their order.
   *
   * @param keyed whether the response is an object by key ({@code keyed}, named filters)
   * @param sumOtherDocCount for {@code terms}: the documents in buckets left out by {@code size}
   */
  record Buckets(String type, List<Bucket> buckets, boolean keyed, long sumOtherDocCount)
      implements AggregationResult {
    public Buckets {
      buckets = List.copyOf(buckets);
    }
  }

  /** The one bucket of {@code filter}. */
  record SingleBucket(String type, long docCount, Map<String, AggregationResult> subAggregations)
      implements AggregationResult {}

  /**
   * One value: {@code min}, {@code max}, {@code avg}, {@code sum}; null when no document had a
   * value (except {@code sum}, which is 0).
   *
   * @param valueAsString the value as a date field's format writes it, or null
   */
  record Value(String type, Double value, String valueAsString) implements AggregationResult {}

  /** A count: {@code value_count}, {@code cardinality}. */
  record Count(String type, long value) implements AggregationResult {}

  /**
   * {@code stats}: how many values, and their min, max, average and sum (min, max and avg NaN when
   * count is 0, rendered as null).
   *
   * @param dates whether the field is a date (each value also rendered as a date)
   */
  record Stats(long count, double min, double max, double sum, boolean dates)
      implements AggregationResult {
    @Override
    public String type() {
      return "stats";
    }

    public double avg() {
      return count == 0 ? Double.NaN : sum / count;
    }
  }

  /** {@code top_hits}: the best hits of a bucket, with their documents. */
  record TopHitsResult(TotalHits total, List<Hit> hits) implements AggregationResult {
    public TopHitsResult {
      hits = List.copyOf(hits);
    }

    @Override
    public String type() {
      return "top_hits";
    }
  }
}
