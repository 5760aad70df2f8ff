package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.searchlab.core.Document;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.SourceJson;

/**
 * Translates an Elasticsearch {@code _source} to a {@link Document} or a {@link PartialUpdate} and
 * back: the source is kept as the client sent it, and the index's mapping decides what each field
 * is when the store reads it. Stateless and thread-safe.
 */
public final class EsDocuments {
  private EsDocuments() {}

  /** A whole document from its {@code _source}. */
  public static Document document(String id, JsonNode source) {
    return new Document(id, SourceJson.object(source, "_source of document [" + id + "]"));
  }

  /** A partial update from an {@code _update} {@code doc}. */
  public static PartialUpdate update(String id, JsonNode doc) {
    return new PartialUpdate(id, SourceJson.object(doc, "doc of the update of [" + id + "]"));
  }

  /** The {@code _source} of a document. */
  public static ObjectNode source(Document d) {
    return SourceJson.json(d.source());
  }
}
