package org.searchlab.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;

/**
 * Reads the schema's fields from a JSON object, for both dialects: an Elasticsearch {@code _source}
 * or {@code doc} and a Vespa {@code fields} object name the same fields the same way; only the
 * embedding may also be Vespa's {@code {"values":[...]}}. Unknown fields are a 400 naming them, so
 * a typo cannot silently drop data; a field {@code id} is accepted and ignored (the path or action
 * names the id). Stateless and thread-safe.
 */
public final class DocumentFields {
  private DocumentFields() {}

  /** A whole document from its fields; absent fields are empty (text) or 0 (numbers). */
  public static Document document(String id, JsonNode fields, String what) {
    Json.object(fields, what);
    String title = null;
    String description = null;
    String category = null;
    int price = 0;
    float rating = 0;
    float[] embedding = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = fields.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      JsonNode v = f.getValue();
      if (v.isNull()) {
        continue;
      }
      String field = "field [" + f.getKey() + "] of document [" + id + "]";
      switch (f.getKey()) {
        case Schema.ID -> {}
        case Schema.TITLE -> title = Json.string(v, field);
        case Schema.DESCRIPTION -> description = Json.string(v, field);
        case Schema.CATEGORY -> category = keyword(Json.string(v, field), field);
        case Schema.PRICE -> price = Json.integer(v, field, Integer.MIN_VALUE, Integer.MAX_VALUE);
        case Schema.AVERAGE_RATING -> rating = Json.floatValue(v, field);
        case Schema.EMBEDDING -> embedding = tensor(v, field);
        default -> throw unknown(f.getKey(), id);
      }
    }
    return new Document(id, title, description, category, price, rating, embedding);
  }

  /** {@code update} with {@code field} assigned {@code value}. */
  public static PartialUpdate assign(PartialUpdate update, String field, JsonNode value) {
    String what = "field [" + field + "] of the update of [" + update.id() + "]";
    if (value == null || value.isNull()) {
      throw new InvalidRequestException(what + " is null; a partial update cannot unset a field");
    }
    return switch (field) {
      case Schema.ID -> update;
      case Schema.TITLE -> update.withTitle(Json.string(value, what));
      case Schema.DESCRIPTION -> update.withDescription(Json.string(value, what));
      case Schema.CATEGORY -> update.withCategory(keyword(Json.string(value, what), what));
      case Schema.PRICE ->
          update.withPrice(Json.integer(value, what, Integer.MIN_VALUE, Integer.MAX_VALUE));
      case Schema.AVERAGE_RATING -> update.withAverageRating(Json.floatValue(value, what));
      case Schema.EMBEDDING -> update.withEmbedding(tensor(value, what));
      default -> throw unknown(field, update.id());
    };
  }

  /**
   * Lucene's limit on one indexed term ({@code IndexWriter.MAX_TERM_LENGTH}); a longer keyword
   * would make the segmented store throw deep inside indexing, which must not become a 500.
   */
  static final int MAX_KEYWORD_BYTES = 32766;

  private static String keyword(String v, String what) {
    int bytes = v.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (bytes > MAX_KEYWORD_BYTES) {
      throw new InvalidRequestException(
          what + " is " + bytes + " bytes long; a keyword may have at most " + MAX_KEYWORD_BYTES);
    }
    return v;
  }

  private static float[] tensor(JsonNode v, String what) {
    if (v.isObject() && v.has("values")) {
      return Json.vector(v.get("values"), what + ".values");
    }
    return Json.vector(v, what);
  }

  private static InvalidRequestException unknown(String field, String id) {
    return new InvalidRequestException(
        "field ["
            + field
            + "] of document ["
            + id
            + "] is not in the schema; the fields are id, title, description, category, price,"
            + " average_rating, embedding");
  }
}
