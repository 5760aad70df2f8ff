package org.searchlab.segmented;

import java.io.IOException;
import java.util.Arrays;
import java.util.Comparator;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.HitQueue;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopDocsCollector;
import org.apache.lucene.search.TotalHits;

/**
 * Exact closeness from a segment's float vectors, for a field indexed in a quantized format:
 * Lucene's quantized formats keep the floats beside the codes (the {@code .vec} file), and {@link
 * FloatVectorValues#vectorValue} reads them. Scores are {@link VectorSimilarityFunction}s of the
 * floats, with the field's own function, as in the float format.
 *
 * <p>Thread-safety: stateless; each call takes its own {@link FloatVectorValues} of the segment, so
 * calls for different segments may run on several threads.
 */
final class FloatRescorer {
  private FloatRescorer() {}

  /**
   * The best {@code window} of the segment-relative {@code approx} (best first, as Lucene returns
   * them) rescored by their floats, best first (ties by ascending doc).
   */
  static TopDocs rescore(
      LeafReaderContext context, String field, float[] target, TopDocs approx, int window)
      throws IOException {
    FloatVectorValues values = context.reader().getFloatVectorValues(field);
    int n = Math.min(window, approx.scoreDocs.length);
    if (values == null || n == 0) {
      return approx;
    }
    ScoreDoc[] byDoc = Arrays.copyOf(approx.scoreDocs, n);
    Arrays.sort(byDoc, Comparator.comparingInt(d -> d.doc));
    KnnVectorValues.DocIndexIterator it = values.iterator();
    ScoreDoc[] out = new ScoreDoc[n];
    int count = 0;
    for (ScoreDoc d : byDoc) {
      if (it.docID() < d.doc) {
        it.advance(d.doc);
      }
      if (it.docID() == d.doc) {
        out[count++] =
            new ScoreDoc(d.doc, closeness(context, field, target, values.vectorValue(it.index())));
      }
    }
    out = Arrays.copyOf(out, count);
    Arrays.sort(
        out, (a, b) -> a.score != b.score ? Float.compare(b.score, a.score) : a.doc - b.doc);
    return new TopDocs(approx.totalHits, out);
  }

  /** The exact top {@code k} by float closeness among the docs of {@code accept}. */
  static TopDocs scan(
      LeafReaderContext context, String field, float[] target, DocIdSetIterator accept, int k)
      throws IOException {
    FloatVectorValues values = context.reader().getFloatVectorValues(field);
    if (values == null) {
      return TopDocsCollector.EMPTY_TOPDOCS;
    }
    KnnVectorValues.DocIndexIterator it = values.iterator();
    HitQueue queue = new HitQueue(k, false);
    long scanned = 0;
    for (int doc = accept.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = accept.nextDoc()) {
      if (it.docID() < doc) {
        it.advance(doc);
      }
      if (it.docID() != doc) {
        continue;
      }
      scanned++;
      queue.insertWithOverflow(
          new ScoreDoc(doc, closeness(context, field, target, values.vectorValue(it.index()))));
    }
    ScoreDoc[] out = new ScoreDoc[queue.size()];
    for (int i = out.length - 1; i >= 0; i--) {
      out[i] = queue.pop();
    }
    return new TopDocs(new TotalHits(scanned, TotalHits.Relation.EQUAL_TO), out);
  }

  /** The field's own similarity function (its {@code FieldInfo}), dot product by default. */
  private static float closeness(
      LeafReaderContext context, String field, float[] target, float[] vector) {
    org.apache.lucene.index.FieldInfo fi = context.reader().getFieldInfos().fieldInfo(field);
    VectorSimilarityFunction f =
        fi == null ? VectorSimilarityFunction.DOT_PRODUCT : fi.getVectorSimilarityFunction();
    return f.compare(target, vector);
  }
}
