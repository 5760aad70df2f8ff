package org.searchlab.core.query;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A query over an index's mapped fields: the Elasticsearch query DSL both dialects translate into,
 * and both stores and the exact oracle evaluate with the same matching and the same scores
 * (Lucene's, as Elasticsearch builds each query; see {@code package-info}). Immutable; a {@code
 * boost} multiplies the clause's score and is ≥ 0.
 */
public sealed interface Query {
  /** The clause's score multiplier. */
  float boost();

  /** How the terms of an analysed text combine: any of them, or all of them. */
  enum Operator {
    OR,
    AND
  }

  /** How {@link MultiMatch} combines its fields. */
  enum MultiMatchType {
    /** The best field's score, plus {@code tie_breaker} times the others' (a dis-max). */
    BEST_FIELDS,
    /** The sum of the fields' scores. */
    MOST_FIELDS
  }

  /** Every document, score {@code boost}. */
  record MatchAll(float boost) implements Query {
    public static final MatchAll INSTANCE = new MatchAll(1f);
  }

  /** No document. */
  record MatchNone() implements Query {
    public static final MatchNone INSTANCE = new MatchNone();

    @Override
    public float boost() {
      return 1f;
    }
  }

  /**
   * Full-text match on one field. On a {@code text} field the text is analysed with the field's
   * search analyzer and each token is a term; {@link Operator#OR} sums the matching terms' BM25
   * scores (repeated tokens count again), {@link Operator#AND} requires all. On any other field the
   * whole text is one {@link Term}.
   *
   * @param minimumShouldMatch Elasticsearch's {@code minimum_should_match} ({@code 2}, {@code -1},
   *     {@code 75%}); null for none
   */
  record Match(String field, String text, Operator operator, String minimumShouldMatch, float boost)
      implements Query {
    public Match {
      Objects.requireNonNull(field, "field");
      Objects.requireNonNull(text, "text");
      Objects.requireNonNull(operator, "operator");
    }

    public static Match of(String field, String text) {
      return new Match(field, text, Operator.OR, null, 1f);
    }
  }

  /** A field of {@link MultiMatch} with its boost ({@code "title^2"}). */
  record FieldBoost(String field, float boost) {
    public FieldBoost {
      Objects.requireNonNull(field, "field");
    }
  }

  /**
   * The same text matched on several fields, each as {@link Match} with the field's boost, then
   * combined by {@code type}.
   */
  record MultiMatch(
      String text,
      List<FieldBoost> fields,
      MultiMatchType type,
      float tieBreaker,
      Operator operator,
      String minimumShouldMatch,
      float boost)
      implements Query {
    public MultiMatch {
      Objects.requireNonNull(text, "text");
      fields = List.copyOf(fields);
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(operator, "operator");
    }

    /** Best-fields over {@code fields}, tie breaker 0, OR: the benchmark's lexical query. */
    public static MultiMatch bestFields(String text, List<String> fields) {
      return new MultiMatch(
          text,
          fields.stream().map(f -> new FieldBoost(f, 1f)).toList(),
          MultiMatchType.BEST_FIELDS,
          0f,
          Operator.OR,
          null,
          1f);
    }
  }

  /**
   * An exact value of a field: on {@code keyword} the whole string, scored by BM25 (a Lucene {@code
   * TermQuery}); on {@code text} one indexed token, unanalysed, scored by BM25; on numbers, dates
   * and booleans the value, constant score {@code boost}.
   *
   * @param value a {@link String}, {@link Long}, {@link Double}, {@link Boolean} or {@link
   *     java.math.BigDecimal}
   */
  record Term(String field, Object value, float boost) implements Query {
    public Term {
      Objects.requireNonNull(field, "field");
      Objects.requireNonNull(value, "value");
    }

    public static Term of(String field, Object value) {
      return new Term(field, value, 1f);
    }
  }

  /** Any of several exact values; constant score {@code boost}. */
  record Terms(String field, List<Object> values, float boost) implements Query {
    public Terms {
      Objects.requireNonNull(field, "field");
      values = List.copyOf(values);
    }
  }

  /**
   * Values within bounds (numbers, dates, keywords); constant score {@code boost}. A bound is a
   * {@link Number}, a {@link java.math.BigDecimal} or a {@link String} (a number, a date in {@code
   * format}, or a keyword); null for none.
   *
   * @param format the date format of string bounds on a date field; null for the field's
   */
  record Range(
      String field, Object gt, Object gte, Object lt, Object lte, String format, float boost)
      implements Query {
    public Range {
      Objects.requireNonNull(field, "field");
    }
  }

  /** Documents with a value in the field; constant score {@code boost}. */
  record Exists(String field, float boost) implements Query {
    public Exists {
      Objects.requireNonNull(field, "field");
    }
  }

  /** Documents with one of these ids; constant score {@code boost}. */
  record Ids(Set<String> ids, float boost) implements Query {
    public Ids {
      ids = Set.copyOf(ids);
    }
  }

  /**
   * Boolean combination, as Lucene's {@code BooleanQuery}: a document matches every {@code must}
   * and {@code filter} clause, no {@code must_not} clause, and at least {@code minimumShouldMatch}
   * {@code should} clauses (default: 1 when there is no {@code must} or {@code filter} clause, else
   * 0). Its score is {@code boost} × the sum of the scores of the matching {@code must} and {@code
   * should} clauses; {@code filter} and {@code must_not} do not score.
   */
  record Bool(
      List<Query> must,
      List<Query> filter,
      List<Query> should,
      List<Query> mustNot,
      String minimumShouldMatch,
      float boost)
      implements Query {
    public Bool {
      must = List.copyOf(must);
      filter = List.copyOf(filter);
      should = List.copyOf(should);
      mustNot = List.copyOf(mustNot);
    }

    /** {@code query} filtered by {@code filters} (none: {@code query} alone). */
    public static Query filtered(Query query, List<Query> filters) {
      if (filters.isEmpty()) {
        return query;
      }
      return new Bool(List.of(query), filters, List.of(), List.of(), null, 1f);
    }
  }

  /** The documents {@code filter} matches, score {@code boost}. */
  record ConstantScore(Query filter, float boost) implements Query {
    public ConstantScore {
      Objects.requireNonNull(filter, "filter");
    }
  }

  /**
   * The best of several queries' scores plus {@code tieBreaker} times the others' (Lucene's {@code
   * DisjunctionMaxQuery}).
   */
  record DisMax(List<Query> queries, float tieBreaker, float boost) implements Query {
    public DisMax {
      queries = List.copyOf(queries);
    }
  }

  /**
   * The documents {@code query} matches, rescored by a script over vector fields and the query's
   * score (Elasticsearch's {@code script_score} with {@code cosineSimilarity}, {@code dotProduct},
   * {@code l2norm}); documents whose script score is below {@code minScore} are dropped.
   *
   * @param minScore the smallest script score kept, or null
   */
  record ScriptScore(Query query, Script script, Float minScore, float boost) implements Query {
    public ScriptScore {
      Objects.requireNonNull(query, "query");
      Objects.requireNonNull(script, "script");
    }
  }
}
