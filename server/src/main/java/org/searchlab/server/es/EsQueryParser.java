// Over 500 lines: one translator per query type of the DSL, each with its options and refusals.
package org.searchlab.server.es;

import static org.searchlab.server.es.EsParsing.boost;
import static org.searchlab.server.es.EsParsing.choice;
import static org.searchlab.server.es.EsParsing.field;
import static org.searchlab.server.es.EsParsing.illegal;
import static org.searchlab.server.es.EsParsing.keys;
import static org.searchlab.server.es.EsParsing.notSupported;
import static org.searchlab.server.es.EsParsing.object;
import static org.searchlab.server.es.EsParsing.parsing;
import static org.searchlab.server.es.EsParsing.text;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.SourceJson;
import org.searchlab.core.query.MinimumShouldMatch;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.Script;
import org.searchlab.server.Json;
import org.searchlab.server.Text;

/**
 * Translates Elasticsearch 8.x query DSL objects into core {@link Query} trees, field names as the
 * request gives them (a store resolves them against its mapping; an unmapped field matches nothing,
 * as in Elasticsearch). One instance parses one request: it counts the nesting depth and the query
 * objects. Not thread-safe.
 *
 * <p>The translation, clause by clause (boosts default to 1):
 *
 * <ul>
 *   <li>{@code match_all} → {@link Query.MatchAll}; {@code match_none} → {@link Query.MatchNone}.
 *   <li>{@code match} ({@code {"f": "text"}} or {@code {"f": {query, operator,
 *       minimum_should_match, boost, zero_terms_query: none, lenient: false,
 *       auto_generate_synonyms_phrase_query}}}) → {@link Query.Match}. Options the contract cannot
 *       honour ({@code analyzer}, {@code fuzziness}, {@code zero_terms_query: all}, ...) are a 400
 *       naming them.
 *   <li>{@code multi_match} → {@link Query.MultiMatch}: {@code fields} with {@code ^boost} and
 *       wildcards kept as given (no {@code fields}: {@code *}, Elasticsearch's {@code
 *       index.query.default_field}); {@code best_fields} (tie breaker 0) or {@code most_fields}.
 *       Elasticsearch runs {@code most_fields} as a dis-max with tie breaker 1 (the sum) and lets
 *       an explicit {@code tie_breaker} replace that 1, so {@code most_fields} with a tie breaker
 *       other than 1 is {@code BEST_FIELDS} with it.
 *   <li>{@code term} → {@link Query.Term}; {@code terms} → {@link Query.Terms} (at most {@value
 *       #MAX_TERMS} values, Elasticsearch's {@code index.max_terms_count}); {@code range} → {@link
 *       Query.Range} ({@code from}/{@code to}/{@code include_lower}/{@code include_upper} read in
 *       order as Elasticsearch reads them, into {@code gt}/{@code gte}/{@code lt}/{@code lte});
 *       {@code exists} → {@link Query.Exists}; {@code ids} → {@link Query.Ids}.
 *   <li>{@code bool} → {@link Query.Bool} (each clause list an object or an array); {@code
 *       constant_score} → {@link Query.ConstantScore}; {@code dis_max} → {@link Query.DisMax};
 *       {@code script_score} → {@link Query.ScriptScore} with {@link Script#parse}.
 * </ul>
 *
 * <p>Bounds: compound queries ({@code bool}, {@code constant_score}, {@code dis_max}, {@code
 * script_score}) nest at most {@code maxDepth} deep ({@code --max-query-depth}); one compound query
 * holds at most {@code maxClauses} clauses (Lucene's {@code maxClauseCount}); one request at most
 * {@value #MAX_QUERY_OBJECTS} query objects.
 */
final class EsQueryParser {
  /** The most values of one {@code terms} or {@code ids} query (Elasticsearch's default). */
  static final int MAX_TERMS = 65_536;

  /** The most query objects one request may hold, whatever their nesting. */
  static final int MAX_QUERY_OBJECTS = 65_536;

  /** The query types this translator knows, for error messages. */
  static final Set<String> TYPES =
      Set.of(
          "bool",
          "constant_score",
          "dis_max",
          "exists",
          "ids",
          "knn",
          "match",
          "match_all",
          "match_none",
          "multi_match",
          "range",
          "script_score",
          "term",
          "terms");

  // Options of match and multi_match that Elasticsearch has and the contract cannot honour.
  private static final Set<String> TEXT_REFUSED =
      Set.of(
          "analyzer",
          "fuzziness",
          "fuzzy_rewrite",
          "fuzzy_transpositions",
          "prefix_length",
          "max_expansions",
          "cutoff_frequency",
          "slop",
          "_name");
  private static final Set<String> MATCH_KEYS =
      Set.of(
          "query",
          "operator",
          "minimum_should_match",
          "boost",
          "zero_terms_query",
          "lenient",
          "auto_generate_synonyms_phrase_query");
  private static final Set<String> MULTI_MATCH_KEYS =
      Set.of(
          "query",
          "fields",
          "type",
          "tie_breaker",
          "operator",
          "minimum_should_match",
          "boost",
          "zero_terms_query",
          "lenient",
          "auto_generate_synonyms_phrase_query");
  private static final Set<String> NAME = Set.of("_name");
  private static final Set<String> BOOST = Set.of("boost");

  private final int maxDepth;
  private final int maxClauses;
  private int depth;
  private int objects;

  /**
   * @param maxDepth the deepest nesting of compound queries, 1 to 1,000
   * @param maxClauses the most clauses of one compound query, ≥ 1
   */
  EsQueryParser(int maxDepth, int maxClauses) {
    assert maxDepth >= 1 && maxClauses >= 1 : maxDepth + " " + maxClauses;
    this.maxDepth = maxDepth;
    this.maxClauses = maxClauses;
  }

  /** The longest body path kept in full; a deeper one keeps its end. */
  private static final int MAX_PATH = 512;

  /** {@code where.key}, the key quoted and bounded. */
  static String path(String where, String key) {
    return bounded(where + "." + Text.quote(key));
  }

  /**
   * A path cut to its last {@value #MAX_PATH} characters, so that a deeply nested body builds paths
   * of bounded length (they are made at every level, used only in errors).
   */
  private static String bounded(String path) {
    return path.length() <= MAX_PATH ? path : "..." + path.substring(path.length() - MAX_PATH);
  }

  /** One query object, {@code {"<type>": {...}}}. */
  Query parse(JsonNode node, String where) {
    object(node, where);
    if (node.size() != 1) {
      throw parsing(
          "["
              + where
              + "] must hold exactly one query, got "
              + node.size()
              + " keys"
              + (node.isEmpty() ? "" : ": " + Text.quote(String.join(", ", names(node)))));
    }
    if (++objects > MAX_QUERY_OBJECTS) {
      throw illegal(
          "the request holds more than " + MAX_QUERY_OBJECTS + " query objects; that is the limit");
    }
    String type = node.fieldNames().next();
    JsonNode body = node.get(type);
    String here = path(where, type);
    return switch (type) {
      case "match_all" -> {
        keys(object(body, here), here, BOOST, NAME);
        float b = body.has("boost") ? boost(body.get("boost"), here + ".boost") : 1f;
        yield b == 1f ? Query.MatchAll.INSTANCE : new Query.MatchAll(b);
      }
      case "match_none" -> {
        keys(object(body, here), here, BOOST, NAME);
        if (body.has("boost")) {
          boost(body.get("boost"), here + ".boost"); // checked; nothing matches to carry it
        }
        yield Query.MatchNone.INSTANCE;
      }
      case "match" -> match(object(body, here), here);
      case "multi_match" -> multiMatch(object(body, here), here);
      case "term" -> term(object(body, here), here);
      case "terms" -> terms(object(body, here), here);
      case "range" -> range(object(body, here), here);
      case "exists" -> exists(object(body, here), here);
      case "ids" -> ids(object(body, here), here);
      case "bool" -> nested(() -> bool(object(body, here), here), here);
      case "constant_score" -> nested(() -> constantScore(object(body, here), here), here);
      case "dis_max" -> nested(() -> disMax(object(body, here), here), here);
      case "script_score" -> nested(() -> scriptScore(object(body, here), here), here);
      case "knn" ->
          throw illegal(
              "["
                  + here
                  + "]: a [knn] query is supported as the whole [query] (or a standard"
                  + " retriever's query), where it becomes a kNN search of the request; inside"
                  + " another query it is not supported");
      default ->
          throw parsing(
              "unknown query type ["
                  + Text.quote(type)
                  + "] in ["
                  + where
                  + "]; supported: "
                  + String.join(", ", new java.util.TreeSet<>(TYPES)));
    };
  }

  /** A clause list: one query object, or an array of them. */
  List<Query> list(JsonNode node, String where) {
    if (node != null && node.isArray()) {
      if (node.size() > maxClauses) {
        throw tooManyClauses(where, node.size());
      }
      List<Query> out = new ArrayList<>(node.size());
      for (int i = 0; i < node.size(); i++) {
        out.add(parse(node.get(i), bounded(where + "[" + i + "]")));
      }
      return out;
    }
    return List.of(parse(node, where));
  }

  private interface Nested {
    Query parse();
  }

  private Query nested(Nested n, String where) {
    if (++depth > maxDepth) {
      throw parsing(
          "["
              + where
              + "] nests compound queries (bool, constant_score, dis_max, script_score) deeper"
              + " than the limit of "
              + maxDepth
              + " (--max-query-depth; Elasticsearch's indices.query.bool.max_nested_depth)");
    }
    Query q = n.parse();
    depth--;
    return q;
  }

  private InvalidRequestException tooManyClauses(String where, int n) {
    return illegal(
        "["
            + where
            + "] has "
            + n
            + " clauses; the limit is "
            + maxClauses
            + " (max_clause_count, --max-clause-count)");
  }

  // ----------------------------------------------------------------------------------------------
  // Full text

  private Query match(JsonNode body, String where) {
    Map.Entry<String, JsonNode> f = field(body, where, Set.of());
    String here = path(where, f.getKey());
    JsonNode v = f.getValue();
    if (!v.isObject()) {
      return Query.Match.of(f.getKey(), text(v, here));
    }
    keys(v, here, MATCH_KEYS, TEXT_REFUSED);
    TextOptions o = textOptions(v, here);
    return new Query.Match(
        f.getKey(), text(v.get("query"), here + ".query"), o.operator, o.msm, o.boost);
  }

  /** What {@code match} and {@code multi_match} share. */
  private record TextOptions(Query.Operator operator, String msm, float boost) {}

  private static TextOptions textOptions(JsonNode v, String here) {
    if (!v.has("query")) {
      throw illegal("[" + here + "] requires [query]");
    }
    Query.Operator op = Query.Operator.OR;
    if (v.has("operator")) {
      op =
          choice(v.get("operator"), here + ".operator", Set.of("or", "and")).equals("and")
              ? Query.Operator.AND
              : Query.Operator.OR;
    }
    String msm =
        v.has("minimum_should_match")
            ? EsParsing.minimumShouldMatch(
                v.get("minimum_should_match"), here + ".minimum_should_match")
            : null;
    if (msm != null) {
      MinimumShouldMatch.check(msm);
    }
    float boost = v.has("boost") ? boost(v.get("boost"), here + ".boost") : 1f;
    if (v.has("zero_terms_query")
        && choice(v.get("zero_terms_query"), here + ".zero_terms_query", Set.of("none", "all"))
            .equals("all")) {
      throw illegal(
          "["
              + here
              + ".zero_terms_query] [all] is not supported: a text without tokens matches nothing"
              + " (none)");
    }
    if (v.has("lenient") && Json.bool(v.get("lenient"), "[" + here + ".lenient]")) {
      throw illegal(
          "["
              + here
              + ".lenient] true is not supported: a value that does not fit a field is an error");
    }
    if (v.has("auto_generate_synonyms_phrase_query")) {
      // No synonyms exist, so either value changes nothing.
      Json.bool(
          v.get("auto_generate_synonyms_phrase_query"),
          "[" + here + ".auto_generate_synonyms_phrase_query]");
    }
    return new TextOptions(op, msm, boost);
  }

  private Query multiMatch(JsonNode body, String where) {
    keys(body, where, MULTI_MATCH_KEYS, TEXT_REFUSED);
    TextOptions o = textOptions(body, where);
    String text = text(body.get("query"), where + ".query");
    List<Query.FieldBoost> fields = new ArrayList<>();
    JsonNode fs = body.get("fields");
    if (fs != null && fs.isTextual()) {
      fields.add(fieldBoost(fs.textValue(), where + ".fields"));
    } else if (fs != null && fs.isArray()) {
      if (fs.size() > maxClauses) {
        throw tooManyClauses(where + ".fields", fs.size());
      }
      for (int i = 0; i < fs.size(); i++) {
        String w = where + ".fields[" + i + "]";
        fields.add(fieldBoost(Json.string(fs.get(i), "[" + w + "]"), w));
      }
    } else if (fs != null) {
      throw illegal(
          "["
              + where
              + ".fields] must be a field name or an array of them, got "
              + Json.describe(fs));
    }
    if (fields.isEmpty()) {
      fields.add(new Query.FieldBoost("*", 1f)); // index.query.default_field
    }
    Query.MultiMatchType type = Query.MultiMatchType.BEST_FIELDS;
    if (body.has("type")) {
      String t = Json.string(body.get("type"), "[" + where + ".type]");
      type =
          switch (t) {
            case "best_fields" -> Query.MultiMatchType.BEST_FIELDS;
            case "most_fields" -> Query.MultiMatchType.MOST_FIELDS;
            default ->
                throw illegal(
                    "["
                        + where
                        + ".type] ["
                        + Text.quote(t)
                        + "] is not supported; use best_fields or most_fields");
          };
    }
    Float tie =
        body.has("tie_breaker")
            ? EsParsing.tieBreaker(body.get("tie_breaker"), where + ".tie_breaker")
            : null;
    float tieBreaker;
    if (type == Query.MultiMatchType.MOST_FIELDS) {
      if (tie != null && tie != 1f) {
        // Elasticsearch: a dis-max whose tie breaker the request replaced.
        type = Query.MultiMatchType.BEST_FIELDS;
        tieBreaker = tie;
      } else {
        tieBreaker = 1f;
      }
    } else {
      tieBreaker = tie == null ? 0f : tie;
    }
    return new Query.MultiMatch(text, fields, type, tieBreaker, o.operator, o.msm, o.boost);
  }

  /** {@code "title^2"}: the field and its boost, split at the first {@code ^} as ES does. */
  private static Query.FieldBoost fieldBoost(String spec, String where) {
    int caret = spec.indexOf('^');
    String name = caret < 0 ? spec : spec.substring(0, caret);
    if (name.isEmpty()) {
      throw illegal("[" + where + "] " + Text.quote(spec) + " names no field");
    }
    if (caret < 0) {
      return new Query.FieldBoost(name, 1f);
    }
    String b = spec.substring(caret + 1);
    float boost;
    try {
      boost = Float.parseFloat(b);
    } catch (NumberFormatException e) {
      throw illegal("[" + where + "] " + Text.quote(spec) + ": the boost is not a number");
    }
    if (!Float.isFinite(boost) || boost < 0) {
      throw illegal("[" + where + "] " + Text.quote(spec) + ": the boost must be finite and ≥ 0");
    }
    return new Query.FieldBoost(name, boost);
  }

  // ----------------------------------------------------------------------------------------------
  // Term level

  private static Query term(JsonNode body, String where) {
    Map.Entry<String, JsonNode> f = field(body, where, Set.of());
    String here = path(where, f.getKey());
    JsonNode v = f.getValue();
    if (v.isArray()) {
      throw parsing("[" + here + "]: a [term] query takes one value; use [terms] for several");
    }
    if (!v.isObject()) {
      return new Query.Term(f.getKey(), EsParsing.value(v, here), 1f);
    }
    keys(v, here, Set.of("value", "boost", "case_insensitive"), NAME);
    if (v.has("case_insensitive")
        && Json.bool(v.get("case_insensitive"), "[" + here + ".case_insensitive]")) {
      throw illegal("[" + here + ".case_insensitive] true is not supported");
    }
    if (!v.has("value")) {
      throw illegal("[" + here + "] requires [value]");
    }
    float b = v.has("boost") ? boost(v.get("boost"), here + ".boost") : 1f;
    return new Query.Term(f.getKey(), EsParsing.value(v.get("value"), here + ".value"), b);
  }

  private static Query terms(JsonNode body, String where) {
    Map.Entry<String, JsonNode> f = field(body, where, Set.of("boost", "_name"));
    if (body.has("_name")) {
      throw notSupported(where + "._name");
    }
    String here = path(where, f.getKey());
    JsonNode v = f.getValue();
    if (v.isObject()) {
      throw illegal(
          "[" + here + "]: a terms lookup (values from another document) is not supported");
    }
    if (!v.isArray()) {
      throw parsing("[" + here + "] must be an array of values, got " + Json.describe(v));
    }
    if (v.size() > MAX_TERMS) {
      throw illegal(
          "["
              + here
              + "] has "
              + v.size()
              + " values; the limit is "
              + MAX_TERMS
              + " (index.max_terms_count)");
    }
    List<Object> values = new ArrayList<>(v.size());
    for (int i = 0; i < v.size(); i++) {
      values.add(EsParsing.value(v.get(i), here + "[" + i + "]"));
    }
    float b = body.has("boost") ? boost(body.get("boost"), where + ".boost") : 1f;
    return new Query.Terms(f.getKey(), values, b);
  }

  private static Query range(JsonNode body, String where) {
    Map.Entry<String, JsonNode> f = field(body, where, Set.of());
    String here = path(where, f.getKey());
    JsonNode v = object(f.getValue(), here);
    keys(
        v,
        here,
        Set.of(
            "gt",
            "gte",
            "lt",
            "lte",
            "from",
            "to",
            "include_lower",
            "include_upper",
            "format",
            "boost",
            "relation",
            "time_zone"),
        NAME);
    // As RangeQueryBuilder.fromXContent: keys apply in order, a later one overriding.
    Object lower = null;
    Object upper = null;
    boolean includeLower = true;
    boolean includeUpper = true;
    String format = null;
    float b = 1f;
    for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String w = path(here, e.getKey());
      JsonNode x = e.getValue();
      switch (e.getKey()) {
        case "from" -> lower = EsParsing.bound(x, w);
        case "to" -> upper = EsParsing.bound(x, w);
        case "include_lower" -> includeLower = Json.bool(x, "[" + w + "]");
        case "include_upper" -> includeUpper = Json.bool(x, "[" + w + "]");
        case "gt" -> {
          lower = EsParsing.bound(x, w);
          includeLower = false;
        }
        case "gte" -> {
          lower = EsParsing.bound(x, w);
          includeLower = true;
        }
        case "lt" -> {
          upper = EsParsing.bound(x, w);
          includeUpper = false;
        }
        case "lte" -> {
          upper = EsParsing.bound(x, w);
          includeUpper = true;
        }
        case "format" -> {
          format = Json.string(x, "[" + w + "]");
          if (format.length() > 256) {
            throw illegal("[" + w + "] is " + format.length() + " characters; the limit is 256");
          }
        }
        case "boost" -> b = boost(x, w);
        case "relation" -> {
          if (!choice(x, w, Set.of("intersects", "within", "contains")).equals("intersects")) {
            throw illegal(
                "["
                    + w
                    + "] ["
                    + Text.quote(x.asText())
                    + "] is not supported: it applies to range fields, which this server does"
                    + " not have");
          }
        }
        case "time_zone" -> {
          String z = Json.string(x, "[" + w + "]");
          if (!Set.of("utc", "z", "+00:00", "etc/utc", "gmt")
              .contains(z.toLowerCase(java.util.Locale.ROOT))) {
            throw illegal(
                "["
                    + w
                    + "] ["
                    + Text.quote(z)
                    + "] is not supported; dates without a zone are read as UTC");
          }
        }
        default -> throw new AssertionError(e.getKey());
      }
    }
    return new Query.Range(
        f.getKey(),
        includeLower ? null : lower,
        includeLower ? lower : null,
        includeUpper ? null : upper,
        includeUpper ? upper : null,
        format,
        b);
  }

  private static Query exists(JsonNode body, String where) {
    keys(body, where, Set.of("field", "boost"), NAME);
    String field = Json.string(body.get("field"), "[" + where + ".field]");
    if (field.isEmpty()) {
      throw illegal("[" + where + ".field] is empty");
    }
    float b = body.has("boost") ? boost(body.get("boost"), where + ".boost") : 1f;
    return new Query.Exists(field, b);
  }

  private static Query ids(JsonNode body, String where) {
    keys(body, where, Set.of("values", "boost"), Set.of("type", "_name"));
    JsonNode v = body.get("values");
    if (v == null || !v.isArray()) {
      throw parsing("[" + where + ".values] must be an array of ids, got " + Json.describe(v));
    }
    if (v.size() > MAX_TERMS) {
      throw illegal("[" + where + ".values] has " + v.size() + " ids; the limit is " + MAX_TERMS);
    }
    Set<String> ids = new LinkedHashSet<>();
    for (int i = 0; i < v.size(); i++) {
      JsonNode x = v.get(i);
      if (!x.isTextual() && !x.isIntegralNumber()) {
        throw illegal(
            "[" + where + ".values[" + i + "]] must be an id (a string), got " + Json.describe(x));
      }
      ids.add(x.asText());
    }
    float b = body.has("boost") ? boost(body.get("boost"), where + ".boost") : 1f;
    return new Query.Ids(ids, b);
  }

  // ----------------------------------------------------------------------------------------------
  // Compound

  private Query bool(JsonNode body, String where) {
    keys(
        body,
        where,
        Set.of(
            "must",
            "filter",
            "should",
            "must_not",
            "minimum_should_match",
            "boost",
            "adjust_pure_negative"),
        NAME);
    List<Query> must = clauses(body, "must", where);
    List<Query> filter = clauses(body, "filter", where);
    List<Query> should = clauses(body, "should", where);
    List<Query> mustNot = clauses(body, "must_not", where);
    int n = must.size() + filter.size() + should.size() + mustNot.size();
    if (n > maxClauses) {
      throw tooManyClauses(where, n);
    }
    String msm =
        body.has("minimum_should_match")
            ? EsParsing.minimumShouldMatch(
                body.get("minimum_should_match"), where + ".minimum_should_match")
            : null;
    if (msm != null) {
      MinimumShouldMatch.check(msm);
    }
    if (body.has("adjust_pure_negative")
        && !Json.bool(body.get("adjust_pure_negative"), "[" + where + ".adjust_pure_negative]")) {
      throw illegal("[" + where + ".adjust_pure_negative] false is not supported");
    }
    float b = body.has("boost") ? boost(body.get("boost"), where + ".boost") : 1f;
    return new Query.Bool(must, filter, should, mustNot, msm, b);
  }

  private List<Query> clauses(JsonNode body, String key, String where) {
    JsonNode v = body.get(key);
    return v == null ? List.of() : list(v, where + "." + key);
  }

  private Query constantScore(JsonNode body, String where) {
    keys(body, where, Set.of("filter", "boost"), NAME);
    if (!body.has("filter")) {
      throw illegal("[" + where + "] requires [filter]");
    }
    Query filter = parse(body.get("filter"), where + ".filter");
    float b = body.has("boost") ? boost(body.get("boost"), where + ".boost") : 1f;
    return new Query.ConstantScore(filter, b);
  }

  private Query disMax(JsonNode body, String where) {
    keys(body, where, Set.of("queries", "tie_breaker", "boost"), NAME);
    JsonNode qs = body.get("queries");
    if (qs == null || !qs.isArray() || qs.isEmpty()) {
      throw illegal("[" + where + "] requires [queries], an array of at least one query");
    }
    List<Query> queries = list(qs, where + ".queries");
    float tie =
        body.has("tie_breaker")
            ? EsParsing.tieBreaker(body.get("tie_breaker"), where + ".tie_breaker")
            : 0f;
    float b = body.has("boost") ? boost(body.get("boost"), where + ".boost") : 1f;
    return new Query.DisMax(queries, tie, b);
  }

  private Query scriptScore(JsonNode body, String where) {
    keys(body, where, Set.of("query", "script", "min_score", "boost"), NAME);
    if (!body.has("query")) {
      throw illegal("[" + where + "] requires [query]");
    }
    if (!body.has("script")) {
      throw illegal("[" + where + "] requires [script]");
    }
    Query query = parse(body.get("query"), where + ".query");
    Script script = script(body.get("script"), where + ".script");
    Float minScore =
        body.has("min_score")
            ? EsParsing.number(body.get("min_score"), where + ".min_score")
            : null;
    float b = body.has("boost") ? boost(body.get("boost"), where + ".boost") : 1f;
    return new Query.ScriptScore(query, script, minScore, b);
  }

  /** {@code "source"} or {@code {source, params, lang: painless}}. */
  private static Script script(JsonNode v, String where) {
    if (v != null && v.isTextual()) {
      return Script.parse(v.textValue(), Map.of());
    }
    object(v, where);
    keys(v, where, Set.of("source", "params", "lang"), Set.of("id", "options"));
    if (v.has("lang")) {
      choice(v.get("lang"), where + ".lang", Set.of("painless"));
    }
    String source = Json.string(v.get("source"), "[" + where + ".source]");
    Map<String, Object> params =
        v.has("params") ? SourceJson.object(v.get("params"), "[" + where + ".params]") : Map.of();
    return Script.parse(source, params);
  }

  private static List<String> names(JsonNode node) {
    List<String> out = new ArrayList<>();
    node.fieldNames().forEachRemaining(out::add);
    return out;
  }
}
