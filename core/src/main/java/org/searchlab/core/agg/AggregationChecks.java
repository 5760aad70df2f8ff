package org.searchlab.core.agg;

import java.util.Map;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.agg.Aggregation.BucketOrder;
import org.searchlab.core.mapping.Dates;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.FieldValues;
import org.searchlab.core.query.QueryChecks;
import org.searchlab.core.query.SortKey;

/**
 * Rejects a request's aggregations that cannot run, before any store work, with Elasticsearch's
 * messages where it has one: a field whose type the aggregation does not read (a {@code text} field
 * has no doc values; a vector none that aggregate), sizes and intervals out of range,
 * sub-aggregations under a metric, an order naming no single-value sub-aggregation, and more than
 * {@value #MAX_AGGREGATIONS} aggregations or {@value #MAX_DEPTH} levels. A field the mapping does
 * not have is not an error: it aggregates nothing, as in Elasticsearch. Stateless.
 */
public final class AggregationChecks {
  /** The most aggregations one request may hold, sub-aggregations included. */
  public static final int MAX_AGGREGATIONS = 256;

  /** The deepest nesting of sub-aggregations. */
  public static final int MAX_DEPTH = 8;

  private AggregationChecks() {}

  /**
   * Checks every aggregation of the tree against the mapping and the limits.
   *
   * @param clauses the running count of query clauses (filters count against the clause limit)
   * @param maxClauses the clause limit
   */
  public static void check(
      Map<String, Aggregation> aggs, Mapping mapping, int[] clauses, int maxClauses) {
    check(aggs, mapping, clauses, maxClauses, 1, new int[] {0});
  }

  private static void check(
      Map<String, Aggregation> aggs,
      Mapping mapping,
      int[] clauses,
      int maxClauses,
      int depth,
      int[] count) {
    if (aggs.isEmpty()) {
      return;
    }
    if (depth > MAX_DEPTH) {
      throw new InvalidRequestException(
          "aggregations are nested " + depth + " deep; the limit is " + MAX_DEPTH);
    }
    for (Map.Entry<String, Aggregation> e : aggs.entrySet()) {
      String name = e.getKey();
      Aggregation a = e.getValue();
      checkName(name);
      if (++count[0] > MAX_AGGREGATIONS) {
        throw new InvalidRequestException(
            "the request has more than " + MAX_AGGREGATIONS + " aggregations");
      }
      checkOne(name, a, mapping, clauses, maxClauses);
      check(a.subAggregations(), mapping, clauses, maxClauses, depth + 1, count);
    }
  }

  /** Elasticsearch's rule for aggregation names. */
  static void checkName(String name) {
    if (name.isEmpty() || name.length() > 256 || name.matches(".*[\\[\\]>].*")) {
      throw new InvalidRequestException(
          "Invalid aggregation name ["
              + DateRounding.InvalidName.prefix(name)
              + "]. Aggregation names can contain any character except '[', ']', and '>', and"
              + " must be 1 to 256 characters");
    }
  }

  private static void checkOne(
      String name, Aggregation a, Mapping mapping, int[] clauses, int maxClauses) {
    boolean bucket =
        !(a instanceof Aggregation.Metric
            || a instanceof Aggregation.Cardinality
            || a instanceof Aggregation.TopHits);
    if (!bucket && !a.subAggregations().isEmpty()) {
      throw new InvalidRequestException(
          "Aggregator [" + name + "] of type [" + a.type() + "] cannot accept sub-aggregations");
    }
    switch (a) {
      case Aggregation.Terms t -> {
        FieldType f = field(name, a, t.field(), mapping, true, true);
        if (t.size() <= 0) {
          throw new InvalidRequestException(
              "[size] must be greater than 0. Found [" + t.size() + "] in [" + name + "]");
        }
        if (t.size() > Aggregation.MAX_BUCKETS) {
          throw Aggregations.tooManyBuckets(t.size());
        }
        if (t.minDocCount() < 0) {
          throw new InvalidRequestException(
              "[min_doc_count] must be greater than or equal to 0. Found ["
                  + t.minDocCount()
                  + "] in ["
                  + name
                  + "]");
        }
        if (t.missing() != null && f != null && !(f instanceof FieldType.Keyword)) {
          FieldValues.termValue(f, t.field(), t.missing());
        }
        for (BucketOrder o : t.order()) {
          checkOrder(name, o, t.subAggregations());
        }
      }
      case Aggregation.Range r -> {
        numeric(name, a, r.field(), mapping, true);
        if (r.ranges().isEmpty()) {
          throw new InvalidRequestException(
              "No [ranges] specified for the [" + name + "] aggregation");
        }
        if (r.ranges().size() > Aggregation.MAX_BUCKETS) {
          throw Aggregations.tooManyBuckets(r.ranges().size());
        }
        for (Aggregation.RangeSpec s : r.ranges()) {
          if ((s.from() != null && Double.isNaN(s.from()))
              || (s.to() != null && Double.isNaN(s.to()))) {
            throw new InvalidRequestException("a range of [" + name + "] has a bound that is NaN");
          }
        }
      }
      case Aggregation.Histogram h -> {
        numeric(name, a, h.field(), mapping, false);
        if (!(h.interval() > 0) || !Double.isFinite(h.interval())) {
          throw new InvalidRequestException(
              "[interval] must be >0 for histogram aggregation [" + name + "]");
        }
        if (!Double.isFinite(h.offset())) {
          throw new InvalidRequestException("[offset] of [" + name + "] must be finite");
        }
        minDocCount(name, h.minDocCount());
        if (h.extendedMin() != null
            && h.extendedMax() != null
            && h.extendedMin() > h.extendedMax()) {
          throw new InvalidRequestException(
              "[extended_bounds.min]["
                  + h.extendedMin()
                  + "] cannot be greater than [extended_bounds.max]["
                  + h.extendedMax()
                  + "] for histogram aggregation ["
                  + name
                  + "]");
        }
      }
      case Aggregation.DateHistogram d -> {
        FieldType f = mapping.leaf(d.field());
        if (f != null && !(f instanceof FieldType.Date)) {
          throw unsupported(name, a, d.field(), f);
        }
        docValues(d.field(), f);
        if ((d.calendarInterval() == null) == (d.fixedIntervalMillis() <= 0)) {
          throw new InvalidRequestException(
              "[date_histogram] ["
                  + name
                  + "] needs one of [calendar_interval] or"
                  + " [fixed_interval]");
        }
        DateRounding.of(d);
        if (d.format() != null) {
          Dates.checkFormat(d.format());
        }
        minDocCount(name, d.minDocCount());
        if (d.extendedMin() != null
            && d.extendedMax() != null
            && d.extendedMin() > d.extendedMax()) {
          throw new InvalidRequestException(
              "[extended_bounds.min] cannot be greater than [extended_bounds.max] for"
                  + " date_histogram aggregation ["
                  + name
                  + "]");
        }
      }
      case Aggregation.Filter f -> QueryChecks.check(f.filter(), mapping, clauses, maxClauses);
      case Aggregation.Filters f -> {
        if (f.filters().isEmpty()) {
          throw new InvalidRequestException("[filters] cannot be empty in [" + name + "]");
        }
        if (f.filters().size() >= Aggregation.MAX_BUCKETS) {
          throw Aggregations.tooManyBuckets(f.filters().size() + 1);
        }
        for (var q : f.filters().values()) {
          QueryChecks.check(q, mapping, clauses, maxClauses);
        }
      }
      case Aggregation.Metric m -> {
        if (m.kind() == Aggregation.MetricKind.VALUE_COUNT) {
          field(name, a, m.field(), mapping, true, true);
        } else {
          FieldType f = numeric(name, a, m.field(), mapping, true);
          if (m.missing() != null && f != null) {
            FieldValues.termValue(f, m.field(), m.missing());
          }
        }
      }
      case Aggregation.Cardinality c -> {
        field(name, a, c.field(), mapping, true, true);
        if (c.precisionThreshold() < 0) {
          throw new InvalidRequestException(
              "[precisionThreshold] must be greater than or equal to 0. Found ["
                  + c.precisionThreshold()
                  + "] in ["
                  + name
                  + "]");
        }
      }
      case Aggregation.TopHits t -> {
        if (t.from() < 0 || t.size() < 0) {
          throw new InvalidRequestException(
              "[from] and [size] of top_hits [" + name + "] must be ≥ 0");
        }
        if ((long) t.from() + t.size() > Aggregation.MAX_TOP_HITS) {
          throw new InvalidRequestException(
              "Top hits result window is too large, the top hits aggregator ["
                  + name
                  + "]'s from + size must be less than or equal to: ["
                  + Aggregation.MAX_TOP_HITS
                  + "] but was ["
                  + ((long) t.from() + t.size())
                  + "]. This limit can be set by changing the [index.max_inner_result_window]"
                  + " index level setting.");
        }
        for (SortKey k : t.sort()) {
          checkSort(k, mapping);
        }
      }
    }
  }

  private static void minDocCount(String name, long v) {
    if (v < 0) {
      throw new InvalidRequestException(
          "[min_doc_count] must be greater than or equal to 0. Found ["
              + v
              + "] in ["
              + name
              + "]");
    }
  }

  private static void checkOrder(String name, BucketOrder o, Map<String, Aggregation> subs) {
    if (o.path().equals(BucketOrder.COUNT) || o.path().equals(BucketOrder.KEY)) {
      return;
    }
    Aggregation sub = subs.get(SubOrder.name(o.path()));
    String metric = SubOrder.metric(o.path());
    boolean ok =
        switch (sub) {
          case null -> false;
          case Aggregation.Metric m ->
              m.kind() == Aggregation.MetricKind.STATS
                  ? metric != null
                      && java.util.Set.of("count", "min", "max", "avg", "sum").contains(metric)
                  : metric == null || metric.equals("value");
          case Aggregation.Cardinality c -> metric == null || metric.equals("value");
          case Aggregation.Filter f -> metric == null || metric.equals("doc_count");
          default -> false;
        };
    if (!ok) {
      throw new InvalidRequestException(
          "Invalid aggregation order path ["
              + DateRounding.InvalidName.prefix(o.path())
              + "] of ["
              + name
              + "]: it must name a single-value metric sub-aggregation (or one value of a"
              + " stats), a filter sub-aggregation, _count or _key");
    }
  }

  /** Checks a sort key (of a search or of top_hits): a field with doc values, or _score/_doc. */
  public static void checkSort(SortKey k, Mapping mapping) {
    if (k.field().equals(SortKey.SCORE) || k.field().equals(SortKey.DOC)) {
      return;
    }
    if (k.mode() != null && !k.mode().equals("min") && !k.mode().equals("max")) {
      throw new InvalidRequestException(
          "[sort] mode [" + DateRounding.InvalidName.prefix(k.mode()) + "] is not min or max");
    }
    FieldType f = mapping.leaf(k.field());
    if (f == null) {
      throw new InvalidRequestException(
          "No mapping found for ["
              + DateRounding.InvalidName.prefix(k.field())
              + "] in order to sort on");
    }
    if (f instanceof FieldType.Text) {
      throw fielddata(k.field());
    }
    if (!(f instanceof FieldType.Keyword
        || f instanceof FieldType.Numeric
        || f instanceof FieldType.Date
        || f instanceof FieldType.Bool)) {
      throw new InvalidRequestException(
          "Field [" + k.field() + "] of type [" + f.esName() + "] does not support sorting");
    }
    docValues(k.field(), f);
  }

  /** A field the aggregation reads: keywords and numbers; null when unmapped. */
  private static FieldType field(
      String name, Aggregation a, String field, Mapping mapping, boolean keyword, boolean dates) {
    FieldType f = mapping.leaf(field);
    if (f == null) {
      return null;
    }
    if (f instanceof FieldType.Text) {
      throw fielddata(field);
    }
    boolean ok =
        (keyword && f instanceof FieldType.Keyword)
            || f instanceof FieldType.Numeric
            || f instanceof FieldType.Bool
            || (dates && f instanceof FieldType.Date);
    if (!ok) {
      throw unsupported(name, a, field, f);
    }
    docValues(field, f);
    return f;
  }

  private static FieldType numeric(
      String name, Aggregation a, String field, Mapping mapping, boolean dates) {
    return field(name, a, field, mapping, false, dates);
  }

  private static void docValues(String field, FieldType f) {
    boolean dv =
        switch (f) {
          case FieldType.Keyword k -> k.docValues();
          case FieldType.Numeric n -> n.docValues();
          case FieldType.Bool b -> b.docValues();
          case FieldType.Date d -> d.docValues();
          case null -> true;
          default -> true;
        };
    if (!dv) {
      throw new InvalidRequestException(
          "Can't load fielddata on ["
              + field
              + "] because fielddata is unsupported on fields of type ["
              + f.esName()
              + "]. Use doc values instead.");
    }
  }

  private static InvalidRequestException fielddata(String field) {
    return new InvalidRequestException(
        "Fielddata is disabled on ["
            + field
            + "]. Text fields are not optimised for operations that require per-document field"
            + " data like aggregations and sorting, so these operations are disabled by default."
            + " Please use a keyword field instead.");
  }

  private static InvalidRequestException unsupported(
      String name, Aggregation a, String field, FieldType f) {
    return new InvalidRequestException(
        "Field ["
            + field
            + "] of type ["
            + f.esName()
            + "] is not supported for aggregation ["
            + a.type()
            + "]");
  }
}
