package org.searchlab.bench.data;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Schema;

/**
 * The one-line JSON form of a document in {@code docs.ndjson} and in {@code --source ndjson} input:
 * the benchmark's field names ({@code id, title, description, category, price, average_rating},
 * optional {@code embedding}). Thread-safe (Jackson's {@link ObjectMapper} is).
 */
final class DocumentJson {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private DocumentJson() {}

  /**
   * The {@code id} of one line, reading no further than needed: {@link #toLine} writes it first, so
   * opening a dataset of millions of documents does not parse every description.
   */
  static String id(String line) {
    try (JsonParser p = MAPPER.getFactory().createParser(line)) {
      if (p.nextToken() == JsonToken.START_OBJECT
          && Schema.ID.equals(p.nextFieldName())
          && p.nextToken() == JsonToken.VALUE_STRING) {
        return p.getText();
      }
    } catch (IOException e) {
      throw new InvalidRequestException("not a JSON document line: " + e.getMessage());
    }
    JsonNode id;
    try {
      id = MAPPER.readTree(line).get(Schema.ID);
    } catch (JsonProcessingException e) {
      throw new InvalidRequestException("not a JSON document line: " + e.getOriginalMessage());
    }
    if (id == null) {
      throw new InvalidRequestException("document line without \"id\": " + line);
    }
    return id.asText();
  }

  /** One line without the embedding (the embedding lives in {@code vectors.fvecs}). */
  static String toLine(Document doc) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put(Schema.ID, doc.id());
    node.put(Schema.TITLE, doc.title());
    node.put(Schema.DESCRIPTION, doc.description());
    if (doc.category() != null) {
      node.put(Schema.CATEGORY, doc.category());
    } else {
      node.putNull(Schema.CATEGORY);
    }
    node.put(Schema.PRICE, doc.price());
    node.put(Schema.AVERAGE_RATING, doc.averageRating());
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise " + doc, e);
    }
  }

  /**
   * Parses one line. A missing {@code embedding} gives a document without one; a decimal {@code
   * price} is rounded to the nearest integer.
   *
   * @param where file and line number, for error messages
   */
  static Document parse(String line, String where) {
    JsonNode node;
    try {
      node = MAPPER.readTree(line);
    } catch (JsonProcessingException e) {
      throw new InvalidRequestException(where + ": not JSON: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      throw new InvalidRequestException(where + ": expected a JSON object per line");
    }
    JsonNode id = node.get(Schema.ID);
    if (id == null || !id.isValueNode() || id.asText().isEmpty()) {
      throw new InvalidRequestException(where + ": missing \"id\"");
    }
    JsonNode category = node.get(Schema.CATEGORY);
    float[] embedding = null;
    JsonNode e = node.get(Schema.EMBEDDING);
    if (e != null && !e.isNull()) {
      if (!e.isArray()) {
        throw new InvalidRequestException(where + ": \"embedding\" must be an array of numbers");
      }
      ArrayNode array = (ArrayNode) e;
      embedding = new float[array.size()];
      for (int i = 0; i < embedding.length; i++) {
        if (!array.get(i).isNumber()) {
          throw new InvalidRequestException(
              where + ": embedding[" + i + "] is " + array.get(i) + ", not a number");
        }
        embedding[i] = array.get(i).floatValue();
      }
    }
    return new Document(
        id.asText(),
        text(node, Schema.TITLE),
        text(node, Schema.DESCRIPTION),
        category == null || category.isNull() ? null : category.asText(),
        (int) Math.round(number(node, Schema.PRICE, where)),
        (float) number(node, Schema.AVERAGE_RATING, where),
        embedding);
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? "" : v.asText();
  }

  private static double number(JsonNode node, String field, String where) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return 0;
    }
    if (v.isNumber()) {
      return v.doubleValue();
    }
    if (v.isTextual()) {
      try {
        return Double.parseDouble(v.asText().trim());
      } catch (NumberFormatException ex) {
        // fall through to the error below
      }
    }
    throw new InvalidRequestException(where + ": \"" + field + "\" is " + v + ", not a number");
  }
}
