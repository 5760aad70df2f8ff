package org.searchlab.segmented;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.index.LeafReader;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;

/** The benchmark's fixed fields, as {@link LuceneMapping} indexes them. Stateless. */
final class ProductDocuments implements DocumentFields {
  private final Schema schema;

  ProductDocuments(Schema schema) {
    this.schema = schema;
  }

  @Override
  public Operation prepare(Operation op) {
    schema.validate(op);
    switch (op) {
      case Operation.Put put -> LuceneMapping.validateForLucene(put.document());
      case Operation.Update upd -> {
        if (upd.update().category() != null) {
          LuceneMapping.validateCategory(upd.id(), upd.update().category());
        }
      }
      case Operation.Delete del -> {}
    }
    return op;
  }

  @Override
  public Document reparse(Document after) {
    return after;
  }

  @Override
  public org.apache.lucene.document.Document toLucene(Document d) {
    return LuceneMapping.toLucene(d);
  }

  @Override
  public String idField() {
    return Schema.ID;
  }

  @Override
  public Document load(LeafReader reader, int doc) throws IOException {
    return LuceneMapping.load(reader, doc);
  }

  /** Price and rating alone: their numeric doc values. */
  @Override
  public Field[] inPlace(PartialUpdate u, Document current) {
    if (!u.onlyAttributes() || u.category() != null) {
      return null;
    }
    List<Field> fields = new ArrayList<>(2);
    if (u.price() != null) {
      fields.add(new NumericDocValuesField(Schema.PRICE, u.price()));
    }
    if (u.averageRating() != null) {
      fields.add(
          new NumericDocValuesField(
              Schema.AVERAGE_RATING, LuceneMapping.ratingBits(u.averageRating())));
    }
    return fields.toArray(new Field[0]);
  }
}
