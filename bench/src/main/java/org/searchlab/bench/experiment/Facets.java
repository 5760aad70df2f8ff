package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.searchlab.core.Document;
import org.searchlab.core.agg.Aggregation;
import org.searchlab.core.agg.AggregationResult;
import org.searchlab.core.mapping.FieldType;

/**
 * The aggregations of the faceted query type (issue 67): the lexical query plus a {@code terms}
 * aggregation on the filter field ({@value #TERMS_SIZE} buckets) and a {@code range} aggregation on
 * the numeric update field (the product's price) over fixed buckets chosen from the corpus: the
 * bounds are the quartiles of the field's values over the corpus, rounded to two significant
 * figures, so the four buckets hold about a quarter of the corpus each. A mapping without a usable
 * field for one of the two leaves that aggregation out and says why ({@link #missing()}). Immutable
 * and thread-safe.
 *
 * @param termsField the keyword field of the {@code terms} aggregation, or null
 * @param rangeField the numeric field of the {@code range} aggregation, or null
 * @param bounds the range buckets' inner bounds, ascending ({@code *–b1, b1–b2, …, bn–*})
 * @param missing why an aggregation was left out, one sentence each (empty when none was)
 */
public record Facets(
    String termsField, String rangeField, List<Double> bounds, List<String> missing) {
  /** Buckets of the {@code terms} aggregation. */
  static final int TERMS_SIZE = 10;

  /** Name of the {@code terms} aggregation in requests and responses. */
  static final String TERMS = "facet_terms";

  /** Name of the {@code range} aggregation. */
  static final String RANGE = "facet_range";

  public Facets {
    bounds = List.copyOf(bounds);
    missing = List.copyOf(missing);
  }

  /**
   * The facets of a corpus over {@code mapping}: its filter field if it is a keyword with doc
   * values, and its update field if it is a number with doc values, the range bounds from its
   * values.
   */
  static Facets of(BenchMapping mapping, List<Document> docs) {
    List<String> missing = new ArrayList<>();
    String terms = null;
    if (mapping.mapping().leaf(mapping.filterField()) instanceof FieldType.Keyword k
        && k.docValues()) {
      terms = mapping.filterField();
    } else {
      missing.add(
          "no terms facet: the filter field '"
              + mapping.filterField()
              + "' is not a keyword with doc values");
    }
    String range = null;
    List<Double> bounds = List.of();
    String update = mapping.updateField();
    if (update.isEmpty()) {
      missing.add("no range facet: the mapping's roles name no numeric update field");
    } else if (!(mapping.mapping().leaf(update) instanceof FieldType.Numeric n && n.docValues())) {
      missing.add(
          "no range facet: the update field '" + update + "' is not a number with doc values");
    } else {
      bounds = quartiles(docs, update);
      if (bounds.isEmpty()) {
        missing.add("no range facet: no document has a value in '" + update + "'");
      } else {
        range = update;
      }
    }
    return new Facets(terms, range, bounds, missing);
  }

  /** Whether there is anything to aggregate. */
  boolean any() {
    return termsField != null || rangeField != null;
  }

  /**
   * The quartiles of a numeric field's values over the documents (the first of a multi-valued
   * field's), rounded to two significant figures, distinct and ascending; empty without values.
   */
  static List<Double> quartiles(List<Document> docs, String field) {
    double[] v =
        docs.stream()
            .map(d -> d.value(field))
            .map(x -> x instanceof List<?> l && !l.isEmpty() ? l.get(0) : x)
            .filter(x -> x instanceof Number)
            .mapToDouble(x -> ((Number) x).doubleValue())
            .sorted()
            .toArray();
    if (v.length == 0) {
      return List.of();
    }
    TreeSet<Double> out = new TreeSet<>();
    for (int q = 1; q <= 3; q++) {
      double x = v[Math.min(v.length - 1, (int) ((long) q * v.length / 4))];
      out.add(x == 0 ? 0 : new BigDecimal(x).round(new MathContext(2)).doubleValue());
    }
    return new ArrayList<>(out);
  }

  /** The {@code aggs} object of a request, in Elasticsearch's query language. */
  ObjectNode aggs() {
    ObjectNode aggs = Json.object();
    if (termsField != null) {
      aggs.putObject(TERMS).putObject("terms").put("field", termsField).put("size", TERMS_SIZE);
    }
    if (rangeField != null) {
      ObjectNode r = aggs.putObject(RANGE).putObject("range");
      r.put("field", rangeField);
      ArrayNode ranges = r.putArray("ranges");
      for (int i = 0; i <= bounds.size(); i++) {
        ObjectNode one = ranges.addObject();
        if (i > 0) {
          one.put("from", bounds.get(i - 1));
        }
        if (i < bounds.size()) {
          one.put("to", bounds.get(i));
        }
      }
    }
    return aggs;
  }

  /** The same aggregations as the exact oracle takes them. */
  Map<String, Aggregation> aggregations() {
    Map<String, Aggregation> out = new LinkedHashMap<>();
    if (termsField != null) {
      out.put(
          TERMS, new Aggregation.Terms(termsField, TERMS_SIZE, 0, List.of(), 1, null, Map.of()));
    }
    if (rangeField != null) {
      List<Aggregation.RangeSpec> specs = new ArrayList<>();
      for (int i = 0; i <= bounds.size(); i++) {
        specs.add(
            new Aggregation.RangeSpec(
                null, i > 0 ? bounds.get(i - 1) : null, i < bounds.size() ? bounds.get(i) : null));
      }
      out.put(RANGE, new Aggregation.Range(rangeField, specs, false, Map.of()));
    }
    return out;
  }

  /**
   * The buckets of a response's aggregations, one line each ({@code name key count}), in the
   * response's order: what a store's answer and the oracle's are compared by. A range bucket's key
   * is its bounds, so that the comparison does not rest on how each side writes the key.
   */
  static List<String> buckets(JsonNode aggregations) {
    List<String> out = new ArrayList<>();
    for (String name : List.of(TERMS, RANGE)) {
      JsonNode a = aggregations.path(name);
      if (a.isMissingNode()) {
        continue;
      }
      for (JsonNode b : a.path("buckets")) {
        String key =
            name.equals(RANGE)
                ? bound(b.path("from")) + ".." + bound(b.path("to"))
                : b.path("key").asText();
        out.add(name + " " + key + " " + b.path("doc_count").asLong());
      }
    }
    return out;
  }

  /** The oracle's buckets in the form of {@link #buckets(JsonNode)}. */
  static List<String> buckets(Map<String, AggregationResult> aggregations) {
    List<String> out = new ArrayList<>();
    for (String name : List.of(TERMS, RANGE)) {
      if (!(aggregations.get(name) instanceof AggregationResult.Buckets bs)) {
        continue;
      }
      for (AggregationResult.Bucket b : bs.buckets()) {
        String key =
            name.equals(RANGE) ? bound(b.from()) + ".." + bound(b.to()) : String.valueOf(b.key());
        out.add(name + " " + key + " " + b.docCount());
      }
    }
    return out;
  }

  private static String bound(JsonNode n) {
    return n.isNumber() ? bound(n.asDouble()) : "*";
  }

  private static String bound(Double d) {
    return d == null ? "*" : BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
  }

  /** The report's description: the fields, the bounds and what is missing. */
  String describe() {
    List<String> parts = new ArrayList<>();
    if (termsField != null) {
      parts.add("`terms` on `" + termsField + "` (size " + TERMS_SIZE + ")");
    }
    if (rangeField != null) {
      parts.add(
          "`range` on `"
              + rangeField
              + "` with bounds "
              + Arrays.toString(bounds.stream().map(Facets::bound).toArray())
              + " (the corpus' quartiles, two significant figures)");
    }
    parts.addAll(missing);
    return String.join("; ", parts);
  }
}
