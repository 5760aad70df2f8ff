// Over 500 lines: the oracle's rule for every query type of the contract, one place to read them.
package org.searchlab.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.searchlab.core.Hit;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.ParsedDocument;
import org.searchlab.core.mapping.VectorSimilarity;
import org.searchlab.core.query.FieldValues;
import org.searchlab.core.query.Knn;
import org.searchlab.core.query.MinimumShouldMatch;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.Script;
import org.searchlab.core.scoring.Bm25;

/**
 * What every query of the contract matches and how it scores, evaluated document by document over
 * an {@link ExactCorpus}: the reference both stores must equal. Each rule is Lucene's, for the
 * query Elasticsearch builds:
 *
 * <ul>
 *   <li>{@code match} on text: the field's search analyzer's tokens, each a {@code TermQuery}
 *       scored by BM25 ({@link Bm25}, the field's k1 and b, one-byte norms); OR sums the matching
 *       tokens' scores (repeats count again) and needs {@code minimum_should_match} of them (at
 *       least one), AND needs all; no token matches nothing. On another field type, the whole text
 *       is a {@code term}.
 *   <li>{@code term}: on text one unanalysed token, BM25; on keyword the value, BM25 with frequency
 *       1 and no norms (a length of 1, average length = distinct values per document); on numbers,
 *       dates and booleans the value, constant score.
 *   <li>{@code terms}, {@code range}, {@code exists}, {@code ids}, {@code match_all}, {@code
 *       constant_score}: constant score (the boost).
 *   <li>{@code bool}: must and filter all, must_not none, {@code minimum_should_match} should (at
 *       least 1 without must or filter, even when it says 0); score the sum of must and matching
 *       should scores, taken in double; only filter or must_not clauses score 0; no clause is
 *       match-all.
 *   <li>{@code dis_max} and {@code multi_match} {@code best_fields}: the best score plus the tie
 *       breaker times the others; {@code most_fields}: the sum.
 *   <li>{@code script_score}: the script's value (as a float) times the boost, the wrapped query's
 *       score as {@code _score}; below {@code min_score} (after the boost) dropped, negative an
 *       error.
 *   <li>kNN: the exact top {@code k} by the field's similarity among documents passing the filter;
 *       combined with the query by sum (union, scores added) or reciprocal rank fusion.
 * </ul>
 *
 * A boost multiplies into every leaf's weight as Lucene's {@code BoostQuery} does. A field the
 * mapping does not know matches nothing. Not thread-safe; one per search.
 */
final class ExactQueries {
  private final ExactCorpus corpus;
  private final Mapping mapping;
  private final Map<String, float[]> normCaches = new HashMap<>();
  private final Map<String, List<String>> analyzed = new HashMap<>();

  record Result(List<Hit> ranked, long total) {}

  ExactQueries(ExactCorpus corpus, Mapping mapping) {
    this.corpus = corpus;
    this.mapping = mapping;
  }

  Result search(SearchRequest r) {
    List<List<Hit>> parts = new ArrayList<>();
    Set<String> union = new HashSet<>();
    if (r.query() != null) {
      TopK all = null;
      List<Hit> hits = new ArrayList<>();
      java.util.BitSet candidates = candidates(r.query());
      for (int ord = candidates == null ? 0 : candidates.nextSetBit(0);
          ord >= 0 && ord < corpus.ordinals();
          ord = candidates == null ? ord + 1 : candidates.nextSetBit(ord + 1)) {
        if (corpus.at(ord) == null) {
          continue;
        }
        double s = score(r.query(), ord, 1f);
        if (!Double.isNaN(s)) {
          hits.add(new Hit(corpus.at(ord).id(), (float) s));
        }
      }
      hits.sort(ExactCorpus.BY_SCORE);
      parts.add(hits);
      for (Hit h : hits) {
        union.add(h.id());
      }
    }
    for (Knn knn : r.knn()) {
      List<Hit> hits = corpus.knn(knn, ord -> matches(knn.filter(), ord));
      parts.add(hits);
      for (Hit h : hits) {
        union.add(h.id());
      }
    }
    if (parts.isEmpty()) {
      return new Result(List.of(), 0);
    }
    List<Hit> ranked =
        parts.size() == 1 && !r.rank().isRrf() ? parts.get(0) : ExactCorpus.fuse(r, parts);
    return new Result(ranked, union.size());
  }

  /**
   * The ordinals that can match {@code q}, read from the text fields' postings, or null when every
   * document must be scored. Only queries a document can match through one of its terms narrow: a
   * {@code match} on a text field (a match needs at least one of the query's tokens, whatever the
   * operator and {@code minimum_should_match}), a {@code multi_match} over named text fields (the
   * union of its fields'), and a {@code bool} with a {@code must} clause of those (every match
   * matches it). Scores are computed exactly as without narrowing; at 100,000 documents a benchmark
   * query touches a small fraction of them.
   */
  private java.util.BitSet candidates(Query q) {
    return switch (q) {
      case Query.Match m -> textCandidates(m.field(), m.text());
      case Query.MultiMatch mm -> {
        java.util.BitSet union = new java.util.BitSet();
        for (Query.FieldBoost fb : mm.fields()) {
          java.util.BitSet one =
              fb.field().contains("*") ? null : textCandidates(fb.field(), mm.text());
          if (one == null) {
            yield null;
          }
          union.or(one);
        }
        yield union;
      }
      case Query.Bool b -> {
        for (Query must : b.must()) {
          java.util.BitSet c = candidates(must);
          if (c != null) {
            yield c;
          }
        }
        yield null;
      }
      default -> null;
    };
  }

  /** The ordinals holding any token of {@code text} in the text field, or null if not text. */
  private java.util.BitSet textCandidates(String field, String text) {
    if (!(mapping.leaf(field) instanceof FieldType.Text t)) {
      return null;
    }
    java.util.BitSet out = new java.util.BitSet();
    ExactCorpus.TextField tf = corpus.textField(field);
    if (!t.indexed() || tf == null) {
      return out;
    }
    List<String> tokens =
        analyzed.computeIfAbsent(
            t.searchAnalyzer() + "\u0000" + text,
            k -> TextAnalysis.tokens(t.searchAnalyzer(), text));
    for (String token : tokens) {
      ExactCorpus.Postings p = tf.postings.get(token);
      if (p != null) {
        for (int i = 0; i < p.size; i++) {
          out.set(p.ords[i]);
        }
      }
    }
    return out;
  }

  boolean matches(Query q, int ord) {
    return !Double.isNaN(score(q, ord, 1f));
  }

  /** The document's score for {@code q} under an outer boost, or NaN when it does not match. */
  double score(Query q, int ord, float boost) {
    ParsedDocument d = corpus.at(ord);
    return switch (q) {
      case Query.MatchAll m -> boost * m.boost();
      case Query.MatchNone n -> Double.NaN;
      case Query.ConstantScore c -> matches(c.filter(), ord) ? boost * c.boost() : Double.NaN;
      case Query.Match m ->
          match(m.field(), m.text(), m.operator(), m.minimumShouldMatch(), ord, boost * m.boost());
      case Query.MultiMatch mm -> multiMatch(mm, ord, boost * mm.boost());
      case Query.Term t -> term(t.field(), t.value(), ord, boost * t.boost());
      case Query.Terms t -> {
        FieldType f = mapping.leaf(t.field());
        for (Object v : t.values()) {
          Object norm = FieldValues.termValue(f, t.field(), v);
          if (norm != null && hasValue(d, t.field(), f, norm)) {
            yield boost * t.boost();
          }
        }
        yield Double.NaN;
      }
      case Query.Range rg -> inRange(d, rg) ? boost * rg.boost() : Double.NaN;
      case Query.Exists e -> exists(d, e.field()) ? boost * e.boost() : Double.NaN;
      case Query.Ids i -> i.ids().contains(d.id()) ? boost * i.boost() : Double.NaN;
      case Query.Bool b -> bool(b, ord, boost * b.boost());
      case Query.DisMax dm -> disMax(dm.queries(), dm.tieBreaker(), ord, boost * dm.boost());
      case Query.ScriptScore s -> scriptScore(s, ord, boost);
    };
  }

  private double bool(Query.Bool b, int ord, float boost) {
    if (b.must().isEmpty()
        && b.filter().isEmpty()
        && b.should().isEmpty()
        && b.mustNot().isEmpty()) {
      return boost; // Elasticsearch: an empty bool is match_all
    }
    double sum = 0;
    for (Query c : b.must()) {
      double s = score(c, ord, boost);
      if (Double.isNaN(s)) {
        return Double.NaN;
      }
      sum += s;
    }
    for (Query c : b.filter()) {
      if (!matches(c, ord)) {
        return Double.NaN;
      }
    }
    for (Query c : b.mustNot()) {
      if (matches(c, ord)) {
        return Double.NaN;
      }
    }
    int matched = 0;
    for (Query c : b.should()) {
      double s = score(c, ord, boost);
      if (!Double.isNaN(s)) {
        matched++;
        sum += s;
      }
    }
    int msm =
        b.minimumShouldMatch() != null
            ? MinimumShouldMatch.of(b.minimumShouldMatch(), b.should().size())
            : 0;
    if (b.must().isEmpty() && b.filter().isEmpty() && !b.should().isEmpty()) {
      // Without a required clause Lucene's BooleanQuery is a disjunction of its should clauses:
      // one of them must match whatever minimum_should_match says ("0" included).
      msm = Math.max(1, msm);
    }
    if (matched < msm) {
      return Double.NaN;
    }
    return (float) sum;
  }

  private double disMax(List<Query> queries, float tieBreaker, int ord, float boost) {
    float max = 0;
    double others = 0;
    boolean any = false;
    for (Query c : queries) {
      double s = score(c, ord, boost);
      if (Double.isNaN(s)) {
        continue;
      }
      float f = (float) s;
      if (!any || f > max) {
        if (any) {
          others += max;
        }
        max = f;
      } else {
        others += f;
      }
      any = true;
    }
    return any ? (float) (max + others * tieBreaker) : Double.NaN;
  }

  private double multiMatch(Query.MultiMatch mm, int ord, float boost) {
    List<Query> perField = new ArrayList<>();
    for (Query.FieldBoost fb : expand(mm.fields())) {
      perField.add(
          new Query.Match(
              fb.field(), mm.text(), mm.operator(), mm.minimumShouldMatch(), fb.boost()));
    }
    if (mm.type() == Query.MultiMatchType.BEST_FIELDS) {
      return disMax(perField, mm.tieBreaker(), ord, boost);
    }
    double sum = 0;
    boolean any = false;
    for (Query c : perField) {
      double s = score(c, ord, boost);
      if (!Double.isNaN(s)) {
        sum += s;
        any = true;
      }
    }
    return any ? (float) sum : Double.NaN;
  }

  /** A multi_match field list with wildcards expanded to the text and keyword fields they name. */
  private List<Query.FieldBoost> expand(List<Query.FieldBoost> fields) {
    List<Query.FieldBoost> out = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (Query.FieldBoost fb : fields) {
      if (!fb.field().contains("*")) {
        out.add(fb);
        continue;
      }
      Pattern p = Pattern.compile(Pattern.quote(fb.field()).replace("*", "\\E.*\\Q"));
      for (Map.Entry<String, FieldType> e : mapping.leaves().entrySet()) {
        if ((e.getValue() instanceof FieldType.Text || e.getValue() instanceof FieldType.Keyword)
            && p.matcher(e.getKey()).matches()
            && seen.add(e.getKey())) {
          out.add(new Query.FieldBoost(e.getKey(), fb.boost()));
        }
      }
    }
    return out;
  }

  private double match(
      String field, String text, Query.Operator op, String msmSpec, int ord, float boost) {
    FieldType f = mapping.leaf(field);
    if (!(f instanceof FieldType.Text t)) {
      return term(field, text, ord, boost);
    }
    if (!t.indexed()) {
      return Double.NaN;
    }
    List<String> tokens =
        analyzed.computeIfAbsent(
            t.searchAnalyzer() + "\u0000" + text,
            k -> TextAnalysis.tokens(t.searchAnalyzer(), text));
    if (tokens.isEmpty()) {
      return Double.NaN;
    }
    ExactCorpus.TextField tf = corpus.textField(field);
    if (tf == null) {
      return Double.NaN;
    }
    double sum = 0;
    int matched = 0;
    for (String token : tokens) {
      double s = textTerm(field, t, tf, token, ord, boost);
      if (!Double.isNaN(s)) {
        matched++;
        sum += s;
      } else if (op == Query.Operator.AND) {
        return Double.NaN;
      }
    }
    int need =
        op == Query.Operator.AND
            ? tokens.size()
            : Math.max(1, MinimumShouldMatch.of(msmSpec, tokens.size()));
    return matched >= need ? (float) sum : Double.NaN;
  }

  private double textTerm(
      String field,
      FieldType.Text t,
      ExactCorpus.TextField tf,
      String token,
      int ord,
      float boost) {
    int freq = tf.freq(token, ord);
    if (freq == 0) {
      return Double.NaN;
    }
    float[] cache = normCaches.computeIfAbsent(field, k -> tf.normInverseCache(t.similarity()));
    float weight = boost * Bm25.idf(tf.docFreq(token), tf.docCount);
    return Bm25.score(weight, freq, cache[tf.norm(ord) & 0xFF]);
  }

  private double term(String field, Object value, int ord, float boost) {
    FieldType f = mapping.leaf(field);
    Object norm = FieldValues.termValue(f, field, value);
    if (norm == null) {
      return Double.NaN;
    }
    ParsedDocument d = corpus.at(ord);
    switch (f) {
      case FieldType.Text t -> {
        ExactCorpus.TextField tf = corpus.textField(field);
        return tf == null || !t.indexed()
            ? Double.NaN
            : textTerm(field, t, tf, (String) norm, ord, boost);
      }
      case FieldType.Keyword k -> {
        if (!hasValue(d, field, f, norm)) {
          return Double.NaN;
        }
        ExactCorpus.KeywordField kf = corpus.keywordField(field);
        if (!k.indexed() || kf == null) {
          return boost;
        }
        float[] cache =
            normCaches.computeIfAbsent(
                field,
                x ->
                    Bm25.normInverseCache(
                        Bm25.avgFieldLength(kf.sumDocFreq, kf.docCount),
                        FieldType.Bm25Similarity.DEFAULT.k1(),
                        FieldType.Bm25Similarity.DEFAULT.b()));
        float weight = boost * Bm25.idf(kf.docFreq.getOrDefault((String) norm, 0), kf.docCount);
        return Bm25.score(weight, 1, cache[Bm25.NO_NORMS & 0xFF]);
      }
      default -> {
        return hasValue(d, field, f, norm) ? boost : Double.NaN;
      }
    }
  }

  private static boolean hasValue(ParsedDocument d, String field, FieldType f, Object norm) {
    Object values = d.values().get(field);
    if (values == null) {
      return false;
    }
    switch (values) {
      case String[] s -> {
        if (f instanceof FieldType.Text t) {
          for (String v : s) {
            if (TextAnalysis.tokens(t.analyzer(), v).contains((String) norm)) {
              return true;
            }
          }
          return false;
        }
        for (String v : s) {
          if (v.equals(norm)) {
            return true;
          }
        }
        return false;
      }
      case long[] l -> {
        for (long v : l) {
          if (norm instanceof Long x && v == x) {
            return true;
          }
        }
        return false;
      }
      case double[] dd -> {
        for (double v : dd) {
          if (norm instanceof Double x && v == x) {
            return true;
          }
        }
        return false;
      }
      default -> {
        return false;
      }
    }
  }

  private boolean inRange(ParsedDocument d, Query.Range r) {
    FieldType f = mapping.leaf(r.field());
    FieldValues.Bounds b = FieldValues.range(f, r);
    Object values = d.values().get(r.field());
    if (b == null || values == null) {
      return false;
    }
    switch (b) {
      case FieldValues.LongBounds lb -> {
        for (long v : (long[]) values) {
          if (lb.contains(v)) {
            return true;
          }
        }
      }
      case FieldValues.DoubleBounds db -> {
        for (double v : (double[]) values) {
          if (db.contains(v)) {
            return true;
          }
        }
      }
      case FieldValues.StringBounds sb -> {
        for (String v : (String[]) values) {
          if (sb.contains(v)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private boolean exists(ParsedDocument d, String field) {
    FieldType f = mapping.field(field);
    if (f == null) {
      return false;
    }
    if (f instanceof FieldType.ObjectField) {
      for (String path : d.values().keySet()) {
        if (path.startsWith(field + ".") && exists(d, path)) {
          return true;
        }
      }
      return false;
    }
    Object v = d.values().get(field);
    if (v == null) {
      return false;
    }
    if (f instanceof FieldType.Text t) {
      for (String s : (String[]) v) {
        if (!TextAnalysis.tokens(t.analyzer(), s).isEmpty()) {
          return true;
        }
      }
      return false;
    }
    return true;
  }

  private double scriptScore(Query.ScriptScore s, int ord, float boost) {
    double inner = score(s.query(), ord, 1f);
    if (Double.isNaN(inner)) {
      return Double.NaN;
    }
    ParsedDocument d = corpus.at(ord);
    double v =
        s.script()
            .evaluate(
                new Script.Context() {
                  @Override
                  public float[] vector(String field) {
                    return d.vector(field);
                  }

                  @Override
                  public double score() {
                    return (float) inner;
                  }
                });
    float f = (float) v;
    if (!(f >= 0)) {
      throw new InvalidRequestException(
          "script_score script returned an invalid score ["
              + f
              + "] for document ["
              + d.id()
              + "]; it must be a non-negative number");
    }
    float scored = f * boost * s.boost();
    // Elasticsearch's min_score filters the boosted score (its MinScoreScorer wraps the scorer
    // that already multiplied the boost in).
    if (s.minScore() != null && scored < s.minScore()) {
      return Double.NaN;
    }
    return scored;
  }

  /**
   * The least {@code _score} a kNN neighbour may have when the search sets Elasticsearch's {@code
   * similarity}, which is in the similarity's own terms: a cosine or dot product, an L2 distance (a
   * most), a raw inner product.
   */
  static float scoreFloor(VectorSimilarity sim, float similarity) {
    return switch (sim) {
      case L2_NORM -> 1 / (1 + similarity * similarity);
      default -> sim.fromRaw(similarity);
    };
  }
}
