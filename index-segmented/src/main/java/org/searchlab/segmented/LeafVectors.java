package org.searchlab.segmented;

import java.io.IOException;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReader;

/**
 * The vectors of one {@code dense_vector} field in one segment, as the documents gave them. A
 * segment keeps each vector once where it can: in the field's indexed float vectors when those are
 * the vector as given (every similarity but {@code cosine}, Lucene's quantized formats included,
 * since they keep the raw floats beside their codes), and in binary doc values under {@link
 * MappedDocuments#VECTOR}{@code <path>} otherwise (a {@code cosine} field indexes a normalised
 * copy; a field with {@code index: false} has no indexed vectors). Segments written before the
 * stored source left vectors out (data format 2) hold the doc values for every field; they win
 * wherever they exist, so both kinds of segment read the same.
 *
 * <p>Not thread-safe: one instance per segment, field and thread, read in increasing doc order (the
 * same doc may be read again).
 */
final class LeafVectors {
  private final BinaryDocValues docValues;
  private final FloatVectorValues indexed;
  private final KnnVectorValues.DocIndexIterator iterator;
  private int lastDoc = -1;
  private float[] last;

  private LeafVectors(BinaryDocValues docValues, FloatVectorValues indexed) {
    this.docValues = docValues;
    this.indexed = indexed;
    this.iterator = indexed == null ? null : indexed.iterator();
  }

  /** The field's vectors in {@code reader}, or null when no document of the segment has one. */
  static LeafVectors open(LeafReader reader, String path) throws IOException {
    BinaryDocValues dv = reader.getBinaryDocValues(MappedDocuments.VECTOR + path);
    if (dv != null) {
      return new LeafVectors(dv, null);
    }
    FloatVectorValues values = reader.getFloatVectorValues(path);
    return values == null ? null : new LeafVectors(null, values);
  }

  /**
   * The vector of {@code doc} as given, or null when it has none. The array is the caller's to read
   * (not to modify): reading the same doc again returns it again.
   */
  float[] get(int doc) throws IOException {
    if (doc == lastDoc) {
      return last;
    }
    lastDoc = doc;
    last = null;
    if (docValues != null) {
      if (docValues.advanceExact(doc)) {
        last = MappedDocuments.decode(docValues.binaryValue());
      }
    } else {
      int at = iterator.docID();
      if (at < doc) {
        at = iterator.advance(doc);
      }
      if (at == doc) {
        last = indexed.vectorValue(iterator.index()).clone();
      }
    }
    return last;
  }
}
