package org.searchlab.server.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.searchlab.server.es.EsParse.query;
import static org.searchlab.server.es.EsParse.refusedQuery;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.Query.Bool;
import org.searchlab.core.query.Query.FieldBoost;
import org.searchlab.core.query.Query.Match;
import org.searchlab.core.query.Query.MultiMatch;
import org.searchlab.core.query.Query.MultiMatchType;
import org.searchlab.core.query.Query.Operator;
import org.searchlab.core.query.Query.Range;
import org.searchlab.core.query.Query.Term;
import org.searchlab.core.query.Script;

/**
 * The query DSL, clause by clause: the exact {@link Query} each Elasticsearch construct becomes,
 * and each refusal's status, type and reason (naming where in the body, the value and the limit).
 */
class EsQueryParserTest {
  private static final Query TERM = Term.of("category", "shoes");

  @Test
  void matchAllAndMatchNone() {
    assertSame(Query.MatchAll.INSTANCE, query("{\"match_all\":{}}"));
    assertEquals(new Query.MatchAll(2.5f), query("{\"match_all\":{\"boost\":2.5}}"));
    assertEquals(new Query.MatchAll(2f), query("{\"match_all\":{\"boost\":\"2\"}}"));
    assertSame(Query.MatchNone.INSTANCE, query("{\"match_none\":{}}"));
    refusedQuery("{\"match_all\":{\"boost\":-1}}").illegal("[query.match_all.boost]", "-1");
    refusedQuery("{\"match_all\":{\"_name\":\"x\"}}").illegal("[query.match_all._name]");
    refusedQuery("{\"match_all\":{\"x\":1}}").parsing("unknown key [x] in [query.match_all]");
    refusedQuery("{\"match_all\":[]}").parsing("[query.match_all] must be a JSON object");
  }

  @Test
  void matchShortAndLongForms() {
    assertEquals(Match.of("title", "red shoe"), query("{\"match\":{\"title\":\"red shoe\"}}"));
    assertEquals(Match.of("price", "12"), query("{\"match\":{\"price\":12}}"));
    assertEquals(Match.of("in_stock", "true"), query("{\"match\":{\"in_stock\":true}}"));
    assertEquals(Match.of("text", "red"), query("{\"match\":{\"text\":{\"query\":\"red\"}}}"));
    assertEquals(
        new Match("title", "red shoe", Operator.AND, "75%", 2f),
        query(
            """
            {"match":{"title":{"query":"red shoe","operator":"AND","minimum_should_match":"75%",
              "boost":2,"zero_terms_query":"none","lenient":false,
              "auto_generate_synonyms_phrase_query":false}}}"""));
    assertEquals(
        new Match("title", "a b c", Operator.OR, "2", 1f),
        query("{\"match\":{\"title\":{\"query\":\"a b c\",\"minimum_should_match\":2}}}"));
    assertEquals(
        Match.of("metadata.category.keyword", "x"),
        query("{\"match\":{\"metadata.category.keyword\":\"x\"}}"));
  }

  @Test
  void matchRefusesWhatItCannotHonour() {
    refusedQuery("{\"match\":{\"title\":{\"query\":\"x\",\"analyzer\":\"standard\"}}}")
        .illegal("[query.match.title.analyzer] is not supported");
    refusedQuery("{\"match\":{\"title\":{\"query\":\"x\",\"fuzziness\":\"AUTO\"}}}")
        .illegal("[query.match.title.fuzziness] is not supported");
    refusedQuery("{\"match\":{\"title\":{\"query\":\"x\",\"zero_terms_query\":\"all\"}}}")
        .illegal("[query.match.title.zero_terms_query] [all] is not supported");
    refusedQuery("{\"match\":{\"title\":{\"query\":\"x\",\"zero_terms_query\":\"some\"}}}")
        .illegal("[query.match.title.zero_terms_query] [some] is not supported", "all or none");
    refusedQuery("{\"match\":{\"title\":{\"query\":\"x\",\"lenient\":true}}}")
        .illegal("[query.match.title.lenient] true is not supported");
    refusedQuery("{\"match\":{\"title\":{\"query\":\"x\",\"operator\":\"xor\"}}}")
        .illegal("[query.match.title.operator] [xor] is not supported", "and or or");
    refusedQuery("{\"match\":{\"title\":{\"query\":\"x\",\"minimum_should_match\":\"3<90%\"}}}")
        .illegal("[minimum_should_match] [3<90%] is not supported");
    refusedQuery("{\"match\":{\"title\":{\"query\":\"x\",\"slop\":1}}}")
        .illegal("[query.match.title.slop] is not supported");
    refusedQuery("{\"match\":{\"title\":{\"query\":\"x\",\"bogus\":1}}}")
        .parsing("unknown key [bogus] in [query.match.title]", "supported: ");
    refusedQuery("{\"match\":{\"title\":{\"operator\":\"and\"}}}")
        .illegal("[query.match.title] requires [query]");
    refusedQuery("{\"match\":{\"title\":\"a\",\"description\":\"b\"}}")
        .parsing("[query.match] does not support multiple fields, found [title] and [description]");
    refusedQuery("{\"match\":{}}").parsing("[query.match] names no field");
    refusedQuery("{\"match\":{\"title\":null}}").illegal("[query.match.title] must be a string");
    refusedQuery("{\"match\":{\"title\":[\"a\"]}}").illegal("[query.match.title] must be a string");
  }

  @Test
  void multiMatchFieldsBoostsWildcardsAndTypes() {
    assertEquals(
        MultiMatch.bestFields("red shoe", List.of("title", "description")),
        query(
            "{\"multi_match\":{\"query\":\"red shoe\",\"fields\":[\"title\",\"description\"],"
                + "\"type\":\"best_fields\"}}"));
    assertEquals(
        new MultiMatch(
            "red",
            List.of(new FieldBoost("title", 2.5f), new FieldBoost("desc*", 1f)),
            MultiMatchType.BEST_FIELDS,
            0.3f,
            Operator.AND,
            "1",
            1.5f),
        query(
            """
            {"multi_match":{"query":"red","fields":["title^2.5","desc*"],"tie_breaker":0.3,
              "operator":"and","minimum_should_match":1,"boost":1.5}}"""));
    assertEquals(
        new MultiMatch(
            "red",
            List.of(new FieldBoost("*", 1f)),
            MultiMatchType.BEST_FIELDS,
            0f,
            Operator.OR,
            null,
            1f),
        query("{\"multi_match\":{\"query\":\"red\"}}"),
        "no fields: index.query.default_field, *");
    assertEquals(
        query("{\"multi_match\":{\"query\":\"red\"}}"),
        query("{\"multi_match\":{\"query\":\"red\",\"fields\":[]}}"));
    assertEquals(
        new MultiMatch(
            "red",
            List.of(new FieldBoost("title", 3f)),
            MultiMatchType.BEST_FIELDS,
            0f,
            Operator.OR,
            null,
            1f),
        query("{\"multi_match\":{\"query\":\"red\",\"fields\":\"title^3\"}}"));
    assertEquals(
        new MultiMatch(
            "red",
            List.of(new FieldBoost("title", 1f), new FieldBoost("description", 1f)),
            MultiMatchType.MOST_FIELDS,
            1f,
            Operator.OR,
            null,
            1f),
        query(
            "{\"multi_match\":{\"query\":\"red\",\"fields\":[\"title\",\"description\"],"
                + "\"type\":\"most_fields\"}}"));
    // Elasticsearch runs most_fields as dis_max(tie 1); an explicit tie_breaker replaces the 1.
    assertEquals(
        new MultiMatch(
            "red",
            List.of(new FieldBoost("title", 1f), new FieldBoost("description", 1f)),
            MultiMatchType.BEST_FIELDS,
            0.25f,
            Operator.OR,
            null,
            1f),
        query(
            "{\"multi_match\":{\"query\":\"red\",\"fields\":[\"title\",\"description\"],"
                + "\"type\":\"most_fields\",\"tie_breaker\":0.25}}"));
    assertEquals(
        MultiMatchType.MOST_FIELDS,
        ((MultiMatch)
                query(
                    "{\"multi_match\":{\"query\":\"red\",\"type\":\"most_fields\","
                        + "\"tie_breaker\":1}}"))
            .type());
  }

  @Test
  void multiMatchRefusals() {
    refusedQuery("{\"multi_match\":{\"query\":\"x\",\"type\":\"phrase\"}}")
        .illegal(
            "[query.multi_match.type] [phrase] is not supported", "best_fields or most_fields");
    refusedQuery("{\"multi_match\":{\"query\":\"x\",\"type\":\"cross_fields\"}}")
        .illegal("[cross_fields] is not supported");
    refusedQuery("{\"multi_match\":{\"query\":\"x\",\"tie_breaker\":1.5}}")
        .illegal("[query.multi_match.tie_breaker] 1.5 is outside [0, 1]");
    refusedQuery("{\"multi_match\":{\"query\":\"x\",\"fields\":[\"title^x\"]}}")
        .illegal("[query.multi_match.fields[0]] title^x: the boost is not a number");
    refusedQuery("{\"multi_match\":{\"query\":\"x\",\"fields\":[\"title^-1\"]}}")
        .illegal("the boost must be finite and ≥ 0");
    refusedQuery("{\"multi_match\":{\"query\":\"x\",\"fields\":[\"^2\"]}}")
        .illegal("names no field");
    refusedQuery("{\"multi_match\":{\"query\":\"x\",\"fields\":[1]}}")
        .illegal("[query.multi_match.fields[0]] must be a string");
    refusedQuery("{\"multi_match\":{\"query\":\"x\",\"fields\":{}}}")
        .illegal("[query.multi_match.fields] must be a field name or an array of them");
    refusedQuery("{\"multi_match\":{\"fields\":[\"title\"]}}")
        .illegal("[query.multi_match] requires [query]");
    refusedQuery("{\"multi_match\":{\"query\":\"x\",\"analyzer\":\"standard\"}}")
        .illegal("[query.multi_match.analyzer] is not supported");
    StringBuilder many = new StringBuilder("{\"multi_match\":{\"query\":\"x\",\"fields\":[");
    for (int i = 0; i < 1025; i++) {
      many.append(i == 0 ? "" : ",").append("\"f").append(i).append('"');
    }
    refusedQuery(many.append("]}}").toString())
        .illegal("[query.multi_match.fields] has 1025 clauses; the limit is 1024");
  }

  @Test
  void termAndTerms() {
    assertEquals(TERM, query("{\"term\":{\"category\":\"shoes\"}}"));
    assertEquals(Term.of("price", 12L), query("{\"term\":{\"price\":12}}"));
    assertEquals(Term.of("rating", 4.5), query("{\"term\":{\"rating\":4.5}}"));
    assertEquals(Term.of("in_stock", true), query("{\"term\":{\"in_stock\":true}}"));
    assertEquals(
        Term.of("big", new BigDecimal("123456789012345678901234567890")),
        query("{\"term\":{\"big\":123456789012345678901234567890}}"));
    assertEquals(
        new Term("category", "shoes", 2f),
        query(
            "{\"term\":{\"category\":{\"value\":\"shoes\",\"boost\":2,"
                + "\"case_insensitive\":false}}}"));
    assertEquals(
        new Query.Terms("category", List.of("shoes", "games", 7L), 1.5f),
        query("{\"terms\":{\"category\":[\"shoes\",\"games\",7],\"boost\":1.5}}"));
    assertEquals(
        new Query.Terms("category", List.of(), 1f), query("{\"terms\":{\"category\":[]}}"));

    refusedQuery("{\"term\":{\"category\":{\"value\":\"x\",\"case_insensitive\":true}}}")
        .illegal("[query.term.category.case_insensitive] true is not supported");
    refusedQuery("{\"term\":{\"category\":[\"a\",\"b\"]}}")
        .parsing("[query.term.category]: a [term] query takes one value; use [terms]");
    refusedQuery("{\"term\":{\"category\":null}}")
        .illegal("[query.term.category] must have a value, got null");
    refusedQuery("{\"term\":{\"category\":{\"boost\":2}}}")
        .illegal("[query.term.category] requires [value]");
    refusedQuery("{\"term\":{\"category\":{\"value\":{}}}}")
        .parsing("[query.term.category.value] must be a single value");
    refusedQuery("{\"term\":{\"a\":1,\"b\":2}}")
        .parsing("[query.term] does not support multiple fields, found [a] and [b]");
    refusedQuery("{\"terms\":{\"category\":{\"index\":\"i\",\"id\":\"1\",\"path\":\"p\"}}}")
        .illegal("[query.terms.category]: a terms lookup", "is not supported");
    refusedQuery("{\"terms\":{\"category\":\"shoes\"}}")
        .parsing("[query.terms.category] must be an array of values");
    refusedQuery("{\"terms\":{\"category\":[null]}}")
        .illegal("[query.terms.category[0]] must have a value");
    StringBuilder many = new StringBuilder("{\"terms\":{\"category\":[");
    for (int i = 0; i <= EsQueryParser.MAX_TERMS; i++) {
      many.append(i == 0 ? "" : ",").append(i);
    }
    refusedQuery(many.append("]}}").toString())
        .illegal(
            "[query.terms.category] has 65537 values; the limit is 65536 (index.max_terms_count)");
  }

  @Test
  void rangeBoundsInEveryForm() {
    assertEquals(
        new Range("price", 10L, null, null, 400L, null, 1f),
        query("{\"range\":{\"price\":{\"gt\":10,\"lte\":400}}}"));
    assertEquals(
        new Range("price", null, "10", "20.5", null, null, 2f),
        query("{\"range\":{\"price\":{\"gte\":\"10\",\"lt\":\"20.5\",\"boost\":2}}}"));
    assertEquals(
        new Range("price", null, 1.5, null, 1e20, null, 1f),
        query("{\"range\":{\"price\":{\"gte\":1.5,\"lte\":1e20}}}"),
        "a JSON fraction or exponent stays a double; core reads it exactly");
    assertEquals(
        new Range(
            "price",
            9223372036854775807L,
            null,
            new BigDecimal("9223372036854775808"),
            null,
            null,
            1f),
        query(
            "{\"range\":{\"price\":{\"gt\":9223372036854775807,"
                + "\"lt\":9223372036854775808}}}"));
    assertEquals(
        new Range("released", null, "2020-01-01", "2021-01-01", null, "yyyy-MM-dd", 1f),
        query(
            "{\"range\":{\"released\":{\"gte\":\"2020-01-01\",\"lt\":\"2021-01-01\","
                + "\"format\":\"yyyy-MM-dd\",\"time_zone\":\"UTC\",\"relation\":\"intersects\"}}}"));
    assertEquals(
        new Range("released", null, 1577836800000L, null, null, null, 1f),
        query("{\"range\":{\"released\":{\"gte\":1577836800000}}}"));
    // from/to with include_* are read in order, a later key overriding, as Elasticsearch does.
    assertEquals(
        new Range("price", 5L, null, 9L, null, null, 1f),
        query(
            "{\"range\":{\"price\":{\"from\":5,\"to\":9,\"include_lower\":false,"
                + "\"include_upper\":false}}}"));
    assertEquals(
        new Range("price", null, 5L, null, 9L, null, 1f),
        query("{\"range\":{\"price\":{\"from\":5,\"to\":9}}}"));
    assertEquals(
        new Range("price", null, 5L, null, null, null, 1f),
        query("{\"range\":{\"price\":{\"gt\":5,\"include_lower\":true}}}"));
    assertEquals(
        new Range("price", 5L, null, null, null, null, 1f),
        query("{\"range\":{\"price\":{\"gte\":5,\"gt\":5}}}"));
    assertEquals(
        new Range("price", null, null, null, 9L, null, 1f),
        query("{\"range\":{\"price\":{\"gte\":null,\"lte\":9}}}"));
    assertEquals(
        new Range("category", null, "a", "m", null, null, 1f),
        query("{\"range\":{\"category\":{\"gte\":\"a\",\"lt\":\"m\"}}}"));
    assertEquals(
        new Range("price", null, null, null, null, null, 1f), query("{\"range\":{\"price\":{}}}"));

    refusedQuery("{\"range\":{\"price\":{\"gt\":{}}}}")
        .parsing("[query.range.price.gt] must be a single value");
    refusedQuery("{\"range\":{\"price\":{\"gt\":[1]}}}")
        .parsing("[query.range.price.gt] must be a single value");
    refusedQuery("{\"range\":{\"price\":5}}").parsing("[query.range.price] must be a JSON object");
    refusedQuery("{\"range\":{\"price\":{\"gt\":1,\"relation\":\"within\"}}}")
        .illegal("[query.range.price.relation] [within] is not supported");
    refusedQuery("{\"range\":{\"d\":{\"gt\":\"2020-01-01\",\"time_zone\":\"+01:00\"}}}")
        .illegal("[query.range.d.time_zone] [+01:00] is not supported");
    refusedQuery("{\"range\":{\"price\":{\"gt\":1,\"include_lower\":\"maybe\"}}}")
        .illegal("[query.range.price.include_lower] must be true or false");
    refusedQuery("{\"range\":{\"price\":{\"gte\":1,\"lte\":2,\"_name\":\"r\"}}}")
        .illegal("[query.range.price._name] is not supported");
    refusedQuery("{\"range\":{\"price\":{\"above\":1}}}")
        .parsing("unknown key [above] in [query.range.price]");
  }

  @Test
  void existsAndIds() {
    assertEquals(new Query.Exists("category", 1f), query("{\"exists\":{\"field\":\"category\"}}"));
    assertEquals(
        new Query.Exists("metadata.page", 3f),
        query("{\"exists\":{\"field\":\"metadata.page\",\"boost\":3}}"));
    assertEquals(
        new Query.Ids(Set.of("a", "b", "7"), 1f), query("{\"ids\":{\"values\":[\"a\",\"b\",7]}}"));
    assertEquals(
        new Query.Ids(Set.of("a"), 2f), query("{\"ids\":{\"values\":[\"a\"],\"boost\":2}}"));
    refusedQuery("{\"exists\":{}}").illegal("[query.exists.field] must be a string");
    refusedQuery("{\"exists\":{\"field\":\"\"}}").illegal("[query.exists.field] is empty");
    refusedQuery("{\"ids\":{\"values\":\"a\"}}")
        .parsing("[query.ids.values] must be an array of ids");
    refusedQuery("{\"ids\":{\"values\":[{}]}}")
        .illegal("[query.ids.values[0]] must be an id (a string)");
    refusedQuery("{\"ids\":{\"values\":[\"a\"],\"type\":\"_doc\"}}")
        .illegal("[query.ids.type] is not supported");
  }

  @Test
  void boolWithObjectsOrArrays() {
    Query must = Match.of("title", "red");
    Query range = new Range("price", null, 10L, null, null, null, 1f);
    assertEquals(
        new Bool(
            List.of(must),
            List.of(TERM, range),
            List.of(Match.of("description", "wool")),
            List.of(Term.of("category", "games")),
            "1",
            2f),
        query(
            """
            {"bool":{"must":{"match":{"title":"red"}},
              "filter":[{"term":{"category":"shoes"}},{"range":{"price":{"gte":10}}}],
              "should":[{"match":{"description":"wool"}}],
              "must_not":{"term":{"category":"games"}},
              "minimum_should_match":1,"boost":2,"adjust_pure_negative":true}}"""));
    assertEquals(
        new Bool(List.of(), List.of(), List.of(), List.of(), null, 1f), query("{\"bool\":{}}"));
    assertEquals(
        new Bool(List.of(), List.of(), List.of(), List.of(), null, 1f),
        query("{\"bool\":{\"must\":[],\"filter\":[]}}"));

    refusedQuery("{\"bool\":{\"must\":{}}}")
        .parsing("[query.bool.must] must hold exactly one query, got 0 keys");
    refusedQuery("{\"bool\":{\"must\":[{\"match_all\":{}},{\"a\":{},\"b\":{}}]}}")
        .parsing("[query.bool.must[1]] must hold exactly one query, got 2 keys: a, b");
    refusedQuery(
            "{\"bool\":{\"must\":[{\"match\":{\"title\":{\"query\":\"x\",\"analyzer\":\"a\"}}}]}}")
        .illegal("[query.bool.must[0].match.title.analyzer] is not supported");
    refusedQuery("{\"bool\":{\"should\":[],\"adjust_pure_negative\":false}}")
        .illegal("[query.bool.adjust_pure_negative] false is not supported");
    refusedQuery("{\"bool\":{\"must_not_really\":[]}}")
        .parsing("unknown key [must_not_really] in [query.bool]");
    StringBuilder many = new StringBuilder("{\"bool\":{\"should\":[");
    for (int i = 0; i < 1025; i++) {
      many.append(i == 0 ? "" : ",").append("{\"term\":{\"category\":\"c").append(i).append("\"}}");
    }
    refusedQuery(many.append("]}}").toString())
        .illegal("[query.bool.should] has 1025 clauses; the limit is 1024", "max_clause_count");
    StringBuilder split = new StringBuilder("{\"bool\":{\"should\":[");
    for (int i = 0; i < 600; i++) {
      split.append(i == 0 ? "" : ",").append("{\"match_all\":{}}");
    }
    split.append("],\"filter\":[");
    for (int i = 0; i < 600; i++) {
      split.append(i == 0 ? "" : ",").append("{\"match_all\":{}}");
    }
    refusedQuery(split.append("]}}").toString())
        .illegal("[query.bool] has 1200 clauses; the limit is 1024");
  }

  @Test
  void compoundNestingStopsAtTheDepthLimit() {
    assertEquals(30, depthOf(nested(30)));
    refusedQuery(nested(31))
        .parsing(
            "nests compound queries",
            "deeper than the limit of 30",
            "--max-query-depth",
            "indices.query.bool.max_nested_depth");
    refusedQuery(
            "{\"constant_score\":{\"filter\":".repeat(31) + "{\"match_all\":{}}" + "}}".repeat(31))
        .parsing("deeper than the limit of 30");
  }

  private static String nested(int n) {
    return "{\"bool\":{\"filter\":[".repeat(n) + "{\"match_all\":{}}" + "]}}".repeat(n);
  }

  private static int depthOf(String q) {
    Query x = query(q);
    int d = 0;
    while (x instanceof Bool b) {
      d++;
      x = b.filter().get(0);
    }
    return d;
  }

  @Test
  void theParsedTreeIsBounded() {
    // 65 bools of 1,024 clauses each: every list is within max_clause_count, the whole is not.
    StringBuilder inner = new StringBuilder("{\"bool\":{\"should\":[");
    for (int i = 0; i < 1008; i++) {
      inner.append(i == 0 ? "" : ",").append("{\"match_all\":{}}");
    }
    inner.append("]}}");
    StringBuilder outer = new StringBuilder("{\"bool\":{\"filter\":[");
    for (int i = 0; i < 66; i++) {
      outer.append(i == 0 ? "" : ",").append(inner);
    }
    refusedQuery(outer.append("]}}").toString()).illegal("more than 65536 query objects");
  }

  @Test
  void constantScoreAndDisMax() {
    assertEquals(
        new Query.ConstantScore(TERM, 1.5f),
        query(
            "{\"constant_score\":{\"filter\":{\"term\":{\"category\":\"shoes\"}},\"boost\":1.5}}"));
    assertEquals(
        new Query.DisMax(
            List.of(Match.of("title", "red"), Match.of("description", "red")), 0.7f, 2f),
        query(
            """
            {"dis_max":{"queries":[{"match":{"title":"red"}},{"match":{"description":"red"}}],
              "tie_breaker":0.7,"boost":2}}"""));
    assertEquals(
        new Query.DisMax(List.of(TERM), 0f, 1f),
        query("{\"dis_max\":{\"queries\":[{\"term\":{\"category\":\"shoes\"}}]}}"));
    refusedQuery("{\"constant_score\":{\"boost\":2}}")
        .illegal("[query.constant_score] requires [filter]");
    refusedQuery("{\"constant_score\":{\"filter\":[{\"match_all\":{}}]}}")
        .parsing("[query.constant_score.filter] must be a JSON object");
    refusedQuery("{\"dis_max\":{\"queries\":[]}}")
        .illegal("[query.dis_max] requires [queries], an array of at least one query");
    refusedQuery("{\"dis_max\":{\"queries\":[{\"match_all\":{}}],\"tie_breaker\":-0.1}}")
        .illegal("[query.dis_max.tie_breaker] -0.1 is outside [0, 1]");
  }

  @Test
  void scriptScoreThroughCoreScriptParse() {
    double[] qv = {0.6, 0.8};
    Map<String, Object> params = Map.of("query_vector", qv);
    String cosine = "cosineSimilarity(params.query_vector, 'vector') + 1.0";
    assertEquals(
        new Query.ScriptScore(Query.MatchAll.INSTANCE, Script.parse(cosine, params), 0.5f, 2f),
        query(
            """
            {"script_score":{"query":{"match_all":{}},
              "script":{"source":"cosineSimilarity(params.query_vector, 'vector') + 1.0",
                        "params":{"query_vector":[0.6,0.8]},"lang":"painless"},
              "min_score":0.5,"boost":2}}"""));
    assertEquals(
        new Query.ScriptScore(TERM, Script.parse("_score * 2", Map.of()), null, 1f),
        query(
            "{\"script_score\":{\"query\":{\"term\":{\"category\":\"shoes\"}},"
                + "\"script\":\"_score * 2\"}}"));
    refusedQuery("{\"script_score\":{\"script\":{\"source\":\"1\"}}}")
        .illegal("[query.script_score] requires [query]");
    refusedQuery("{\"script_score\":{\"query\":{\"match_all\":{}}}}")
        .illegal("[query.script_score] requires [script]");
    refusedQuery(
            "{\"script_score\":{\"query\":{\"match_all\":{}},"
                + "\"script\":{\"source\":\"1\",\"lang\":\"expression\"}}}")
        .illegal("[query.script_score.script.lang] [expression] is not supported", "painless");
    refusedQuery("{\"script_score\":{\"query\":{\"match_all\":{}},\"script\":{\"id\":\"stored\"}}}")
        .illegal("[query.script_score.script.id] is not supported");
    refusedQuery(
            "{\"script_score\":{\"query\":{\"match_all\":{}},"
                + "\"script\":{\"source\":\"System.exit(0)\"}}}")
        .illegal("System");
    refusedQuery(
            "{\"script_score\":{\"query\":{\"match_all\":{}},"
                + "\"script\":{\"source\":\"dotProduct(params.v, 'e')\",\"params\":{}}}}")
        .illegal("params has no [v]");
  }

  @Test
  void unknownAndMisplacedQueries() {
    refusedQuery("{\"fuzzy\":{\"title\":\"x\"}}")
        .parsing("unknown query type [fuzzy] in [query]", "supported: bool, constant_score");
    refusedQuery("{\"match_phrase\":{\"title\":\"x\"}}")
        .parsing("unknown query type [match_phrase]");
    refusedQuery("{\"bool\":{\"filter\":{\"script\":{\"script\":\"1\"}}}}")
        .parsing("unknown query type [script] in [query.bool.filter]");
    refusedQuery("{\"match_all\":{},\"match_none\":{}}")
        .parsing("[query] must hold exactly one query, got 2 keys");
    refusedQuery("{\"bool\":{\"must\":{\"knn\":{\"field\":\"v\",\"query_vector\":[1]}}}}")
        .illegal("[query.bool.must.knn]: a [knn] query is supported as the whole [query]");
    String longName = "q".repeat(40_000);
    refusedQuery("{\"" + longName + "\":{}}")
        .parsing("unknown query type [qqq", "more characters)");
  }
}
