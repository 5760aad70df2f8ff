package org.searchlab.segmented;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.DoubleField;
import org.apache.lucene.document.DoublePoint;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KeywordField;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.LongField;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.mapping.DocumentParser;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.IndexMapping;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.MappingException;
import org.searchlab.core.mapping.ParsedDocument;
import org.searchlab.core.mapping.VectorSimilarity;
import org.searchlab.core.wal.OperationCodec;

/**
 * Any mapping in Lucene fields, as Elasticsearch maps each field type:
 *
 * <ul>
 *   <li>{@code text}: one {@link TextField} per value, analysed by the field's analyzer (the
 *       writer's {@link LuceneFields.PerFieldAnalyzer}), with norms; {@code index: false} indexes
 *       nothing;
 *   <li>{@code keyword}: {@link KeywordField} (the term without norms, and sorted-set doc values);
 *       {@code index: false} keeps the doc values only, {@code doc_values: false} the term only;
 *   <li>integer types, {@code date} and {@code boolean}: {@link LongField}; {@code double} and
 *       {@code float} (its value rounded to float precision): {@link DoubleField}, points plus
 *       sorted-numeric doc values. With {@code index: false} a single value is plain numeric doc
 *       values (rewritable in place), several are sorted-numeric doc values under {@value
 *       #MULTI_VALUED}{@code <path>};
 *   <li>{@code dense_vector}: {@link KnnFloatVectorField} with the similarity's Lucene function (a
 *       normalised copy for {@code cosine}) when indexed; the vector as given in binary doc values
 *       under {@value #VECTOR}{@code <path>} only where the index does not keep it as given ({@code
 *       cosine}, {@code index: false}). {@link LeafVectors} reads whichever a segment has;
 *   <li>metadata: {@value #ID} (indexed and stored first), {@value #SOURCE} (the parsed document,
 *       stored, with each vector replaced by an empty placeholder: the vector lives once, in the
 *       field above, and {@link #load} puts it back) and {@value #FIELD_NAMES} (the paths of values
 *       that have neither doc values nor norms, for {@code exists}).
 * </ul>
 *
 * <p>Keeping vectors out of the stored source is what Elasticsearch 9.2 does by default ({@code
 * index.mapping.exclude_source_vectors}); unlike Elasticsearch, this store still returns them in
 * {@code _source}, read back from the index, so responses do not change. At 384 dimensions it saves
 * about 1.5 KB of stored fields per document, and a second 1.5 KB of doc values for the
 * similarities whose indexed vectors are the vectors as given.
 *
 * <p>Every put is read by {@link IndexMapping#parse} before it is logged, and the log holds the
 * parsed document; a replay reads it again with {@link IndexMapping#parseKnown}. Thread-safe.
 */
final class MappedDocuments implements DocumentFields {
  static final String ID = "_id";
  static final String SOURCE = "_source";
  static final String FIELD_NAMES = "_field_names";
  static final String MULTI_VALUED = "_field_names.multi_valued.";
  static final String VECTOR = "_vector.";

  private final IndexMapping mapping;
  private final int maxDimensions;

  /**
   * @param maxDimensions the most dimensions the store's vector format indexes: a document whose
   *     dynamic mapping would add a larger vector field is refused before the mapping changes
   */
  MappedDocuments(IndexMapping mapping, int maxDimensions) {
    this.mapping = mapping;
    this.maxDimensions = maxDimensions;
  }

  IndexMapping mapping() {
    return mapping;
  }

  @Override
  public Operation prepare(Operation op) throws IOException {
    Schema.validateId(op.id());
    return switch (op) {
      case Operation.Put put -> {
        Document parsed = parse(put.document());
        yield put.ifAbsent() ? Operation.create(parsed) : Operation.put(parsed);
      }
      case Operation.Update upd -> {
        mapping.checkPatch(upd.update());
        yield op;
      }
      case Operation.Delete del -> op;
    };
  }

  @Override
  public Document reparse(Document after) throws IOException {
    return parse(after);
  }

  /**
   * Reads a document against the mapping; when it adds fields, checks them against Lucene's limits
   * first and then makes the grown mapping durable ({@link IndexMapping#parse}).
   */
  private Document parse(Document d) throws IOException {
    ParsedDocument p =
        DocumentParser.parse(mapping.current(), mapping.settings().defaultAnalyzer(), d);
    if (!p.mappingChanged()) {
      return p.document();
    }
    for (Map.Entry<String, FieldType> e : p.mapping().leaves().entrySet()) {
      if (e.getValue() instanceof FieldType.DenseVector v && v.dims() > maxDimensions) {
        throw MappingException.parsing(
            "field ["
                + e.getKey()
                + "] would be a dense_vector of "
                + v.dims()
                + " dimensions; the segmented store indexes at most "
                + maxDimensions);
      }
    }
    return mapping.parse(d).document();
  }

  @Override
  public org.apache.lucene.document.Document toLucene(Document d) {
    return toLucene(mapping.parseKnown(d));
  }

  static org.apache.lucene.document.Document toLucene(ParsedDocument p) {
    org.apache.lucene.document.Document doc = new org.apache.lucene.document.Document();
    doc.add(new StringField(ID, p.id(), Field.Store.YES));
    Mapping m = p.mapping();
    java.util.Set<String> vectors = null;
    for (var e : p.values().entrySet()) {
      String path = e.getKey();
      Object values = e.getValue();
      switch (m.leaf(path)) {
        case FieldType.Text t -> {
          String[] strings = (String[]) values;
          if (t.indexed()) {
            for (String s : strings) {
              doc.add(new TextField(path, s, Field.Store.NO));
            }
          } else if (hasTokens(t, strings)) {
            fieldName(doc, path);
          }
        }
        case FieldType.Keyword k -> {
          for (String s : (String[]) values) {
            if (k.indexed() && k.docValues()) {
              doc.add(new KeywordField(path, s, Field.Store.NO));
            } else if (k.indexed()) {
              doc.add(new StringField(path, s, Field.Store.NO));
            } else if (k.docValues()) {
              doc.add(new SortedSetDocValuesField(path, new BytesRef(s)));
            }
          }
          if (!k.docValues()) {
            fieldName(doc, path);
          }
        }
        case FieldType.Numeric n -> numbers(doc, path, n.indexed(), n.docValues(), values);
        case FieldType.Date d -> numbers(doc, path, d.indexed(), d.docValues(), values);
        case FieldType.Bool b -> numbers(doc, path, b.indexed(), b.docValues(), values);
        case FieldType.DenseVector v -> {
          float[] vector = (float[]) values;
          if (v.indexed()) {
            doc.add(
                new KnnFloatVectorField(
                    path, v.similarity().indexed(vector), v.similarity().lucene()));
          }
          if (!v.indexed() || v.similarity() == VectorSimilarity.COSINE) {
            doc.add(new BinaryDocValuesField(VECTOR + path, encode(vector)));
          }
          if (vectors == null) {
            vectors = new java.util.HashSet<>();
          }
          vectors.add(path);
        }
        case null, default -> {}
      }
    }
    Document stored =
        vectors == null
            ? p.document()
            : p.document().withSource(withoutVectors(p.document().source(), "", vectors));
    doc.add(new StoredField(SOURCE, OperationCodec.encodeDocument(stored)));
    return doc;
  }

  /** What the stored source holds in place of a vector that lives in its field. */
  private static final float[] NO_VECTOR = new float[0];

  /**
   * {@code source} with the vectors at {@code paths} replaced by {@link #NO_VECTOR} (objects along
   * the way copied, the rest shared; a vector inside an array of objects stays where it is).
   */
  static Map<String, Object> withoutVectors(
      Map<String, Object> source, String prefix, java.util.Set<String> paths) {
    Map<String, Object> out = null;
    for (Map.Entry<String, Object> e : source.entrySet()) {
      String path = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
      Object value = e.getValue();
      Object replaced = value;
      if (value instanceof float[] && paths.contains(path)) {
        replaced = NO_VECTOR;
      } else if (value instanceof Map<?, ?> m) {
        @SuppressWarnings("unchecked")
        Map<String, Object> inner = (Map<String, Object>) m;
        replaced = withoutVectors(inner, path, paths);
      }
      if (replaced != value) {
        if (out == null) {
          out = new java.util.LinkedHashMap<>(source);
        }
        out.put(e.getKey(), replaced);
      }
    }
    return out == null ? source : out;
  }

  /**
   * {@code source} with each placeholder of a vector field put back from the segment, or null when
   * it holds none.
   */
  private Map<String, Object> withVectors(
      Map<String, Object> source, String prefix, LeafReader reader, int doc) throws IOException {
    Map<String, Object> out = null;
    for (Map.Entry<String, Object> e : source.entrySet()) {
      String path = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
      Object value = e.getValue();
      Object replaced = value;
      if (value instanceof float[] f && f.length == 0) {
        // A placeholder, or an empty array the document gave (which indexed no vector: kept).
        LeafVectors vectors = LeafVectors.open(reader, path);
        float[] v = vectors == null ? null : vectors.get(doc);
        if (v != null) {
          replaced = v;
        }
      } else if (value instanceof Map<?, ?> m) {
        @SuppressWarnings("unchecked")
        Map<String, Object> inner = (Map<String, Object>) m;
        Map<String, Object> back = withVectors(inner, path, reader, doc);
        replaced = back == null ? value : back;
      }
      if (replaced != value) {
        if (out == null) {
          out = new java.util.LinkedHashMap<>(source);
        }
        out.put(e.getKey(), replaced);
      }
    }
    return out;
  }

  private static boolean hasTokens(FieldType.Text t, String[] values) {
    for (String s : values) {
      if (!TextAnalysis.tokens(t.analyzer(), s).isEmpty()) {
        return true;
      }
    }
    return false;
  }

  private static void fieldName(org.apache.lucene.document.Document doc, String path) {
    doc.add(new StringField(FIELD_NAMES, path, Field.Store.NO));
  }

  private static void numbers(
      org.apache.lucene.document.Document doc,
      String path,
      boolean indexed,
      boolean docValues,
      Object values) {
    long[] encoded;
    if (values instanceof long[] longs) {
      encoded = longs;
      if (indexed) {
        for (long v : longs) {
          doc.add(docValues ? new LongField(path, v, Field.Store.NO) : new LongPoint(path, v));
        }
      }
    } else {
      double[] doubles = (double[]) values;
      encoded = new long[doubles.length];
      for (int i = 0; i < doubles.length; i++) {
        encoded[i] = NumericUtils.doubleToSortableLong(doubles[i]);
        if (indexed) {
          doc.add(
              docValues
                  ? new DoubleField(path, doubles[i], Field.Store.NO)
                  : new DoublePoint(path, doubles[i]));
        }
      }
    }
    if (!docValues) {
      fieldName(doc, path);
    } else if (!indexed) {
      if (encoded.length == 1) {
        doc.add(new NumericDocValuesField(path, encoded[0]));
      } else {
        for (long v : encoded) {
          doc.add(new SortedNumericDocValuesField(MULTI_VALUED + path, v));
        }
      }
    }
  }

  static BytesRef encode(float[] v) {
    ByteBuffer b = ByteBuffer.allocate(v.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.asFloatBuffer().put(v);
    return new BytesRef(b.array());
  }

  static float[] decode(BytesRef r) {
    float[] v = new float[r.length / Float.BYTES];
    ByteBuffer.wrap(r.bytes, r.offset, r.length)
        .order(ByteOrder.LITTLE_ENDIAN)
        .asFloatBuffer()
        .get(v);
    return v;
  }

  @Override
  public String idField() {
    return ID;
  }

  @Override
  public Document load(LeafReader reader, int doc) throws IOException {
    LuceneMapping.SourceVisitor visitor = new LuceneMapping.SourceVisitor(SOURCE);
    reader.storedFields().document(doc, visitor);
    if (visitor.source == null) {
      throw new IllegalStateException("document " + doc + " has no stored source");
    }
    Document d = OperationCodec.decodeDocument(visitor.source, 0, visitor.source.length);
    Map<String, Object> back = withVectors(d.source(), "", reader, doc);
    if (back != null) {
      d = d.withSource(back);
    }
    // Numbers rewritten in place (inPlace) are newer in the doc values than in the source.
    Map<String, Object> source = null;
    for (Map.Entry<String, FieldType> e : mapping.current().properties().entrySet()) {
      if (!inPlaceField(e.getValue()) || !(d.source().get(e.getKey()) instanceof Long stored)) {
        continue;
      }
      NumericDocValues values = reader.getNumericDocValues(e.getKey());
      if (values != null && values.advanceExact(doc) && values.longValue() != stored) {
        if (source == null) {
          source = new java.util.LinkedHashMap<>(d.source());
        }
        source.put(e.getKey(), values.longValue());
      }
    }
    return source == null ? d : d.withSource(source);
  }

  /**
   * Whole numbers alone, each assigned to a top-level {@code index: false} integer field with doc
   * values that holds one value now (so one numeric doc value): rewritten in place. {@link #load}
   * reads them back over the stored source, which an in-place update does not touch.
   */
  @Override
  public Field[] inPlace(PartialUpdate u, Document current) {
    Mapping m = mapping.current();
    Field[] out = new Field[u.doc().size()];
    int i = 0;
    for (Map.Entry<String, Object> e : u.doc().entrySet()) {
      if (!inPlaceField(m.properties().get(e.getKey()))
          || !(e.getValue() instanceof Long || e.getValue() instanceof Integer)
          || !(current.source().get(e.getKey()) instanceof Long)) {
        return null;
      }
      out[i++] = new NumericDocValuesField(e.getKey(), ((Number) e.getValue()).longValue());
    }
    return out;
  }

  private static boolean inPlaceField(FieldType f) {
    return f instanceof FieldType.Numeric n && n.type().integral() && !n.indexed() && n.docValues();
  }
}
