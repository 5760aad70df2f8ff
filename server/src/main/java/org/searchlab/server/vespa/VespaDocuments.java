package org.searchlab.server.vespa;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.SourceJson;
import org.searchlab.core.mapping.DocumentParser;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.server.Json;
import org.searchlab.server.index.IndexHandle;

/**
 * Translates Vespa document JSON ({@code {"fields":{...}}} for a put, {@code
 * {"fields":{"price":{"assign":N}}}} for a partial update) to core records and back, against the
 * document type's mapping: a {@code dense_vector} field is a tensor, given as a plain array or as
 * Vespa's {@code {"values":[...]}} and shown as the latter. Stateless and thread-safe.
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
            what
                + " has ["
                + (k.length() > 40 ? k.substring(0, 37) + "..." : k)
                + "]; only [fields] is supported (no condition or create)");
      }
    }
    return Json.object(body.get("fields"), what + " [fields]");
  }

  static Document document(String id, JsonNode fields, Mapping mapping) {
    Map<String, Object> source = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = fields.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      source.put(f.getKey(), value(f.getKey(), f.getValue(), mapping));
    }
    return new Document(id, source);
  }

  static PartialUpdate update(String id, JsonNode fields, Mapping mapping) {
    Map<String, Object> doc = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = fields.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      String name = f.getKey().length() > 40 ? f.getKey().substring(0, 37) + "..." : f.getKey();
      String what = "update of field '" + name + "' of document '" + id + "'";
      JsonNode op = Json.object(f.getValue(), what);
      if (op.size() != 1 || !op.has("assign")) {
        throw new InvalidRequestException(
            what + " must be {\"assign\": value}; other update operations are not supported");
      }
      if (op.get("assign").isNull()) {
        throw new InvalidRequestException(
            what + " assigns null; a partial update cannot unset a field");
      }
      doc.put(f.getKey(), value(f.getKey(), op.get("assign"), mapping));
    }
    return new PartialUpdate(id, doc);
  }

  /** A field's value; a tensor's {@code {"values": [...]}} is its array. */
  private static Object value(String field, JsonNode v, Mapping mapping) {
    if (mapping.leaf(field) instanceof FieldType.DenseVector && v.isObject() && v.has("values")) {
      return SourceJson.value(v.get("values"));
    }
    return SourceJson.value(v);
  }

  /** Checks a document against the index's mapping without writing it ({@code dryRun}). */
  static void check(IndexHandle h, Document d) {
    DocumentParser.parse(h.index().mapping(), h.settings().defaultAnalyzer(), d);
  }

  /**
   * A hit's summary fields: the document's source, each vector as Vespa 8 renders a tensor in a
   * summary, {@code {"type":"tensor<float>(x[N])","values":[...]}}.
   */
  static ObjectNode summary(Document d, Mapping mapping) {
    return render(d, mapping, true);
  }

  /** A document's fields as the document API shows them, a vector as {@code {"values":[...]}}. */
  static ObjectNode fieldsOf(Document d, Mapping mapping) {
    return render(d, mapping, false);
  }

  private static ObjectNode render(Document d, Mapping mapping, boolean typed) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    for (Map.Entry<String, Object> e : d.source().entrySet()) {
      JsonNode v = SourceJson.json(e.getValue());
      if (mapping.leaf(e.getKey()) instanceof FieldType.DenseVector && v instanceof ArrayNode a) {
        ObjectNode t = Json.MAPPER.createObjectNode();
        if (typed) {
          t.put("type", "tensor<float>(x[" + a.size() + "])");
        }
        t.set("values", a);
        o.set(e.getKey(), t);
      } else {
        o.set(e.getKey(), v);
      }
    }
    return o;
  }
}
