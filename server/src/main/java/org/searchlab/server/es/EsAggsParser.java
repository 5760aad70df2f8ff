// Over 500 lines: each aggregation type's options and refusals, plus sort and search_after,
// which share the option checks.
package org.searchlab.server.es;

import static org.searchlab.server.es.EsParsing.illegal;
import static org.searchlab.server.es.EsParsing.object;
import static org.searchlab.server.es.EsParsing.parsing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.searchlab.core.agg.Aggregation;
import org.searchlab.core.agg.Aggregation.BucketOrder;
import org.searchlab.core.mapping.Dates;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.SortKey;
import org.searchlab.server.Json;
import org.searchlab.server.Text;

/**
 * Translates Elasticsearch's {@code aggs} (or {@code aggregations}) into core {@link Aggregation}s:
 * {@code terms}, {@code range}, {@code histogram}, {@code date_histogram}, {@code filter}, {@code
 * filters}, {@code min}, {@code max}, {@code avg}, {@code sum}, {@code value_count}, {@code stats},
 * {@code cardinality} and {@code top_hits}, each with the options Elasticsearch documents for it
 * that change an answer here; options that only tune its execution ({@code shard_size}, {@code
 * execution_hint}, {@code collect_mode}) are accepted and change nothing; the others, and every
 * other aggregation type, are refused by name. Range and histogram bounds are numbers (a date
 * field's in epoch milliseconds); {@code date_histogram}'s extended bounds may also be dates. Also
 * parses {@code sort} and {@code search_after}. Stateless and thread-safe.
 */
final class EsAggsParser {
  /** The aggregations and, per {@code top_hits} by path ({@code a>b}), its {@code _source}. */
  record Parsed(Map<String, Aggregation> aggs, Map<String, EsSourceFilter> topHitsSources) {}

  private static final Set<String> REFUSED_TYPES =
      Set.of(
          "composite",
          "significant_terms",
          "rare_terms",
          "multi_terms",
          "date_range",
          "ip_range",
          "nested",
          "reverse_nested",
          "global",
          "missing",
          "sampler",
          "percentiles",
          "percentile_ranks",
          "extended_stats",
          "weighted_avg",
          "scripted_metric",
          "geo_bounds",
          "bucket_sort",
          "bucket_selector",
          "avg_bucket",
          "max_bucket",
          "sum_bucket",
          "cumulative_sum",
          "derivative",
          "auto_date_histogram",
          "variable_width_histogram");

  private final EsQueryParser queries;
  private final Map<String, EsSourceFilter> sources = new HashMap<>();

  private EsAggsParser(EsQueryParser queries) {
    this.queries = queries;
  }

  static Parsed parse(JsonNode node, EsQueryParser queries) {
    EsAggsParser p = new EsAggsParser(queries);
    Map<String, Aggregation> aggs = p.aggs(node, "aggs", "");
    return new Parsed(aggs, Map.copyOf(p.sources));
  }

  private Map<String, Aggregation> aggs(JsonNode node, String where, String path) {
    object(node, where);
    Map<String, Aggregation> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String name = e.getKey();
      String at = where + "." + Text.quote(name);
      out.put(name, one(e.getValue(), at, path.isEmpty() ? name : path + ">" + name));
    }
    return out;
  }

  private Aggregation one(JsonNode node, String where, String path) {
    object(node, where);
    String type = null;
    JsonNode body = null;
    Map<String, Aggregation> subs = Map.of();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      switch (e.getKey()) {
        case "aggs", "aggregations" -> {
          if (!subs.isEmpty()) {
            throw parsing("Found two sub aggregation definitions under [" + where + "]");
          }
          subs = aggs(e.getValue(), where + "." + e.getKey(), path);
        }
        case "meta" -> object(e.getValue(), where + ".meta");
        default -> {
          if (type != null) {
            throw parsing(
                "Found two aggregation type definitions in ["
                    + where
                    + "]: ["
                    + type
                    + "] and ["
                    + Text.quote(e.getKey())
                    + "]");
          }
          type = e.getKey();
          body = e.getValue();
        }
      }
    }
    if (type == null) {
      throw parsing("Missing definition for aggregation [" + where + "]");
    }
    String at = where + "." + Text.quote(type);
    return switch (type) {
      case "terms" -> terms(body, at, subs);
      case "range" -> range(body, at, subs);
      case "histogram" -> histogram(body, at, subs);
      case "date_histogram" -> dateHistogram(body, at, subs);
      case "filter" -> new Aggregation.Filter(queries.parse(body, at), subs);
      case "filters" -> filters(body, at, subs);
      case "min", "max", "avg", "sum", "value_count", "stats" -> {
        options(body, at, Set.of("field", "missing"), Set.of("script", "format"));
        yield new Aggregation.Metric(
            Aggregation.MetricKind.of(type), field(body, at), missing(body, at));
      }
      case "cardinality" -> {
        options(
            body,
            at,
            Set.of("field", "missing", "precision_threshold", "execution_hint"),
            Set.of("script"));
        int threshold =
            body.has("precision_threshold")
                ? Json.integer(
                    body.get("precision_threshold"),
                    "[" + at + ".precision_threshold]",
                    Integer.MIN_VALUE,
                    Integer.MAX_VALUE)
                : 3000;
        yield new Aggregation.Cardinality(field(body, at), threshold, missing(body, at));
      }
      case "top_hits" -> topHits(body, at, path);
      default -> {
        if (REFUSED_TYPES.contains(type)) {
          throw illegal("aggregation [" + type + "] is not supported by this server");
        }
        throw parsing("Unknown aggregation type [" + Text.quote(type) + "] in [" + where + "]");
      }
    };
  }

  private static void options(JsonNode body, String where, Set<String> ok, Set<String> refused) {
    object(body, where);
    EsParsing.keys(body, where, ok, refused);
  }

  private static String field(JsonNode body, String where) {
    JsonNode f = body.get("field");
    if (f == null || !f.isTextual() || f.textValue().isEmpty()) {
      throw illegal("Required [field] in [" + where + "]");
    }
    return f.textValue();
  }

  private static Object missing(JsonNode body, String where) {
    return body.has("missing") ? EsParsing.value(body.get("missing"), where + ".missing") : null;
  }

  private static long minDocCount(JsonNode body, String where, long dflt) {
    return body.has("min_doc_count")
        ? Json.integer(
            body.get("min_doc_count"),
            "[" + where + ".min_doc_count]",
            Integer.MIN_VALUE,
            Integer.MAX_VALUE)
        : dflt;
  }

  private static boolean bool(JsonNode body, String key, String where) {
    return body.has(key) && Json.bool(body.get(key), "[" + where + "." + key + "]");
  }

  private Aggregation terms(JsonNode body, String where, Map<String, Aggregation> subs) {
    options(
        body,
        where,
        Set.of(
            "field",
            "size",
            "shard_size",
            "order",
            "min_doc_count",
            "shard_min_doc_count",
            "missing",
            "show_term_doc_count_error",
            "execution_hint",
            "collect_mode",
            "value_type"),
        Set.of("include", "exclude", "script", "format"));
    int size =
        body.has("size")
            ? Json.integer(
                body.get("size"), "[" + where + ".size]", Integer.MIN_VALUE, Integer.MAX_VALUE)
            : Aggregation.Terms.DEFAULT_SIZE;
    int shardSize =
        body.has("shard_size")
            ? Json.integer(
                body.get("shard_size"), "[" + where + ".shard_size]", -1, Integer.MAX_VALUE)
            : 0;
    List<BucketOrder> order = new ArrayList<>();
    if (body.has("order")) {
      JsonNode o = body.get("order");
      if (o.isArray()) {
        for (JsonNode one : o) {
          order.add(order(one, where + ".order"));
        }
      } else {
        order.add(order(o, where + ".order"));
      }
    }
    return new Aggregation.Terms(
        field(body, where),
        size,
        shardSize,
        order,
        minDocCount(body, where, 1),
        missing(body, where),
        subs);
  }

  private static BucketOrder order(JsonNode o, String where) {
    object(o, where);
    if (o.size() != 1) {
      throw parsing(
          "[" + where + "] must have one key, the path to order by, got " + Json.describe(o));
    }
    Map.Entry<String, JsonNode> e = o.fields().next();
    String dir =
        EsParsing.choice(e.getValue(), where + "." + Text.quote(e.getKey()), Set.of("asc", "desc"));
    String path = e.getKey().equals("_term") ? BucketOrder.KEY : e.getKey();
    return new BucketOrder(path, dir.equals("asc"));
  }

  private static Aggregation range(JsonNode body, String where, Map<String, Aggregation> subs) {
    options(body, where, Set.of("field", "ranges", "keyed"), Set.of("script", "missing", "format"));
    JsonNode rs = body.get("ranges");
    if (rs == null || !rs.isArray()) {
      throw illegal("No [ranges] specified for the [" + where + "] aggregation");
    }
    List<Aggregation.RangeSpec> ranges = new ArrayList<>();
    int i = 0;
    for (JsonNode r : rs) {
      String at = where + ".ranges[" + i++ + "]";
      options(r, at, Set.of("key", "from", "to"), Set.of());
      String key = r.has("key") ? EsParsing.text(r.get("key"), at + ".key") : null;
      ranges.add(
          new Aggregation.RangeSpec(
              key, bound(r.get("from"), at + ".from"), bound(r.get("to"), at + ".to")));
    }
    return new Aggregation.Range(field(body, where), ranges, bool(body, "keyed", where), subs);
  }

  /** A numeric bound, or null for none; a number in a string is read as the number. */
  private static Double bound(JsonNode v, String where) {
    if (v == null || v.isNull()) {
      return null;
    }
    if (v.isNumber()) {
      return v.doubleValue();
    }
    if (v.isTextual()) {
      try {
        return Double.parseDouble(v.textValue().trim());
      } catch (NumberFormatException e) {
        throw illegal(
            "["
                + where
                + "] "
                + Text.quote(v.textValue())
                + " is not a number; this server takes range bounds as numbers (dates in epoch"
                + " milliseconds)");
      }
    }
    throw illegal("[" + where + "] must be a number, got " + Json.describe(v));
  }

  private static Aggregation histogram(JsonNode body, String where, Map<String, Aggregation> subs) {
    options(
        body,
        where,
        Set.of("field", "interval", "offset", "min_doc_count", "extended_bounds", "keyed", "order"),
        Set.of("script", "missing", "hard_bounds", "format"));
    checkKeyOrder(body, where);
    Double interval = bound(body.get("interval"), where + ".interval");
    if (interval == null) {
      throw illegal("[interval] must be >0 for histogram aggregation [" + where + "]");
    }
    Double offset = bound(body.get("offset"), where + ".offset");
    Double min = null;
    Double max = null;
    if (body.has("extended_bounds")) {
      JsonNode eb = body.get("extended_bounds");
      options(eb, where + ".extended_bounds", Set.of("min", "max"), Set.of());
      min = bound(eb.get("min"), where + ".extended_bounds.min");
      max = bound(eb.get("max"), where + ".extended_bounds.max");
    }
    return new Aggregation.Histogram(
        field(body, where),
        interval,
        offset == null ? 0 : offset,
        minDocCount(body, where, 0),
        min,
        max,
        bool(body, "keyed", where),
        subs);
  }

  /** A histogram's {@code order}: only its own, by key ascending, is supported. */
  private static void checkKeyOrder(JsonNode body, String where) {
    if (body.has("order")) {
      BucketOrder o = order(body.get("order"), where + ".order");
      if (!o.path().equals(BucketOrder.KEY) || !o.ascending()) {
        throw illegal(
            "[" + where + ".order] other than {\"_key\": \"asc\"} is not supported by this server");
      }
    }
  }

  private static Aggregation dateHistogram(
      JsonNode body, String where, Map<String, Aggregation> subs) {
    options(
        body,
        where,
        Set.of(
            "field",
            "calendar_interval",
            "fixed_interval",
            "time_zone",
            "format",
            "min_doc_count",
            "extended_bounds",
            "keyed",
            "order"),
        Set.of("interval", "offset", "script", "missing", "hard_bounds"));
    checkKeyOrder(body, where);
    String calendar = null;
    long fixed = 0;
    if (body.has("calendar_interval")) {
      calendar = EsParsing.text(body.get("calendar_interval"), where + ".calendar_interval");
    }
    if (body.has("fixed_interval")) {
      fixed =
          Aggregation.DateHistogram.parseFixedInterval(
              EsParsing.text(body.get("fixed_interval"), where + ".fixed_interval"));
    }
    String zone =
        body.has("time_zone") ? EsParsing.text(body.get("time_zone"), where + ".time_zone") : null;
    String format =
        body.has("format") ? EsParsing.text(body.get("format"), where + ".format") : null;
    Long min = null;
    Long max = null;
    if (body.has("extended_bounds")) {
      JsonNode eb = body.get("extended_bounds");
      options(eb, where + ".extended_bounds", Set.of("min", "max"), Set.of());
      min = dateBound(eb.get("min"), where + ".extended_bounds.min", format);
      max = dateBound(eb.get("max"), where + ".extended_bounds.max", format);
    }
    return new Aggregation.DateHistogram(
        field(body, where),
        calendar,
        fixed,
        zone,
        format,
        minDocCount(body, where, 0),
        min,
        max,
        bool(body, "keyed", where),
        subs);
  }

  private static Long dateBound(JsonNode v, String where, String format) {
    if (v == null || v.isNull()) {
      return null;
    }
    String f = format != null ? format + "||" + Dates.DEFAULT_FORMAT : Dates.DEFAULT_FORMAT;
    return Dates.parse(where, f, v.isNumber() ? (Object) v.longValue() : v.asText());
  }

  private Aggregation filters(JsonNode body, String where, Map<String, Aggregation> subs) {
    options(body, where, Set.of("filters", "other_bucket", "other_bucket_key", "keyed"), Set.of());
    JsonNode fs = body.get("filters");
    Map<String, Query> filters = new LinkedHashMap<>();
    boolean keyed;
    if (fs != null && fs.isObject()) {
      keyed = true;
      for (Iterator<Map.Entry<String, JsonNode>> it = fs.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        filters.put(
            e.getKey(), queries.parse(e.getValue(), where + ".filters." + Text.quote(e.getKey())));
      }
    } else if (fs != null && fs.isArray()) {
      keyed = false;
      int i = 0;
      for (JsonNode q : fs) {
        filters.put(Integer.toString(i), queries.parse(q, where + ".filters[" + i + "]"));
        i++;
      }
    } else {
      throw parsing("[" + where + ".filters] must be an object or an array of queries");
    }
    if (body.has("keyed") && !Json.bool(body.get("keyed"), "[" + where + ".keyed]") && keyed) {
      throw illegal(
          "[" + where + ".keyed] false with named filters is not supported by this server");
    }
    String other = null;
    if (body.has("other_bucket_key")) {
      other = EsParsing.text(body.get("other_bucket_key"), where + ".other_bucket_key");
    } else if (bool(body, "other_bucket", where)) {
      other = "_other_";
    }
    if (body.has("other_bucket") && !bool(body, "other_bucket", where)) {
      other = null;
    }
    return new Aggregation.Filters(filters, keyed, other, subs);
  }

  private Aggregation topHits(JsonNode body, String where, String path) {
    options(
        body,
        where,
        Set.of("from", "size", "sort", "_source", "track_scores", "version", "seq_no_primary_term"),
        Set.of(
            "highlight", "explain", "docvalue_fields", "stored_fields", "script_fields", "fields"));
    int from =
        body.has("from")
            ? Json.integer(body.get("from"), "[" + where + ".from]", 0, Integer.MAX_VALUE)
            : 0;
    int size =
        body.has("size")
            ? Json.integer(body.get("size"), "[" + where + ".size]", 0, Integer.MAX_VALUE)
            : Aggregation.TopHits.DEFAULT_SIZE;
    List<SortKey> sort = body.has("sort") ? sort(body.get("sort"), where + ".sort") : List.of();
    EsSourceFilter source =
        body.has("_source") ? EsSourceFilter.parse(body.get("_source")) : EsSourceFilter.ALL;
    sources.put(path, source);
    return new Aggregation.TopHits(from, size, sort, source.enabled());
  }

  // ----------------------------------------------------------------------------------------------
  // sort and search_after

  /**
   * Elasticsearch's {@code sort}: a field name, {@code {"f": "desc"}}, {@code {"f": {"order": ...,
   * "missing": "_first"|"_last", "mode": "min"|"max"}}}, or an array of those.
   */
  static List<SortKey> sort(JsonNode node, String where) {
    List<SortKey> out = new ArrayList<>();
    if (node.isArray()) {
      int i = 0;
      for (JsonNode k : node) {
        out.add(sortKey(k, where + "[" + i++ + "]"));
      }
    } else {
      out.add(sortKey(node, where));
    }
    if (out.size() > 32) {
      throw illegal("[" + where + "] has " + out.size() + " keys; the limit is 32");
    }
    return out;
  }

  private static SortKey sortKey(JsonNode k, String where) {
    if (k.isTextual()) {
      String f = k.textValue();
      return new SortKey(f, !f.equals(SortKey.SCORE), false, null);
    }
    object(k, where);
    if (k.size() != 1) {
      throw parsing("[" + where + "] must name one field, got " + Json.describe(k));
    }
    Map.Entry<String, JsonNode> e = k.fields().next();
    String field = e.getKey();
    String at = where + "." + Text.quote(field);
    boolean ascending = !field.equals(SortKey.SCORE);
    boolean missingFirst = false;
    String mode = null;
    JsonNode v = e.getValue();
    if (v.isTextual()) {
      ascending = EsParsing.choice(v, at, Set.of("asc", "desc")).equals("asc");
    } else {
      options(
          v,
          at,
          Set.of("order", "missing", "mode"),
          Set.of("unmapped_type", "numeric_type", "format", "nested", "script"));
      if (v.has("order")) {
        ascending =
            EsParsing.choice(v.get("order"), at + ".order", Set.of("asc", "desc")).equals("asc");
      }
      if (v.has("missing")) {
        String m = EsParsing.text(v.get("missing"), at + ".missing");
        if (!m.equals("_first") && !m.equals("_last")) {
          throw illegal(
              "[" + at + ".missing] other than _first or _last is not supported by this server");
        }
        missingFirst = m.equals("_first");
      }
      if (v.has("mode")) {
        mode = EsParsing.choice(v.get("mode"), at + ".mode", Set.of("min", "max"));
      }
    }
    return new SortKey(field, ascending, missingFirst, mode);
  }

  /** {@code search_after}: an array of values, one per sort key (null for a missing keyword). */
  static List<Object> searchAfter(JsonNode node, String where) {
    if (!node.isArray()) {
      throw parsing("[" + where + "] must be an array, got " + Json.describe(node));
    }
    List<Object> out = new ArrayList<>();
    int i = 0;
    for (JsonNode v : node) {
      out.add(v.isNull() ? null : EsParsing.value(v, where + "[" + i + "]"));
      i++;
    }
    return out;
  }
}
