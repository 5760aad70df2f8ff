package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import org.searchlab.core.Document;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.server.DocumentFields;
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
    return DocumentFields.document(id, source, "_source of document [" + id + "]");
  }

  /** A partial update from an {@code _update} {@code doc}. */
  public static PartialUpdate update(String id, JsonNode doc) {
    Json.object(doc, "doc of the update of [" + id + "]");
    PartialUpdate u = PartialUpdate.of(id);
    for (Iterator<Map.Entry<String, JsonNode>> it = doc.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      u = DocumentFields.assign(u, f.getKey(), f.getValue());
    }
    return u;
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
