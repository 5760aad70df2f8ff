package org.searchlab.segmented;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.lucene.document.DoublePoint;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.DisjunctionMaxQuery;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermRangeQuery;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.FieldValues;
import org.searchlab.core.query.MinimumShouldMatch;

/**
 * The contract's {@link org.searchlab.core.query.Query} tree as the Lucene queries Elasticsearch
 * builds for it over the fields {@link MappedDocuments} indexes, so that scores are Lucene's own
 * (BM25 with the field's parameters, statistics of the whole reader):
 *
 * <ul>
 *   <li>{@code match}: a {@link BooleanQuery} of one {@link TermQuery} per token of the field's
 *       search analyzer (SHOULD with {@code minimum_should_match}, at least one; or MUST for AND);
 *       on a non-text field the whole text as a {@code term};
 *   <li>{@code multi_match}: a {@link DisjunctionMaxQuery} of per-field matches (best fields) or
 *       their SHOULD sum (most fields);
 *   <li>{@code term}: a scored {@link TermQuery} on text and indexed keywords; on numbers, dates
 *       and booleans a point (or doc-values) query with constant score;
 *   <li>{@code terms}, {@code range}, {@code exists}, {@code ids}: constant score;
 *   <li>{@code bool}: Lucene's {@link BooleanQuery}; a bool of must_not clauses alone gets a
 *       match-all filter, as Elasticsearch adds;
 *   <li>{@code script_score}: {@link ScriptScoreQuery}.
 * </ul>
 *
 * A field the mapping does not know matches nothing. One per search; not thread-safe.
 */
final class LuceneQueries {
  private final Mapping mapping;

  LuceneQueries(Mapping mapping) {
    this.mapping = mapping;
  }

  private static final Query NONE = new MatchNoDocsQuery();

  Query translate(org.searchlab.core.query.Query q) {
    return switch (q) {
      case org.searchlab.core.query.Query.MatchAll m -> boost(new MatchAllDocsQuery(), m.boost());
      case org.searchlab.core.query.Query.MatchNone n -> NONE;
      case org.searchlab.core.query.Query.ConstantScore c ->
          constant(translate(c.filter()), c.boost());
      case org.searchlab.core.query.Query.Match m ->
          match(m.field(), m.text(), m.operator(), m.minimumShouldMatch(), m.boost());
      case org.searchlab.core.query.Query.MultiMatch mm -> multiMatch(mm);
      case org.searchlab.core.query.Query.Term t -> term(t.field(), t.value(), t.boost());
      case org.searchlab.core.query.Query.Terms t -> terms(t);
      case org.searchlab.core.query.Query.Range r -> constant(range(r), r.boost());
      case org.searchlab.core.query.Query.Exists e -> constant(exists(e.field()), e.boost());
      case org.searchlab.core.query.Query.Ids i -> {
        List<BytesRef> ids = new ArrayList<>();
        for (String id : i.ids()) {
          ids.add(new BytesRef(id));
        }
        yield constant(new TermInSetQuery(MappedDocuments.ID, ids), i.boost());
      }
      case org.searchlab.core.query.Query.Bool b -> bool(b);
      case org.searchlab.core.query.Query.DisMax dm -> {
        List<Query> parts = new ArrayList<>();
        for (org.searchlab.core.query.Query c : dm.queries()) {
          parts.add(translate(c));
        }
        yield parts.isEmpty()
            ? NONE
            : boost(new DisjunctionMaxQuery(parts, dm.tieBreaker()), dm.boost());
      }
      case org.searchlab.core.query.Query.ScriptScore s ->
          new ScriptScoreQuery(translate(s.query()), s.script(), s.minScore(), s.boost());
    };
  }

  private static Query boost(Query q, float boost) {
    return boost == 1f ? q : new BoostQuery(q, boost);
  }

  private static Query constant(Query q, float boost) {
    return q instanceof MatchNoDocsQuery ? q : boost(new ConstantScoreQuery(q), boost);
  }

  private Query match(
      String field,
      String text,
      org.searchlab.core.query.Query.Operator op,
      String msm,
      float boost) {
    FieldType f = mapping.leaf(field);
    if (!(f instanceof FieldType.Text t)) {
      return term(field, text, boost);
    }
    if (!t.indexed()) {
      return NONE;
    }
    List<String> tokens = TextAnalysis.tokens(t.searchAnalyzer(), text);
    if (tokens.isEmpty()) {
      return NONE;
    }
    checkClauses(tokens.size(), field);
    boolean and = op == org.searchlab.core.query.Query.Operator.AND;
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    for (String token : tokens) {
      b.add(new TermQuery(new Term(field, token)), and ? Occur.MUST : Occur.SHOULD);
    }
    if (!and) {
      b.setMinimumNumberShouldMatch(Math.max(1, MinimumShouldMatch.of(msm, tokens.size())));
    }
    return boost(b.build(), boost);
  }

  private static void checkClauses(int n, String field) {
    if (n > IndexSearcher.getMaxClauseCount()) {
      throw new InvalidRequestException(
          "query on ["
              + field
              + "] has "
              + n
              + " clauses; the limit is "
              + IndexSearcher.getMaxClauseCount());
    }
  }

  private Query multiMatch(org.searchlab.core.query.Query.MultiMatch mm) {
    List<Query> perField = new ArrayList<>();
    for (org.searchlab.core.query.Query.FieldBoost fb : expand(mm.fields())) {
      perField.add(
          match(fb.field(), mm.text(), mm.operator(), mm.minimumShouldMatch(), fb.boost()));
    }
    if (perField.isEmpty()) {
      return NONE;
    }
    Query q;
    if (mm.type() == org.searchlab.core.query.Query.MultiMatchType.BEST_FIELDS) {
      q = new DisjunctionMaxQuery(perField, mm.tieBreaker());
    } else {
      BooleanQuery.Builder b = new BooleanQuery.Builder();
      for (Query p : perField) {
        b.add(p, Occur.SHOULD);
      }
      q = b.build();
    }
    return boost(q, mm.boost());
  }

  /** A field list with wildcards expanded to the text and keyword fields they name. */
  private List<org.searchlab.core.query.Query.FieldBoost> expand(
      List<org.searchlab.core.query.Query.FieldBoost> fields) {
    List<org.searchlab.core.query.Query.FieldBoost> out = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (org.searchlab.core.query.Query.FieldBoost fb : fields) {
      if (!fb.field().contains("*")) {
        out.add(fb);
        continue;
      }
      Pattern p = Pattern.compile(Pattern.quote(fb.field()).replace("*", "\\E.*\\Q"));
      for (Map.Entry<String, FieldType> e : mapping.leaves().entrySet()) {
        if ((e.getValue() instanceof FieldType.Text || e.getValue() instanceof FieldType.Keyword)
            && p.matcher(e.getKey()).matches()
            && seen.add(e.getKey())) {
          out.add(new org.searchlab.core.query.Query.FieldBoost(e.getKey(), fb.boost()));
        }
      }
    }
    return out;
  }

  private Query term(String field, Object value, float boost) {
    FieldType f = mapping.leaf(field);
    Object norm = FieldValues.termValue(f, field, value);
    if (norm == null) {
      return NONE;
    }
    return switch (f) {
      case FieldType.Text t ->
          t.indexed() ? boost(new TermQuery(new Term(field, (String) norm)), boost) : NONE;
      case FieldType.Keyword k ->
          k.indexed()
              ? boost(new TermQuery(new Term(field, (String) norm)), boost)
              : constant(exact(field, f, norm), boost);
      default -> constant(exact(field, f, norm), boost);
    };
  }

  /** A non-scoring query for one normalised value of a field. */
  private static Query exact(String field, FieldType f, Object norm) {
    return switch (f) {
      case FieldType.Text t -> t.indexed() ? new TermQuery(new Term(field, (String) norm)) : NONE;
      case FieldType.Keyword k ->
          k.indexed()
              ? new TermQuery(new Term(field, (String) norm))
              : k.docValues()
                  ? SortedSetDocValuesField.newSlowExactQuery(field, new BytesRef((String) norm))
                  : NONE;
      default -> {
        boolean[] options = numberOptions(f);
        if (norm instanceof Long l) {
          yield options[0]
              ? LongPoint.newExactQuery(field, l)
              : docValuesRange(field, options[1], l, l);
        }
        double d = (Double) norm;
        long sortable = NumericUtils.doubleToSortableLong(d);
        yield options[0]
            ? DoublePoint.newExactQuery(field, d)
            : docValuesRange(field, options[1], sortable, sortable);
      }
    };
  }

  /** {indexed, docValues} of a number, date or boolean field. */
  private static boolean[] numberOptions(FieldType f) {
    return switch (f) {
      case FieldType.Numeric n -> new boolean[] {n.indexed(), n.docValues()};
      case FieldType.Date d -> new boolean[] {d.indexed(), d.docValues()};
      case FieldType.Bool b -> new boolean[] {b.indexed(), b.docValues()};
      default -> new boolean[] {false, false};
    };
  }

  /** A range over an {@code index: false} number's doc values, single- or multi-valued. */
  private static Query docValuesRange(String field, boolean docValues, long min, long max) {
    if (!docValues) {
      return NONE;
    }
    return new BooleanQuery.Builder()
        .add(NumericDocValuesField.newSlowRangeQuery(field, min, max), Occur.SHOULD)
        .add(
            SortedNumericDocValuesField.newSlowRangeQuery(
                MappedDocuments.MULTI_VALUED + field, min, max),
            Occur.SHOULD)
        .build();
  }

  private Query terms(org.searchlab.core.query.Query.Terms t) {
    FieldType f = mapping.leaf(t.field());
    List<Object> norms = new ArrayList<>();
    for (Object v : t.values()) {
      Object norm = FieldValues.termValue(f, t.field(), v);
      if (norm != null) {
        norms.add(norm);
      }
    }
    if (norms.isEmpty()) {
      return NONE;
    }
    if ((f instanceof FieldType.Text x && x.indexed())
        || (f instanceof FieldType.Keyword k && k.indexed())) {
      List<BytesRef> terms = new ArrayList<>();
      for (Object n : norms) {
        terms.add(new BytesRef((String) n));
      }
      return constant(new TermInSetQuery(t.field(), terms), t.boost());
    }
    checkClauses(norms.size(), t.field());
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    for (Object n : norms) {
      b.add(exact(t.field(), f, n), Occur.SHOULD);
    }
    return constant(b.build(), t.boost());
  }

  private Query range(org.searchlab.core.query.Query.Range r) {
    FieldType f = mapping.leaf(r.field());
    FieldValues.Bounds bounds = FieldValues.range(f, r);
    if (bounds == null) {
      return NONE;
    }
    String field = r.field();
    return switch (bounds) {
      case FieldValues.LongBounds lb -> {
        if (lb.min() > lb.max()) {
          yield NONE;
        }
        boolean[] o = numberOptions(f);
        yield o[0]
            ? LongPoint.newRangeQuery(field, lb.min(), lb.max())
            : docValuesRange(field, o[1], lb.min(), lb.max());
      }
      case FieldValues.DoubleBounds db -> {
        if (!(db.min() <= db.max())) {
          yield NONE;
        }
        boolean[] o = numberOptions(f);
        yield o[0]
            ? DoublePoint.newRangeQuery(field, db.min(), db.max())
            : docValuesRange(
                field,
                o[1],
                NumericUtils.doubleToSortableLong(db.min()),
                NumericUtils.doubleToSortableLong(db.max()));
      }
      case FieldValues.StringBounds sb -> {
        BytesRef lower = sb.lower() == null ? null : new BytesRef(sb.lower());
        BytesRef upper = sb.upper() == null ? null : new BytesRef(sb.upper());
        if (f instanceof FieldType.Keyword k && !k.indexed()) {
          yield k.docValues()
              ? SortedSetDocValuesField.newSlowRangeQuery(
                  field, lower, upper, sb.includeLower(), sb.includeUpper())
              : NONE;
        }
        yield new TermRangeQuery(field, lower, upper, sb.includeLower(), sb.includeUpper());
      }
    };
  }

  /** Documents with a value in {@code path}, or in any field under the object {@code path}. */
  private Query exists(String path) {
    FieldType f = mapping.field(path);
    if (f == null) {
      return NONE;
    }
    if (f instanceof FieldType.ObjectField) {
      BooleanQuery.Builder b = new BooleanQuery.Builder();
      int n = 0;
      for (Map.Entry<String, FieldType> e : mapping.leaves().entrySet()) {
        if (e.getKey().startsWith(path + ".")) {
          b.add(leafExists(e.getKey(), e.getValue()), Occur.SHOULD);
          n++;
        }
      }
      checkClauses(n, path);
      return n == 0 ? NONE : b.build();
    }
    return leafExists(path, f);
  }

  /**
   * The documents with a vector in a {@code dense_vector} field: its indexed vectors, or the doc
   * values of a field with {@code index: false} ({@link LeafVectors}).
   */
  static Query vectorExists(String path, FieldType.DenseVector v) {
    return new FieldExistsQuery(v.indexed() ? path : MappedDocuments.VECTOR + path);
  }

  private static Query leafExists(String path, FieldType f) {
    Query names = new TermQuery(new Term(MappedDocuments.FIELD_NAMES, path));
    return switch (f) {
      case FieldType.Text t -> t.indexed() ? new FieldExistsQuery(path) : names;
      case FieldType.Keyword k -> k.docValues() ? new FieldExistsQuery(path) : names;
      case FieldType.DenseVector v -> vectorExists(path, v);
      case FieldType.ObjectField o -> NONE;
      default -> {
        boolean[] o = numberOptions(f);
        if (!o[1]) {
          yield names;
        }
        yield o[0]
            ? new FieldExistsQuery(path)
            : new BooleanQuery.Builder()
                .add(new FieldExistsQuery(path), Occur.SHOULD)
                .add(new FieldExistsQuery(MappedDocuments.MULTI_VALUED + path), Occur.SHOULD)
                .build();
      }
    };
  }

  private Query bool(org.searchlab.core.query.Query.Bool b) {
    if (b.must().isEmpty()
        && b.filter().isEmpty()
        && b.should().isEmpty()
        && b.mustNot().isEmpty()) {
      return boost(new MatchAllDocsQuery(), b.boost()); // Elasticsearch: an empty bool is match_all
    }
    checkClauses(
        b.must().size() + b.filter().size() + b.should().size() + b.mustNot().size(), "bool");
    BooleanQuery.Builder q = new BooleanQuery.Builder();
    for (org.searchlab.core.query.Query c : b.must()) {
      q.add(translate(c), Occur.MUST);
    }
    for (org.searchlab.core.query.Query c : b.filter()) {
      q.add(translate(c), Occur.FILTER);
    }
    for (org.searchlab.core.query.Query c : b.should()) {
      q.add(translate(c), Occur.SHOULD);
    }
    for (org.searchlab.core.query.Query c : b.mustNot()) {
      q.add(translate(c), Occur.MUST_NOT);
    }
    if (b.must().isEmpty() && b.filter().isEmpty() && b.should().isEmpty()) {
      q.add(new MatchAllDocsQuery(), Occur.FILTER);
    }
    int msm =
        b.minimumShouldMatch() != null
            ? MinimumShouldMatch.of(b.minimumShouldMatch(), b.should().size())
            : (b.must().isEmpty() && b.filter().isEmpty() && !b.should().isEmpty() ? 1 : 0);
    q.setMinimumNumberShouldMatch(msm);
    return boost(q.build(), b.boost());
  }
}
