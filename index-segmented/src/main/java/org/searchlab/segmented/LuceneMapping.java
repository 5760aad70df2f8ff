package org.searchlab.segmented;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.StoredFieldVisitor;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Schema;
import org.searchlab.core.wal.OperationCodec;

/**
 * The benchmark's Elasticsearch mapping in Lucene fields, and the way back from a Lucene document
 * to a {@link Document}. Stateless and thread-safe.
 *
 * <ul>
 *   <li>{@code id}: indexed keyword, stored first (so a hit's id is read without decoding the
 *       source);
 *   <li>{@code title}, {@code description}: analysed text with norms (BM25), not stored;
 *   <li>{@code category}: indexed keyword plus sorted doc values (Elasticsearch {@code keyword});
 *   <li>{@code price}, {@code average_rating}: numeric doc values only (Elasticsearch {@code index:
 *       false}); the rating is the float's raw bits. Being plain numeric doc values, both can be
 *       rewritten in place by {@code IndexWriter.updateDocValues};
 *   <li>{@code embedding}: {@link KnnFloatVectorField} with {@code DOT_PRODUCT};
 *   <li>{@code _source}: the whole document, stored, for {@code get} and partial updates. Price and
 *       rating read back from doc values win over the source, because a doc-values update does not
 *       touch the source.
 * </ul>
 */
final class LuceneMapping {
  static final String SOURCE = "_source";

  private LuceneMapping() {}

  /** Rejects values Lucene itself would refuse, before anything is logged. */
  static void validateForLucene(Document d) {
    if (d.category() != null) {
      validateCategory(d.id(), d.category());
    }
  }

  static void validateCategory(String id, String category) {
    int bytes = category.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > IndexWriter.MAX_TERM_LENGTH) {
      throw new InvalidRequestException(
          "category of document '"
              + id
              + "' is "
              + bytes
              + " bytes long; a keyword may have at most "
              + IndexWriter.MAX_TERM_LENGTH
              + " bytes");
    }
  }

  static Term idTerm(String id) {
    return new Term(Schema.ID, id);
  }

  static org.apache.lucene.document.Document toLucene(Document d) {
    org.apache.lucene.document.Document doc = new org.apache.lucene.document.Document();
    doc.add(new StringField(Schema.ID, d.id(), Field.Store.YES));
    if (!d.title().isEmpty()) {
      doc.add(new TextField(Schema.TITLE, d.title(), Field.Store.NO));
    }
    if (!d.description().isEmpty()) {
      doc.add(new TextField(Schema.DESCRIPTION, d.description(), Field.Store.NO));
    }
    if (d.category() != null) {
      doc.add(new StringField(Schema.CATEGORY, d.category(), Field.Store.NO));
      doc.add(new SortedDocValuesField(Schema.CATEGORY, new BytesRef(d.category())));
    }
    doc.add(new NumericDocValuesField(Schema.PRICE, d.price()));
    doc.add(new NumericDocValuesField(Schema.AVERAGE_RATING, ratingBits(d.averageRating())));
    if (d.embedding() != null) {
      doc.add(
          new KnnFloatVectorField(
              Schema.EMBEDDING, d.embedding(), VectorSimilarityFunction.DOT_PRODUCT));
    }
    doc.add(new StoredField(SOURCE, OperationCodec.encodeDocument(d)));
    return doc;
  }

  static long ratingBits(float rating) {
    return Float.floatToRawIntBits(rating);
  }

  /** The live document with this id in {@code reader}, or null. */
  static Document find(IndexReader reader, String id) throws IOException {
    BytesRef term = new BytesRef(id);
    // Newest segments last: an id lives in at most one live document, so the order only matters
    // for speed, and recently updated documents sit in the newest segments.
    for (int i = reader.leaves().size() - 1; i >= 0; i--) {
      LeafReaderContext leaf = reader.leaves().get(i);
      Terms terms = leaf.reader().terms(Schema.ID);
      if (terms == null) {
        continue;
      }
      TermsEnum te = terms.iterator();
      if (!te.seekExact(term)) {
        continue;
      }
      PostingsEnum postings = te.postings(null, PostingsEnum.NONE);
      Bits live = leaf.reader().getLiveDocs();
      for (int doc = postings.nextDoc();
          doc != DocIdSetIterator.NO_MORE_DOCS;
          doc = postings.nextDoc()) {
        if (live == null || live.get(doc)) {
          return load(leaf.reader(), doc);
        }
      }
    }
    return null;
  }

  /** Reads one document back: the source, with price and rating from doc values. */
  static Document load(LeafReader reader, int doc) throws IOException {
    SourceVisitor visitor = new SourceVisitor();
    reader.storedFields().document(doc, visitor);
    if (visitor.source == null) {
      throw new IllegalStateException("document " + doc + " has no stored source");
    }
    Document d = OperationCodec.decodeDocument(visitor.source, 0, visitor.source.length);
    int price = d.price();
    float rating = d.averageRating();
    NumericDocValues prices = reader.getNumericDocValues(Schema.PRICE);
    if (prices != null && prices.advanceExact(doc)) {
      price = (int) prices.longValue();
    }
    NumericDocValues ratings = reader.getNumericDocValues(Schema.AVERAGE_RATING);
    if (ratings != null && ratings.advanceExact(doc)) {
      rating = Float.intBitsToFloat((int) ratings.longValue());
    }
    if (price == d.price() && Float.compare(rating, d.averageRating()) == 0) {
      return d;
    }
    return new Document(
        d.id(), d.title(), d.description(), d.category(), price, rating, d.embedding());
  }

  /** Reads only the stored id, stopping right after it (it is the first stored field). */
  static final class IdVisitor extends StoredFieldVisitor {
    private final String field;
    String id;

    IdVisitor() {
      this(Schema.ID);
    }

    IdVisitor(String field) {
      this.field = field;
    }

    @Override
    public Status needsField(FieldInfo fieldInfo) {
      if (id != null) {
        return Status.STOP;
      }
      return field.equals(fieldInfo.name) ? Status.YES : Status.NO;
    }

    @Override
    public void stringField(FieldInfo fieldInfo, String value) {
      id = value;
    }
  }

  static final class SourceVisitor extends StoredFieldVisitor {
    private final String field;
    byte[] source;

    SourceVisitor() {
      this(SOURCE);
    }

    SourceVisitor(String field) {
      this.field = field;
    }

    @Override
    public Status needsField(FieldInfo fieldInfo) {
      if (source != null) {
        return Status.STOP;
      }
      return field.equals(fieldInfo.name) ? Status.YES : Status.NO;
    }

    @Override
    public void binaryField(FieldInfo fieldInfo, byte[] value) {
      source = value;
    }
  }
}
