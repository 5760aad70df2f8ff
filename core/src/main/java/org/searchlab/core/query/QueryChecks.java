package org.searchlab.core.query;

import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;

/**
 * Checks a query against a mapping before any store runs it, so that both stores refuse the same
 * queries with the same messages: a value that cannot be one of its field's values ({@code term}
 * {@code "abc"} on a number), a {@code range} on a field that has no order, a query on a vector
 * field, too many term clauses (Lucene's {@code max_clause_count}), a negative or non-finite boost.
 * A field the mapping does not know is not an error: the clause matches nothing, as in
 * Elasticsearch. Stateless and thread-safe.
 */
public final class QueryChecks {
  /** The deepest query tree accepted (a guard; dialects apply their own, lower, limit first). */
  public static final int MAX_DEPTH = 64;

  private QueryChecks() {}

  /**
   * Checks {@code q}; {@code clauses[0]} counts the term clauses so far, against {@code
   * maxClauses}.
   */
  public static void check(Query q, Mapping mapping, int[] clauses, int maxClauses) {
    check(q, mapping, clauses, maxClauses, 0);
  }

  private static void check(Query q, Mapping m, int[] clauses, int max, int depth) {
    if (depth > MAX_DEPTH) {
      throw new InvalidRequestException("the query nests deeper than " + MAX_DEPTH + " levels");
    }
    if (!(q.boost() >= 0) || !Float.isFinite(q.boost())) {
      throw new InvalidRequestException("[boost] " + q.boost() + " must be finite and ≥ 0");
    }
    switch (q) {
      case Query.MatchAll a -> {}
      case Query.MatchNone n -> {}
      case Query.Match mt -> {
        FieldType f = m.leaf(mt.field());
        count(clauses, max, f instanceof FieldType.Text t ? tokens(t, mt.text()) : 1);
        noVector(f, mt.field(), "match");
        MinimumShouldMatch.check(mt.minimumShouldMatch());
      }
      case Query.MultiMatch mm -> {
        for (Query.FieldBoost fb : mm.fields()) {
          if (!(fb.boost() >= 0) || !Float.isFinite(fb.boost())) {
            throw new InvalidRequestException(
                "the boost of ["
                    + fb.field()
                    + "] is "
                    + fb.boost()
                    + "; it must be finite and ≥ 0");
          }
          if (fb.field().contains("*")) {
            // A pattern stands for every text and keyword field it matches, as the stores expand
            // it: each is a clause of its own (Elasticsearch's index.query.default_field "*").
            java.util.regex.Pattern p =
                java.util.regex.Pattern.compile(
                    java.util.regex.Pattern.quote(fb.field()).replace("*", "\\E.*\\Q"));
            for (java.util.Map.Entry<String, FieldType> e : m.leaves().entrySet()) {
              if ((e.getValue() instanceof FieldType.Text
                      || e.getValue() instanceof FieldType.Keyword)
                  && p.matcher(e.getKey()).matches()) {
                count(
                    clauses,
                    max,
                    e.getValue() instanceof FieldType.Text t ? tokens(t, mm.text()) : 1);
              }
            }
            continue;
          }
          FieldType f = m.leaf(fb.field());
          noVector(f, fb.field(), "multi_match");
          count(clauses, max, f instanceof FieldType.Text t ? tokens(t, mm.text()) : 1);
        }
        MinimumShouldMatch.check(mm.minimumShouldMatch());
      }
      case Query.Term t -> {
        count(clauses, max, 1);
        FieldValues.termValue(m.leaf(t.field()), t.field(), t.value());
      }
      case Query.Terms t -> {
        count(clauses, max, 1);
        if (t.values().size() > 65_536) {
          throw new InvalidRequestException(
              "[terms] on ["
                  + t.field()
                  + "] has "
                  + t.values().size()
                  + " values; the limit is 65536");
        }
        for (Object v : t.values()) {
          FieldValues.termValue(m.leaf(t.field()), t.field(), v);
        }
      }
      case Query.Range r -> {
        count(clauses, max, 1);
        FieldValues.range(m.leaf(r.field()), r);
      }
      case Query.Exists e -> count(clauses, max, 1);
      case Query.Ids i -> count(clauses, max, 1);
      case Query.Bool b -> {
        for (java.util.List<Query> list :
            java.util.List.of(b.must(), b.filter(), b.should(), b.mustNot())) {
          for (Query c : list) {
            check(c, m, clauses, max, depth + 1);
          }
        }
        MinimumShouldMatch.check(b.minimumShouldMatch());
      }
      case Query.ConstantScore c -> check(c.filter(), m, clauses, max, depth + 1);
      case Query.DisMax d -> {
        for (Query c : d.queries()) {
          check(c, m, clauses, max, depth + 1);
        }
      }
      case Query.ScriptScore s -> {
        check(s.query(), m, clauses, max, depth + 1);
        for (String field : s.script().vectorFields()) {
          FieldType f = m.leaf(field);
          if (f != null && !(f instanceof FieldType.DenseVector)) {
            throw new InvalidRequestException(
                "script_score: field ["
                    + field
                    + "] is a ["
                    + f.esName()
                    + "], not a dense_vector");
          }
        }
      }
    }
  }

  private static int tokens(FieldType.Text t, String text) {
    // A token takes at least one character and a separator, so a short text's count is bounded
    // without analysis; a bound of at most 64 per field cannot reach the limit on its own.
    int bound = (text.length() + 1) / 2;
    return bound <= 64 ? bound : TextAnalysis.tokens(t.searchAnalyzer(), text).size();
  }

  private static void count(int[] clauses, int max, int n) {
    clauses[0] += n;
    if (clauses[0] > max) {
      throw new InvalidRequestException(
          "the query expands to "
              + clauses[0]
              + " or more term clauses; the limit is "
              + max
              + " (max_clause_count)");
    }
  }

  private static void noVector(FieldType f, String field, String query) {
    if (f instanceof FieldType.DenseVector) {
      throw new InvalidRequestException(
          "field [" + field + "] of type [dense_vector] does not support [" + query + "] queries");
    }
  }
}
