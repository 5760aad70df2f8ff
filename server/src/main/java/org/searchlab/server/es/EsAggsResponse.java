package org.searchlab.server.es;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import org.searchlab.core.Hit;
import org.searchlab.core.agg.Aggregation;
import org.searchlab.core.agg.AggregationResult;
import org.searchlab.core.agg.AggregationResult.Bucket;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.server.Json;

/**
 * Writes aggregation results in Elasticsearch's response shape: {@code buckets} as a list (or an
 * object by key when {@code keyed}), {@code key_as_string} for dates and booleans, {@code
 * doc_count_error_upper_bound} 0 and {@code sum_other_doc_count} for {@code terms}, {@code value}
 * (null for an empty {@code min}, {@code max} or {@code avg}) for metrics. With {@code typed_keys}
 * each name carries its type as Elasticsearch writes it ({@code sterms#}, {@code lterms#}, {@code
 * dterms#}, {@code umterms#}, {@code date_range#}, ...), which the official clients read to know
 * each aggregation's shape. Stateless and thread-safe.
 */
final class EsAggsResponse {
  private EsAggsResponse() {}

  static ObjectNode render(
      Map<String, AggregationResult> results,
      Map<String, Aggregation> request,
      Mapping mapping,
      String index,
      Map<String, EsSourceFilter> sources,
      boolean typedKeys) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    put(out, results, request, mapping, index, sources, typedKeys, "");
    return out;
  }

  private static void put(
      ObjectNode out,
      Map<String, AggregationResult> results,
      Map<String, Aggregation> request,
      Mapping mapping,
      String index,
      Map<String, EsSourceFilter> sources,
      boolean typedKeys,
      String path) {
    for (Map.Entry<String, AggregationResult> e : results.entrySet()) {
      String name = e.getKey();
      Aggregation a = request.get(name);
      String at = path.isEmpty() ? name : path + ">" + name;
      String key = typedKeys ? typedName(a, mapping) + "#" + name : name;
      out.set(key, one(e.getValue(), a, mapping, index, sources, typedKeys, at));
    }
  }

  /** Elasticsearch's type name of an aggregation's result, as {@code typed_keys} writes it. */
  static String typedName(Aggregation a, Mapping mapping) {
    return switch (a) {
      case Aggregation.Terms t -> {
        FieldType f = mapping.leaf(t.field());
        yield f == null
            ? "umterms"
            : f instanceof FieldType.Keyword
                ? "sterms"
                : f instanceof FieldType.Numeric n && !n.type().integral() ? "dterms" : "lterms";
      }
      case Aggregation.Range r ->
          mapping.leaf(r.field()) instanceof FieldType.Date ? "date_range" : "range";
      default -> a.type();
    };
  }

  private static ObjectNode one(
      AggregationResult r,
      Aggregation a,
      Mapping mapping,
      String index,
      Map<String, EsSourceFilter> sources,
      boolean typedKeys,
      String path) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    switch (r) {
      case AggregationResult.Buckets b -> {
        if (a instanceof Aggregation.Terms) {
          o.put("doc_count_error_upper_bound", 0);
          o.put("sum_other_doc_count", b.sumOtherDocCount());
        }
        if (b.keyed()) {
          ObjectNode byKey = o.putObject("buckets");
          for (Bucket k : b.buckets()) {
            String name = k.keyAsString() != null ? k.keyAsString() : String.valueOf(k.key());
            byKey.set(name, bucket(k, a, mapping, index, sources, typedKeys, path, false));
          }
        } else {
          ArrayNode list = o.putArray("buckets");
          boolean anonymous = a instanceof Aggregation.Filters;
          for (Bucket k : b.buckets()) {
            list.add(bucket(k, a, mapping, index, sources, typedKeys, path, !anonymous));
          }
        }
      }
      case AggregationResult.SingleBucket s -> {
        o.put("doc_count", s.docCount());
        put(o, s.subAggregations(), a.subAggregations(), mapping, index, sources, typedKeys, path);
      }
      case AggregationResult.Value v -> {
        if (v.value() == null) {
          o.putNull("value");
        } else {
          o.put("value", v.value());
          if (v.valueAsString() != null) {
            o.put("value_as_string", v.valueAsString());
          }
        }
      }
      case AggregationResult.Count c -> o.put("value", c.value());
      case AggregationResult.Stats s -> {
        o.put("count", s.count());
        if (s.count() == 0) {
          o.putNull("min");
          o.putNull("max");
          o.putNull("avg");
        } else {
          o.put("min", s.min());
          o.put("max", s.max());
          o.put("avg", s.avg());
        }
        o.put("sum", s.sum());
        if (s.dates() && s.count() > 0) {
          String format =
              ((FieldType.Date) mapping.leaf(((Aggregation.Metric) a).field())).format();
          o.put("min_as_string", dateString(s.min(), format));
          o.put("max_as_string", dateString(s.max(), format));
          o.put("avg_as_string", dateString(s.avg(), format));
          o.put("sum_as_string", dateString(s.sum(), format));
        }
      }
      case AggregationResult.TopHitsResult t -> {
        ObjectNode hits = o.putObject("hits");
        hits.putObject("total")
            .put("value", t.total().value())
            .put("relation", t.total().relation());
        if (t.hits().isEmpty()) {
          hits.putNull("max_score");
        } else {
          float max = Float.NEGATIVE_INFINITY;
          for (Hit h : t.hits()) {
            max = Math.max(max, h.score());
          }
          hits.put("max_score", max);
        }
        ArrayNode arr = hits.putArray("hits");
        EsSourceFilter filter = sources.getOrDefault(path, EsSourceFilter.ALL);
        for (Hit h : t.hits()) {
          ObjectNode hit = arr.addObject();
          hit.put("_index", index);
          hit.put("_id", h.id());
          hit.put("_score", h.score());
          if (filter.enabled() && h.document() != null) {
            hit.set("_source", filter.apply(EsDocuments.source(h.document())));
          }
        }
      }
    }
    return o;
  }

  private static String dateString(double millis, String format) {
    return org.searchlab.core.agg.Aggregation.DateHistogram.formatDate(
        (long) millis, "UTC", format);
  }

  private static ObjectNode bucket(
      Bucket k,
      Aggregation a,
      Mapping mapping,
      String index,
      Map<String, EsSourceFilter> sources,
      boolean typedKeys,
      String path,
      boolean withKey) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    if (withKey) {
      if (a instanceof Aggregation.DateHistogram) {
        o.put("key_as_string", k.keyAsString());
      }
      putValue(o, "key", k.key());
      if (k.keyAsString() != null && !(a instanceof Aggregation.DateHistogram)) {
        o.put("key_as_string", k.keyAsString());
      }
    }
    if (k.from() != null) {
      o.put("from", k.from());
    }
    if (k.to() != null) {
      o.put("to", k.to());
    }
    o.put("doc_count", k.docCount());
    put(o, k.subAggregations(), a.subAggregations(), mapping, index, sources, typedKeys, path);
    return o;
  }

  private static void putValue(ObjectNode o, String name, Object v) {
    switch (v) {
      case Long l -> o.put(name, l);
      case Double d -> o.put(name, d);
      case Float f -> o.put(name, f);
      case String s -> o.put(name, s);
      default -> o.put(name, String.valueOf(v));
    }
  }

  /** A sort value as Elasticsearch writes it in a hit's {@code sort}. */
  static void putValue(ArrayNode a, Object v) {
    switch (v) {
      case null -> a.addNull();
      case Long l -> a.add(l);
      case Double d -> {
        if (d.isInfinite()) {
          a.add(d > 0 ? "Infinity" : "-Infinity");
        } else {
          a.add(d);
        }
      }
      case Float f -> a.add(f);
      case String s -> a.add(s);
      default -> a.add(String.valueOf(v));
    }
  }
}
