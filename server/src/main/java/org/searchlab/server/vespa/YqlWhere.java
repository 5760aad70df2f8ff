// Over 500 lines: every YQL condition's translation onto the mapping's field types.
package org.searchlab.server.vespa;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.NumberType;
import org.searchlab.core.query.FieldValues;
import org.searchlab.core.query.Knn;
import org.searchlab.core.query.Query;
import org.searchlab.server.Json;

/**
 * Translates a YQL {@code where} clause against an index's mapping into a scored {@link Query} and
 * {@link Knn} searches. Not thread-safe; one instance per translation.
 *
 * <p>Conditions that match text score (BM25); every other condition filters: in an {@code and} it
 * is a {@code bool} filter clause, beside a scoring condition in an {@code or} it scores 0.
 *
 * <ul>
 *   <li>{@code f contains "s"} on a text field: {@link Query.Match} with {@link Query.Operator#AND}
 *       (Vespa's phrase, approximated: all the words, in any position); {@code contains text("s")}:
 *       {@link Query.Operator#OR}; on keyword, number, date and boolean fields: {@link Query.Term}.
 *       {@code default contains} searches the default fieldset (the mapping's indexed text fields)
 *       as best-fields with tie breaker 0.
 *   <li>{@code f = v}: {@link Query.Term} (on an integer field the range {@code [v, v]}); {@code <
 *       <= > >=} and {@code range()}: {@link Query.Range}, on an integer field folded with the
 *       other bounds on the field in the same {@code and} into one inclusive range (as the
 *       benchmark's stores read a price filter); {@code f in (...)}: {@link Query.Terms}; {@code
 *       true}/{@code false}: match all/none.
 *   <li>{@code and}, {@code !}, {@code or}: a {@code bool}'s must/filter, must_not, should; {@code
 *       weakAnd} is an {@code or} (exact rather than pruned); {@code rank(a, b...)}: {@code a}
 *       decides the matches, the rest add their scores.
 *   <li>{@code userQuery()} and {@code userInput()}: {@link Query.Match} on {@code
 *       model.defaultIndex} (the {@code defaultIndex} annotation), else best-fields over the
 *       default fieldset; {@code model.type} (the {@code grammar} annotation) {@code
 *       weakAnd}/{@code any} is OR, {@code all} AND.
 *   <li>{@code nearestNeighbor()}: a {@link Knn} whose filter is the conditions and-ed with it at
 *       the top level. It may appear at the top level, alone, in the top {@code and} beside
 *       filters, or in one {@code or} beside other nearestNeighbor() and scoring conditions (a
 *       hybrid search: the parts' scores add up).
 * </ul>
 *
 * A field the mapping does not have is Vespa's 400, {@code Could not create query from YQL: Field
 * 'x' does not exist}.
 */
final class YqlWhere {
  /** A translated condition: its query, and whether it scores (matches text). */
  private record Part(Query query, boolean scoring) {}

  /**
   * The translation.
   *
   * @param query the scored query, or null for nearestNeighbor() alone
   * @param knn the kNN searches, in the order of the statement
   * @param embedTexts for each kNN search, the text the server embeds into its vector, or null when
   *     the request gave the vector
   * @param scoring whether the query matches text
   * @param approximate false when a nearestNeighbor() asks for an exact search
   */
  record Result(
      Query query, List<Knn> knn, List<String> embedTexts, boolean scoring, boolean approximate) {}

  private final String yql;
  private final Mapping mapping;
  private final Map<String, JsonNode> params;
  private final int rescoreWindow;
  private final List<Knn> knn = new ArrayList<>();
  private final List<String> embedTexts = new ArrayList<>();
  private boolean approximate = true;
  private boolean scoring;

  private YqlWhere(String yql, Mapping mapping, Map<String, JsonNode> params, int rescoreWindow) {
    this.yql = yql;
    this.mapping = mapping;
    this.params = params;
    this.rescoreWindow = rescoreWindow;
  }

  /**
   * Translates {@code where}.
   *
   * @param params the request's parameters ({@code query}, {@code model.*}, query tensors, the
   *     values of {@code @name} references)
   * @param rescoreWindow the kNN searches' rescoring window (0: the store's default)
   */
  static Result translate(
      String yql, Yql where, Mapping mapping, Map<String, JsonNode> params, int rescoreWindow) {
    YqlWhere w = new YqlWhere(yql, mapping, params, rescoreWindow);
    Query q = w.top(where);
    return new Result(q, List.copyOf(w.knn), w.embedTexts, w.scoring, w.approximate);
  }

  private Query top(Yql where) {
    List<Yql> conjuncts = new ArrayList<>();
    conjuncts(where, conjuncts);
    Yql retrieval = null;
    List<Yql> others = new ArrayList<>();
    for (Yql c : conjuncts) {
      if (hasNearestNeighbor(c)) {
        if (retrieval != null) {
          throw new YqlException(
              yql,
              c.column(),
              "only one part with nearestNeighbor() (alone, or in an 'or' with other retrieval"
                  + " parts) may appear in the top-level 'and'");
        }
        retrieval = c;
      } else {
        others.add(c);
      }
    }
    if (retrieval == null) {
      Part p = part(where);
      scoring = p.scoring();
      return p.query();
    }
    // The and-ed conditions filter every part of the retrieval, as in Vespa.
    Part rest = and(others);
    if (rest.scoring()) {
      throw new YqlException(
          yql,
          retrieval.column(),
          "nearestNeighbor() may be and-ed with filters only; a text condition beside it would"
              + " intersect the two, which is not supported (join them with 'or' for a hybrid"
              + " search)");
    }
    List<Query> filters = filterClauses(rest.query());
    Query filter =
        filters.isEmpty()
            ? Query.MatchAll.INSTANCE
            : filters.size() == 1
                ? filters.get(0)
                : new Query.Bool(List.of(), filters, List.of(), List.of(), null, 1f);
    List<Yql> alternatives = retrieval instanceof Yql.Or or ? or.terms() : List.of(retrieval);
    List<Yql> lexical = new ArrayList<>();
    for (Yql a : alternatives) {
      if (a instanceof Yql.NearestNeighbor nn) {
        nearestNeighbor(nn, filter);
      } else if (hasNearestNeighbor(a)) {
        throw nestedNearestNeighbor(a);
      } else {
        lexical.add(a);
      }
    }
    if (lexical.isEmpty()) {
      return null;
    }
    Part p = lexical.size() == 1 ? part(lexical.get(0)) : or(lexical);
    scoring = p.scoring();
    // Beside the kNN searches, a filter alternative adds its matches with score 0.
    Query q = p.scoring() ? p.query() : zeroScore(p.query());
    return Query.Bool.filtered(q, filters);
  }

  /** The terms of {@code y}'s top-level {@code and}, nested ones ({@code a and (b and c)}) flat. */
  private static void conjuncts(Yql y, List<Yql> out) {
    if (y instanceof Yql.And a) {
      for (Yql t : a.terms()) {
        conjuncts(t, out);
      }
    } else {
      out.add(y);
    }
  }

  /** The filter clauses of a non-scoring query: its {@code bool} filters, or itself. */
  private static List<Query> filterClauses(Query q) {
    if (q instanceof Query.MatchAll m && m.boost() == 1f) {
      return List.of();
    }
    if (q instanceof Query.Bool b
        && b.must().isEmpty()
        && b.should().isEmpty()
        && b.mustNot().isEmpty()
        && b.boost() == 1f) {
      return b.filter();
    }
    return List.of(q);
  }

  private static boolean hasNearestNeighbor(Yql y) {
    return switch (y) {
      case Yql.NearestNeighbor n -> true;
      case Yql.And a -> a.terms().stream().anyMatch(YqlWhere::hasNearestNeighbor);
      case Yql.Or o -> o.terms().stream().anyMatch(YqlWhere::hasNearestNeighbor);
      case Yql.WeakAnd w -> w.terms().stream().anyMatch(YqlWhere::hasNearestNeighbor);
      case Yql.Rank r -> r.terms().stream().anyMatch(YqlWhere::hasNearestNeighbor);
      case Yql.Not n -> hasNearestNeighbor(n.term());
      default -> false;
    };
  }

  private YqlException nestedNearestNeighbor(Yql at) {
    return new YqlException(
        yql,
        at.column(),
        "nearestNeighbor() may appear only at the top level: alone, in the top-level 'and' beside"
            + " filters, or in one 'or' beside other nearestNeighbor() and text conditions");
  }

  private Part part(Yql y) {
    return switch (y) {
      case Yql.And a -> and(a.terms());
      case Yql.Or o -> or(o.terms());
      case Yql.WeakAnd w -> {
        for (String k : w.annotations().keySet()) {
          if (!k.equals("targetHits") && !k.equals("targetNumHits")) {
            throw new YqlException(
                yql, w.column(), "annotation '" + k + "' of weakAnd() is not supported");
          }
        }
        yield or(w.terms());
      }
      case Yql.Rank r -> rank(r);
      case Yql.Not n ->
          new Part(
              new Query.Bool(
                  List.of(),
                  List.of(Query.MatchAll.INSTANCE),
                  List.of(),
                  List.of(part(n.term()).query()),
                  null,
                  1f),
              false);
      case Yql.True t -> new Part(Query.MatchAll.INSTANCE, false);
      case Yql.False f -> new Part(Query.MatchNone.INSTANCE, false);
      case Yql.UserQuery u -> {
        JsonNode q = params.get("query");
        if (q == null) {
          throw new YqlException(
              yql, u.column(), "userQuery() needs the 'query' parameter, which is missing");
        }
        yield userText(Json.string(q, "query"), defaultIndex(), grammar(), u.column());
      }
      case Yql.UserInput u -> {
        String index = defaultIndex();
        String grammar = grammar();
        for (Map.Entry<String, Object> a : u.annotations().entrySet()) {
          switch (a.getKey()) {
            case "defaultIndex" -> index = stringAnnotation(a, u.column());
            case "grammar" -> grammar = stringAnnotation(a, u.column());
            default ->
                throw new YqlException(
                    yql,
                    u.column(),
                    "annotation '"
                        + a.getKey()
                        + "' of userInput() is not supported; use defaultIndex, grammar");
          }
        }
        yield userText(string(u.text(), u.column()), index, grammar, u.column());
      }
      case Yql.NearestNeighbor n -> throw nestedNearestNeighbor(n);
      case Yql.Contains c -> contains(c);
      case Yql.Compare c -> compare(c);
      case Yql.Range r -> range(r);
      case Yql.In in -> in(in);
    };
  }

  private Part and(List<Yql> terms) {
    List<Query> must = new ArrayList<>();
    List<Query> filter = new ArrayList<>();
    List<Query> mustNot = new ArrayList<>();
    for (Yql t : terms) {
      if (t instanceof Yql.Not n) {
        mustNot.add(part(n.term()).query());
        continue;
      }
      Part p = part(t);
      if (p.scoring()) {
        must.add(p.query());
      } else if (!(p.query() instanceof Query.MatchAll m && m.boost() == 1f)) {
        filter.addAll(filterClauses(p.query()));
      }
    }
    filter = fold(filter);
    if (must.size() == 1 && filter.isEmpty() && mustNot.isEmpty()) {
      return new Part(must.get(0), true);
    }
    if (must.isEmpty() && mustNot.isEmpty()) {
      if (filter.isEmpty()) {
        return new Part(Query.MatchAll.INSTANCE, false);
      }
      if (filter.size() == 1) {
        return new Part(filter.get(0), false);
      }
    }
    if (must.isEmpty() && filter.isEmpty()) {
      filter = List.of(Query.MatchAll.INSTANCE); // only negations: all documents but those
    }
    return new Part(new Query.Bool(must, filter, List.of(), mustNot, null, 1f), !must.isEmpty());
  }

  private Part or(List<Yql> terms) {
    List<Part> parts = new ArrayList<>();
    boolean anyScoring = false;
    for (Yql t : terms) {
      Part p = part(t);
      parts.add(p);
      anyScoring |= p.scoring();
    }
    List<Query> should = new ArrayList<>();
    for (Part p : parts) {
      should.add(anyScoring && !p.scoring() ? zeroScore(p.query()) : p.query());
    }
    return new Part(new Query.Bool(List.of(), List.of(), should, List.of(), null, 1f), anyScoring);
  }

  private Part rank(Yql.Rank r) {
    Part first = part(r.terms().get(0));
    if (r.terms().size() == 1) {
      return first;
    }
    List<Query> should = new ArrayList<>();
    boolean anyScoring = first.scoring();
    for (Yql t : r.terms().subList(1, r.terms().size())) {
      Part p = part(t);
      anyScoring |= p.scoring();
      should.add(p.scoring() ? p.query() : zeroScore(p.query()));
    }
    return new Part(
        new Query.Bool(
            first.scoring() ? List.of(first.query()) : List.of(),
            first.scoring() ? List.of() : List.of(first.query()),
            should,
            List.of(),
            null,
            1f),
        anyScoring);
  }

  /** {@code q} scoring 0: a {@code bool} of it as a filter (itself when it is one already). */
  private static Query zeroScore(Query q) {
    if (q instanceof Query.Bool b
        && b.must().isEmpty()
        && b.should().isEmpty()
        && !b.filter().isEmpty()) {
      return q;
    }
    return new Query.Bool(List.of(), List.of(q), List.of(), List.of(), null, 1f);
  }

  // ----------------------------------------------------------------------------------------------
  // Text

  private String defaultIndex() {
    for (String name :
        List.of("model.defaultIndex", "model.default-index", "defaultIndex", "default-index")) {
      JsonNode v = params.get(name);
      if (v != null) {
        return Json.string(v, name);
      }
    }
    return null;
  }

  private String grammar() {
    for (String name : List.of("model.type", "type")) {
      JsonNode v = params.get(name);
      if (v != null) {
        return Json.string(v, name);
      }
    }
    return "weakAnd";
  }

  private String stringAnnotation(Map.Entry<String, Object> a, int column) {
    if (!(a.getValue() instanceof String s)) {
      throw new YqlException(yql, column, "annotation '" + a.getKey() + "' must be a string");
    }
    return s;
  }

  private Part userText(String text, String index, String grammar, int column) {
    Query.Operator op =
        switch (grammar.toLowerCase(Locale.ROOT)) {
          case "weakand", "any" -> Query.Operator.OR;
          case "all" -> Query.Operator.AND;
          default ->
              throw new InvalidRequestException(
                  "query type '" + grammar + "' is not supported; use weakAnd, any or all");
        };
    if (index != null && !index.equals("default")) {
      field(index);
      return new Part(new Query.Match(index, text, op, null, 1f), true);
    }
    return new Part(defaultFieldset(text, op, column), true);
  }

  /** Best-fields over the mapping's indexed text fields, tie breaker 0. */
  private Query defaultFieldset(String text, Query.Operator op, int column) {
    List<Query.FieldBoost> fields = new ArrayList<>();
    for (Map.Entry<String, FieldType> e : mapping.leaves().entrySet()) {
      if (e.getValue() instanceof FieldType.Text t && t.indexed()) {
        fields.add(new Query.FieldBoost(e.getKey(), 1f));
      }
    }
    if (fields.isEmpty()) {
      throw new YqlException(
          yql, column, "the default fieldset is empty: the mapping has no indexed text field");
    }
    return new Query.MultiMatch(text, fields, Query.MultiMatchType.BEST_FIELDS, 0f, op, null, 1f);
  }

  private Part contains(Yql.Contains c) {
    String s = string(c.value(), c.column());
    Query.Operator op = c.text() ? Query.Operator.OR : Query.Operator.AND;
    if (c.field().equals("default") && mapping.field("default") == null) {
      return new Part(defaultFieldset(s, op, c.column()), true);
    }
    FieldType f = field(c.field());
    return switch (f) {
      case FieldType.Text t -> new Part(new Query.Match(c.field(), s, op, null, 1f), true);
      case FieldType.Keyword k -> new Part(Query.Term.of(c.field(), s), false);
      case FieldType.Numeric n -> new Part(Query.Term.of(c.field(), s), false);
      case FieldType.Date d -> new Part(Query.Term.of(c.field(), s), false);
      case FieldType.Bool b -> new Part(Query.Term.of(c.field(), s), false);
      default ->
          throw new YqlException(
              yql,
              c.column(),
              "field '"
                  + c.field()
                  + "' is a "
                  + f.esName()
                  + " field; 'contains' cannot search it");
    };
  }

  // ----------------------------------------------------------------------------------------------
  // Values

  private Part compare(Yql.Compare c) {
    FieldType f = field(c.field());
    if (c.op().equals("=")) {
      if (c.value() instanceof BigDecimal v) {
        // On an integer field, the range [v, v]: the same documents, and it folds with the
        // field's other bounds (a fraction or a value beyond the type matches nothing).
        Query.Range r = new Query.Range(c.field(), null, v, null, v, null, 1f);
        Query q = integral(f, r);
        if (q != r) {
          return new Part(q, false);
        }
      }
      return new Part(Query.Term.of(c.field(), c.value()), false);
    }
    BigDecimal v = (BigDecimal) c.value();
    Query.Range r =
        switch (c.op()) {
          case "<" -> new Query.Range(c.field(), null, null, v, null, null, 1f);
          case "<=" -> new Query.Range(c.field(), null, null, null, v, null, 1f);
          case ">" -> new Query.Range(c.field(), v, null, null, null, null, 1f);
          default -> new Query.Range(c.field(), null, v, null, null, null, 1f);
        };
    return new Part(integral(f, r), false);
  }

  private Part range(Yql.Range r) {
    FieldType f = field(r.field());
    BigDecimal lo = r.low();
    BigDecimal hi = r.high();
    Query.Range q =
        new Query.Range(
            r.field(),
            r.lowInclusive() ? null : lo,
            r.lowInclusive() ? lo : null,
            r.highInclusive() ? null : hi,
            r.highInclusive() ? hi : null,
            null,
            1f);
    return new Part(integral(f, q), false);
  }

  private Part in(Yql.In in) {
    field(in.field());
    List<Object> values = new ArrayList<>();
    for (Yql.Value v : in.values()) {
      if (v.param() != null) {
        for (String s : string(v, in.column()).split(",")) {
          String t = s.trim();
          if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
            t = t.substring(1, t.length() - 1);
          }
          if (!t.isEmpty()) {
            values.add(t);
          }
        }
      } else {
        values.add(v.literal());
      }
    }
    return new Part(new Query.Terms(in.field(), values, 1f), false);
  }

  /**
   * A range on an integer field as one inclusive range of longs within the type's bounds ({@code
   * price < 10} is {@code [MIN_INT, 9]}), so that ranges fold and the benchmark's stores recognise
   * a price filter; other ranges as given.
   */
  private static Query integral(FieldType f, Query.Range r) {
    if (!(f instanceof FieldType.Numeric n) || !n.type().integral()) {
      return r;
    }
    FieldValues.LongBounds b = (FieldValues.LongBounds) FieldValues.range(f, r);
    return inclusive(r.field(), n.type(), b.min(), b.max());
  }

  private static Query.Range inclusive(String field, NumberType type, long min, long max) {
    long lo = Math.max(min, typeMin(type));
    long hi = Math.min(max, typeMax(type));
    if (lo > hi) {
      lo = 1; // empty, as Filter.PriceRange.EMPTY writes it
      hi = 0;
    }
    return new Query.Range(field, null, lo, null, hi, null, 1f);
  }

  private static long typeMin(NumberType t) {
    return switch (t) {
      case INTEGER -> Integer.MIN_VALUE;
      case SHORT -> Short.MIN_VALUE;
      case BYTE -> Byte.MIN_VALUE;
      default -> Long.MIN_VALUE;
    };
  }

  private static long typeMax(NumberType t) {
    return switch (t) {
      case INTEGER -> Integer.MAX_VALUE;
      case SHORT -> Short.MAX_VALUE;
      case BYTE -> Byte.MAX_VALUE;
      default -> Long.MAX_VALUE;
    };
  }

  /** The filters with the inclusive ranges on each integer field intersected into the first. */
  private List<Query> fold(List<Query> filters) {
    List<Query> out = new ArrayList<>();
    for (Query q : filters) {
      if (q instanceof Query.Range r
          && r.gte() instanceof Long lo
          && r.lte() instanceof Long hi
          && mapping.leaf(r.field()) instanceof FieldType.Numeric n
          && n.type().integral()) {
        int at = -1;
        for (int i = 0; i < out.size(); i++) {
          if (out.get(i) instanceof Query.Range o && o.field().equals(r.field())) {
            at = i;
          }
        }
        if (at >= 0) {
          Query.Range o = (Query.Range) out.get(at);
          long oLo = (Long) o.gte();
          long oHi = (Long) o.lte();
          boolean oEmpty = oLo > oHi;
          out.set(
              at,
              oEmpty || lo > hi
                  ? inclusive(r.field(), n.type(), 1, 0)
                  : inclusive(r.field(), n.type(), Math.max(lo, oLo), Math.min(hi, oHi)));
          continue;
        }
      }
      out.add(q);
    }
    return out;
  }

  // ----------------------------------------------------------------------------------------------
  // nearestNeighbor()

  private void nearestNeighbor(Yql.NearestNeighbor nn, Query filter) {
    FieldType f = field(nn.field());
    if (!(f instanceof FieldType.DenseVector vector)) {
      throw new YqlException(
          yql,
          nn.column(),
          "nearestNeighbor field '" + nn.field() + "' is a " + f.esName() + " field, not a tensor");
    }
    String name = "input.query(" + nn.queryTensor() + ")";
    JsonNode tensor = params.get(name);
    if (tensor == null) {
      tensor = params.get("ranking.features.query(" + nn.queryTensor() + ")");
    }
    if (tensor == null) {
      throw new YqlException(
          yql, nn.column(), "nearestNeighbor needs the query tensor parameter '" + name + "'");
    }
    Object v = QueryTensor.parse(tensor, name, params);
    Integer target = null;
    int explore = 0;
    Float similarity = null;
    for (Map.Entry<String, Object> a : nn.annotations().entrySet()) {
      Object value = a.getValue();
      switch (a.getKey()) {
        case "targetHits", "targetNumHits" -> target = intAnnotation(nn, a.getKey(), value, 1);
        case "hnsw.exploreAdditionalHits" -> explore = intAnnotation(nn, a.getKey(), value, 0);
        case "approximate" -> {
          if (!(value instanceof Boolean bool)) {
            throw new YqlException(
                yql, nn.column(), "annotation 'approximate' must be true or false");
          }
          approximate &= bool;
        }
        case "distanceThreshold" -> {
          if (!(value instanceof Number d) || !Double.isFinite(d.doubleValue())) {
            throw new YqlException(
                yql, nn.column(), "annotation 'distanceThreshold' must be a number");
          }
          similarity = similarity(vector, d.doubleValue());
        }
        case "label" -> {}
        default ->
            throw new YqlException(
                yql,
                nn.column(),
                "annotation '"
                    + a.getKey()
                    + "' is not supported; use targetHits, approximate, hnsw.exploreAdditionalHits,"
                    + " distanceThreshold, label");
      }
    }
    if (target == null) {
      throw new YqlException(
          yql, nn.column(), "nearestNeighbor needs the annotation {targetHits: N}");
    }
    knn.add(
        new Knn(
            nn.field(),
            v instanceof float[] floats ? floats : null,
            target,
            target + explore,
            filter,
            similarity,
            1f,
            rescoreWindow));
    embedTexts.add(v instanceof String s ? s : null);
  }

  /**
   * The least similarity a neighbour within Vespa's {@code distanceThreshold} has, in the field's
   * similarity (Elasticsearch's kNN {@code similarity}): the distance itself for {@code l2_norm};
   * for {@code cosine} the cosine of the angle (Vespa's angular distance); for {@code dot_product}
   * {@code 1 − d} (Vespa's prenormalized-angular); for {@code max_inner_product} {@code −d}
   * (Vespa's dotproduct distance).
   */
  static float similarity(FieldType.DenseVector v, double d) {
    return (float)
        switch (v.similarity()) {
          case L2_NORM -> d;
          case COSINE -> Math.cos(d);
          case DOT_PRODUCT -> 1 - d;
          case MAX_INNER_PRODUCT -> -d;
        };
  }

  private int intAnnotation(Yql.NearestNeighbor nn, String key, Object v, int min) {
    if (!(v instanceof Long l) || l < min || l > SearchRequest.MAX_CANDIDATES) {
      throw new YqlException(
          yql,
          nn.column(),
          "annotation '"
              + key
              + "' is "
              + v
              + "; expected an integer in ["
              + min
              + ", "
              + SearchRequest.MAX_CANDIDATES
              + "]");
    }
    return l.intValue();
  }

  // ----------------------------------------------------------------------------------------------

  /** The mapped leaf at {@code name}; Vespa's 400 when there is none. */
  private FieldType field(String name) {
    FieldType f = mapping.leaf(name);
    if (f == null) {
      throw new InvalidRequestException(
          "Could not create query from YQL: Field '" + name + "' does not exist");
    }
    return f;
  }

  private String string(Yql.Value v, int column) {
    if (v.param() == null) {
      return v.literal().toString();
    }
    JsonNode p = params.get(v.param());
    if (p == null) {
      throw new YqlException(
          yql, column, "'@" + v.param() + "' refers to a parameter the request does not have");
    }
    return p.isTextual() ? p.asText() : p.toString();
  }
}
