package org.searchlab.segmented;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.TwoPhaseIterator;
import org.apache.lucene.search.Weight;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.query.Script;

/**
 * Elasticsearch's {@code script_score}: the documents of the wrapped query, each scored by the
 * script's value (as a float) times the boost, with the wrapped query's score as {@code _score} and
 * the vectors as given ({@link LeafVectors}). A document below {@code min_score} (compared with the
 * boosted score, as Elasticsearch does) does not match; a negative or NaN value fails the search
 * with a 400. Thread-safe: every scorer has its own state.
 */
final class ScriptScoreQuery extends Query {
  private final Query inner;
  private final Script script;
  private final Float minScore;
  private final float boost;

  ScriptScoreQuery(Query inner, Script script, Float minScore, float boost) {
    this.inner = inner;
    this.script = script;
    this.minScore = minScore;
    this.boost = boost;
  }

  @Override
  public Query rewrite(IndexSearcher searcher) throws IOException {
    Query r = inner.rewrite(searcher);
    return r == inner ? this : new ScriptScoreQuery(r, script, minScore, boost);
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float outerBoost)
      throws IOException {
    Weight innerWeight = inner.createWeight(searcher, ScoreMode.COMPLETE, 1f);
    float total = boost * outerBoost;
    return new Weight(this) {
      @Override
      public Explanation explain(LeafReaderContext context, int doc) {
        return Explanation.noMatch("script_score does not explain");
      }

      @Override
      public boolean isCacheable(LeafReaderContext ctx) {
        return false;
      }

      @Override
      public ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException {
        ScorerSupplier in = innerWeight.scorerSupplier(context);
        if (in == null) {
          return null;
        }
        return new ScorerSupplier() {
          @Override
          public Scorer get(long leadCost) throws IOException {
            return new ScriptScorer(in.get(leadCost), context.reader(), total);
          }

          @Override
          public long cost() {
            return in.cost();
          }
        };
      }
    };
  }

  private final class ScriptScorer extends Scorer {
    private final Scorer in;
    private final LeafReader reader;
    private final float boost;
    private final TwoPhaseIterator twoPhase;
    // The fields' vectors in this segment (an absent value: the segment has none).
    private final Map<String, java.util.Optional<LeafVectors>> vectors = new HashMap<>();
    private int doc = -1;
    private float innerScore;
    private float score;

    ScriptScorer(Scorer in, LeafReader reader, float boost) {
      this.in = in;
      this.reader = reader;
      this.boost = boost;
      this.twoPhase =
          new TwoPhaseIterator(in.iterator()) {
            @Override
            public boolean matches() throws IOException {
              return compute();
            }

            @Override
            public float matchCost() {
              return 100;
            }
          };
    }

    private boolean compute() throws IOException {
      doc = in.docID();
      innerScore = in.score();
      float f = (float) script.evaluate(context);
      if (!(f >= 0)) {
        throw new InvalidRequestException(
            "script_score script returned an invalid score ["
                + f
                + "] for a document; it must be a non-negative number");
      }
      score = f * boost;
      return minScore == null || score >= minScore;
    }

    private final Script.Context context =
        new Script.Context() {
          @Override
          public float[] vector(String field) {
            return vectorOf(field);
          }

          @Override
          public double score() {
            return innerScore;
          }
        };

    private float[] vectorOf(String field) {
      try {
        java.util.Optional<LeafVectors> v = vectors.get(field);
        if (v == null) {
          v = java.util.Optional.ofNullable(LeafVectors.open(reader, field));
          vectors.put(field, v);
        }
        return v.isEmpty() ? null : v.get().get(doc);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    @Override
    public float score() {
      return score;
    }

    @Override
    public int docID() {
      return in.docID();
    }

    @Override
    public DocIdSetIterator iterator() {
      return TwoPhaseIterator.asDocIdSetIterator(twoPhase);
    }

    @Override
    public TwoPhaseIterator twoPhaseIterator() {
      return twoPhase;
    }

    @Override
    public float getMaxScore(int upTo) {
      return Float.MAX_VALUE;
    }
  }

  @Override
  public String toString(String field) {
    return "script_score(" + inner.toString(field) + ", " + script + ")";
  }

  @Override
  public void visit(QueryVisitor visitor) {
    inner.visit(visitor.getSubVisitor(org.apache.lucene.search.BooleanClause.Occur.MUST, this));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ScriptScoreQuery q
        && inner.equals(q.inner)
        && script.equals(q.script)
        && Objects.equals(minScore, q.minScore)
        && boost == q.boost;
  }

  @Override
  public int hashCode() {
    return Objects.hash(inner, script, minScore, boost);
  }
}
