package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.server.Json;

/**
 * Translates an Elasticsearch {@code _source} to a {@link Document} or a {@link PartialUpdate} and
 * back. The mapping is strict ({@code "dynamic": "strict"}): an unknown field is a 400 naming it,
 * so a typo cannot silently drop data. A source field {@code id} is accepted and ignored (the
 * {@code _id} is the id). Stateless and thread-safe.
 */
public final class EsDocuments {
  private EsDocuments() {}

  /** A whole document from its {@code _source}. */
  public static Document document(String id, JsonNode source) {
    Json.object(source, "_source of document [" + id + "]");
    String title = null;
    String description = null;
    String category = null;
    int price = 0;
    float rating = 0;
    float[] embedding = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = source.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      JsonNode v = f.getValue();
      String what = "field [" + f.getKey() + "] of document [" + id + "]";
      switch (f.getKey()) {
        case Schema.ID -> {}
        case Schema.TITLE -> title = v.isNull() ? null : Json.string(v, what);
        case Schema.DESCRIPTION -> description = v.isNull() ? null : Json.string(v, what);
        case Schema.CATEGORY -> category = v.isNull() ? null : Json.string(v, what);
        case Schema.PRICE ->
            price = v.isNull() ? 0 : Json.integer(v, what, Integer.MIN_VALUE, Integer.MAX_VALUE);
        case Schema.AVERAGE_RATING -> rating = v.isNull() ? 0 : Json.floatValue(v, what);
        case Schema.EMBEDDING -> embedding = v.isNull() ? null : Json.vector(v, what);
        default -> throw unknownField(f.getKey(), id);
      }
    }
    return new Document(id, title, description, category, price, rating, embedding);
  }

  /** A partial update from an {@code _update} {@code doc}. */
  public static PartialUpdate update(String id, JsonNode doc) {
    Json.object(doc, "doc of the update of [" + id + "]");
    PartialUpdate u = PartialUpdate.of(id);
    for (Iterator<Map.Entry<String, JsonNode>> it = doc.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      JsonNode v = f.getValue();
      String what = "field [" + f.getKey() + "] of the update of [" + id + "]";
      if (v.isNull()) {
        throw new InvalidRequestException(what + " is null; a partial update cannot unset a field");
      }
      u =
          switch (f.getKey()) {
            case Schema.ID -> u;
            case Schema.TITLE -> u.withTitle(Json.string(v, what));
            case Schema.DESCRIPTION -> u.withDescription(Json.string(v, what));
            case Schema.CATEGORY -> u.withCategory(Json.string(v, what));
            case Schema.PRICE ->
                u.withPrice(Json.integer(v, what, Integer.MIN_VALUE, Integer.MAX_VALUE));
            case Schema.AVERAGE_RATING -> u.withAverageRating(Json.floatValue(v, what));
            case Schema.EMBEDDING -> u.withEmbedding(Json.vector(v, what));
            default -> throw unknownField(f.getKey(), id);
          };
    }
    return u;
  }

  private static InvalidRequestException unknownField(String field, String id) {
    return new InvalidRequestException(
        "field ["
            + field
            + "] of document ["
            + id
            + "] is not in the mapping; the fields are id, title, description, category, price,"
            + " average_rating, embedding");
  }

  /** The {@code _source} of a document. */
  public static ObjectNode source(Document d) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put(Schema.ID, d.id());
    o.put(Schema.TITLE, d.title());
    o.put(Schema.DESCRIPTION, d.description());
    if (d.category() != null) {
      o.put(Schema.CATEGORY, d.category());
    }
    o.put(Schema.PRICE, d.price());
    o.put(Schema.AVERAGE_RATING, d.averageRating());
    if (d.embedding() != null) {
      var arr = o.putArray(Schema.EMBEDDING);
      for (float f : d.embedding()) {
        arr.add(f);
      }
    }
    return o;
  }
}
