package org.searchlab.server.vespa;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.server.DocumentFields;
import org.searchlab.server.Json;

/**
 * Translates Vespa document JSON ({@code {"fields":{...}}} for a put, {@code
 * {"fields":{"price":{"assign":N}}}} for a partial update) to core records and back. The embedding
 * may be a plain array or {@code {"values":[...]}}. Unknown fields are a 400, as in Vespa.
 * Stateless and thread-safe.
 */
final class VespaDocuments {
  private VespaDocuments() {}

  /** The {@code fields} object of a put or update body. */
  static JsonNode fields(JsonNode body, String what) {
    Json.object(body, what);
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!k.equals("fields") && !k.equals("put") && !k.equals("update") && !k.equals("id")) {
        throw new InvalidRequestException(
            what + " has [" + k + "]; only [fields] is supported (no condition or create)");
      }
    }
    return Json.object(body.get("fields"), what + " [fields]");
  }

  static Document document(String id, JsonNode fields) {
    return DocumentFields.document(id, fields, "fields of document '" + id + "'");
  }

  static PartialUpdate update(String id, JsonNode fields) {
    PartialUpdate u = PartialUpdate.of(id);
    for (Iterator<Map.Entry<String, JsonNode>> it = fields.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      String what = "update of field '" + f.getKey() + "' of document '" + id + "'";
      JsonNode op = Json.object(f.getValue(), what);
      if (op.size() != 1 || !op.has("assign")) {
        throw new InvalidRequestException(
            what + " must be {\"assign\": value}; other update operations are not supported");
      }
      u = DocumentFields.assign(u, f.getKey(), op.get("assign"));
    }
    return u;
  }

  /** The summary fields of a document; {@code withEmbedding} adds the tensor. */
  static ObjectNode fieldsOf(Document d, boolean withEmbedding) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put(Schema.TITLE, d.title());
    o.put(Schema.DESCRIPTION, d.description());
    if (d.category() != null) {
      o.put(Schema.CATEGORY, d.category());
    }
    o.put(Schema.PRICE, d.price());
    o.put(Schema.AVERAGE_RATING, d.averageRating());
    if (withEmbedding && d.embedding() != null) {
      var values = o.putObject(Schema.EMBEDDING).putArray("values");
      for (float f : d.embedding()) {
        values.add(f);
      }
    }
    return o;
  }
}
