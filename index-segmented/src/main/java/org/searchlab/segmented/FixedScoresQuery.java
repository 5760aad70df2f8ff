package org.searchlab.segmented;

import java.util.Arrays;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Weight;

/**
 * A fixed set of documents of one reader with fixed scores: a kNN search's neighbours after the
 * merge of every segment's candidates and the {@code similarity} threshold, combined with other
 * parts of a search as Lucene combines queries (Lucene's own {@code DocAndScoreQuery} is not
 * public). Valid only on the reader its doc ids come from. Immutable and thread-safe.
 */
final class FixedScoresQuery extends Query {
  private final int[] docs;
  private final float[] scores;
  private final Object reader;

  /** {@code hits}: top-level doc ids of {@code reader} with their scores, in any order. */
  FixedScoresQuery(ScoreDoc[] hits, Object readerKey) {
    ScoreDoc[] byDoc = hits.clone();
    Arrays.sort(byDoc, (a, b) -> Integer.compare(a.doc, b.doc));
    this.docs = new int[byDoc.length];
    this.scores = new float[byDoc.length];
    for (int i = 0; i < byDoc.length; i++) {
      docs[i] = byDoc[i].doc;
      scores[i] = byDoc[i].score;
    }
    this.reader = readerKey;
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
    return new Weight(this) {
      @Override
      public Explanation explain(LeafReaderContext context, int doc) {
        return Explanation.noMatch("fixed scores do not explain");
      }

      @Override
      public boolean isCacheable(LeafReaderContext ctx) {
        return false;
      }

      @Override
      public ScorerSupplier scorerSupplier(LeafReaderContext context) {
        int from = lowerBound(context.docBase);
        int to = lowerBound(context.docBase + context.reader().maxDoc());
        if (from >= to) {
          return null;
        }
        float max = 0;
        for (int i = from; i < to; i++) {
          max = Math.max(max, scores[i] * boost);
        }
        return new DefaultScorerSupplier(new FixedScorer(context.docBase, from, to, boost, max));
      }
    };
  }

  private int lowerBound(int doc) {
    int i = Arrays.binarySearch(docs, doc);
    return i >= 0 ? i : -i - 1;
  }

  private final class FixedScorer extends Scorer {
    private final int base;
    private final int from;
    private final int to;
    private final float boost;
    private final float max;
    private int i = -1;

    FixedScorer(int base, int from, int to, float boost, float max) {
      this.base = base;
      this.from = from;
      this.to = to;
      this.boost = boost;
      this.max = max;
    }

    @Override
    public int docID() {
      if (i < 0) {
        return -1;
      }
      return i >= to ? DocIdSetIterator.NO_MORE_DOCS : docs[i] - base;
    }

    @Override
    public float score() {
      return scores[i] * boost;
    }

    @Override
    public float getMaxScore(int upTo) {
      return max;
    }

    @Override
    public DocIdSetIterator iterator() {
      return new DocIdSetIterator() {
        @Override
        public int docID() {
          return FixedScorer.this.docID();
        }

        @Override
        public int nextDoc() {
          i = i < 0 ? from : Math.min(to, i + 1);
          return docID();
        }

        @Override
        public int advance(int target) {
          int d;
          while ((d = nextDoc()) < target) {
            // linear: a kNN result holds at most a few thousand documents
          }
          return d;
        }

        @Override
        public long cost() {
          return to - from;
        }
      };
    }
  }

  @Override
  public String toString(String field) {
    return "fixed_scores(" + docs.length + " docs)";
  }

  @Override
  public void visit(QueryVisitor visitor) {
    visitor.visitLeaf(this);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FixedScoresQuery q
        && reader == q.reader
        && Arrays.equals(docs, q.docs)
        && Arrays.equals(scores, q.scores);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(docs) + Arrays.hashCode(scores);
  }
}
