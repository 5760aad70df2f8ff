package org.searchlab.core.agg;

import java.io.IOException;
import org.searchlab.core.agg.AggregationSource.NumericValues;
import org.searchlab.core.agg.AggregationSource.OrdinalValues;
import org.searchlab.core.agg.MatchSet.LeafMatches;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.query.FieldValues;

/**
 * The single-field metrics ({@code min}, {@code max}, {@code avg}, {@code sum}, {@code
 * value_count}, {@code stats}) over every value of the matching documents, repeats included, as
 * Elasticsearch computes them: values as doubles, sums compensated (Kahan, as its {@code
 * CompensatedSum}), a document without a value counted as {@code missing} when it is given.
 * Stateless.
 */
final class Metrics {
  private Metrics() {}

  static AggregationResult metric(
      Aggregation.Metric m, FieldType f, AggregationSource source, MatchSet docs)
      throws IOException {
    long count = 0;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    double sum = 0;
    double compensation = 0;
    if (f instanceof FieldType.Keyword) {
      // Only value_count reads a keyword: distinct values per document, as doc values hold them.
      for (LeafMatches l : docs.leaves()) {
        OrdinalValues ov = source.leaves().get(l.leaf()).ordinals(m.field());
        for (int i = 0; i < l.count(); i++) {
          if (ov != null && ov.advanceExact(l.docs()[i])) {
            count += ov.count();
          } else if (m.missing() != null) {
            count++;
          }
        }
      }
      return new AggregationResult.Count(m.kind().esName(), count);
    }
    Double missing = missing(m, f);
    for (LeafMatches l : f == null ? java.util.List.<LeafMatches>of() : docs.leaves()) {
      NumericValues nv = source.leaves().get(l.leaf()).numbers(m.field());
      for (int i = 0; i < l.count(); i++) {
        int c;
        boolean has = nv != null && nv.advanceExact(l.docs()[i]);
        if (has) {
          c = nv.count();
        } else if (missing != null) {
          c = 1;
        } else {
          continue;
        }
        for (int j = 0; j < c; j++) {
          double v = has ? nv.doubleValue(j) : missing;
          count++;
          min = Math.min(min, v);
          max = Math.max(max, v);
          // Kahan summation, skipped once the sum is not finite (as CompensatedSum does).
          if (Double.isFinite(v) && Double.isFinite(sum)) {
            double y = v - compensation;
            double t = sum + y;
            compensation = (t - sum) - y;
            sum = t;
          } else {
            sum += v;
          }
        }
      }
    }
    boolean dates = f instanceof FieldType.Date;
    String format = dates ? ((FieldType.Date) f).format() : null;
    return switch (m.kind()) {
      case MIN -> value("min", count == 0 ? null : min, format);
      case MAX -> value("max", count == 0 ? null : max, format);
      case AVG -> value("avg", count == 0 ? null : sum / count, format);
      case SUM -> value("sum", sum, format);
      case VALUE_COUNT -> new AggregationResult.Count("value_count", count);
      case STATS -> new AggregationResult.Stats(count, min, max, sum, dates);
    };
  }

  private static AggregationResult value(String type, Double v, String dateFormat) {
    String s =
        v == null || dateFormat == null || !Double.isFinite(v)
            ? null
            : DateRounding.format(v.longValue(), "UTC", dateFormat);
    return new AggregationResult.Value(type, v, s);
  }

  /** The {@code missing} value as the field's type reads it, or null. */
  static Double missing(Aggregation.Metric m, FieldType f) {
    if (m.missing() == null || f == null) {
      return null;
    }
    Object v = FieldValues.termValue(f, m.field(), m.missing());
    return v instanceof Number n ? n.doubleValue() : null;
  }
}
