package org.searchlab.server;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import java.io.IOException;
import org.searchlab.core.InvalidRequestException;

/**
 * The shared JSON mapper and the helpers every dialect uses to read request bodies strictly: a
 * malformed body, a missing field or a value of the wrong type is an {@link
 * InvalidRequestException} naming the field. Thread-safe (the mapper is immutable after
 * construction).
 */
public final class Json {
  /**
   * The one mapper. {@code NaN} and {@code Infinity} literals are accepted by the parser so that
   * the schema can reject them with a message that names the component, rather than a parse error.
   */
  public static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          // As Elasticsearch: {"price":1,"price":2} is an error, not "the last one wins".
          .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          // Vectors arrive as text: 384 numbers per query or document. The JDK's parser took about
          // 50 us per 384-number body in Jackson's tree (a tenth of a vector query's server CPU);
          // Jackson's bundled FastDoubleParser, correctly rounded like it, about 30 us.
          .enable(com.fasterxml.jackson.core.StreamReadFeature.USE_FAST_DOUBLE_PARSER)
          .build();

  /**
   * The mapper of CBOR answers (RFC 8949): the same trees as JSON, binary-encoded. Floats stay
   * single-precision floats, doubles double, as the JSON text prints them.
   */
  private static final ObjectMapper CBOR_MAPPER = CBORMapper.builder().build();

  private Json() {}

  /** Serializes a tree or a map to CBOR bytes. */
  public static byte[] cborBytes(Object value) {
    try {
      return CBOR_MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize " + value.getClass() + " to CBOR", e);
    }
  }

  /** Parses a whole body; an empty body is an error naming {@code what}. */
  public static JsonNode parse(ByteBuf body, String what) {
    if (!body.isReadable()) {
      throw new InvalidRequestException(what + " is empty; a JSON body is required");
    }
    try (ByteBufInputStream in = new ByteBufInputStream(body.duplicate())) {
      return parse(MAPPER.createParser((java.io.InputStream) in), what);
    } catch (IOException e) {
      throw malformed(what, e);
    }
  }

  /** Parses one JSON text. */
  public static JsonNode parse(byte[] bytes, int offset, int length, String what) {
    try {
      return parse(MAPPER.createParser(bytes, offset, length), what);
    } catch (IOException e) {
      throw malformed(what, e);
    }
  }

  private static JsonNode parse(JsonParser parser, String what) throws IOException {
    try (parser) {
      JsonNode node = MAPPER.readTree(parser);
      if (node == null || node.isMissingNode()) {
        throw new InvalidRequestException(what + " is empty; a JSON body is required");
      }
      if (parser.nextToken() != null) {
        throw new InvalidRequestException(what + " has trailing content after the JSON value");
      }
      return node;
    }
  }

  private static InvalidRequestException malformed(String what, IOException e) {
    String msg = e instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : e.toString();
    String where = "";
    if (e instanceof JsonProcessingException jpe && jpe.getLocation() != null) {
      where =
          " at line "
              + jpe.getLocation().getLineNr()
              + ", column "
              + jpe.getLocation().getColumnNr();
    }
    return new InvalidRequestException(what + " is not valid JSON" + where + ": " + msg);
  }

  /** Serializes a tree or a map to bytes. */
  public static byte[] bytes(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize " + value.getClass(), e);
    }
  }

  /** Requires {@code node} to be an object. */
  public static JsonNode object(JsonNode node, String what) {
    if (node == null || !node.isObject()) {
      throw new InvalidRequestException(what + " must be a JSON object, got " + describe(node));
    }
    return node;
  }

  /** A string value. */
  public static String string(JsonNode node, String what) {
    if (node == null || !node.isTextual()) {
      throw new InvalidRequestException(what + " must be a string, got " + describe(node));
    }
    return node.textValue();
  }

  /** An integral value within [min, max]. */
  public static int integer(JsonNode node, String what, long min, long max) {
    if (node != null && node.isTextual()) {
      try {
        long v = Long.parseLong(node.textValue().trim());
        return checkRange(v, what, min, max);
      } catch (NumberFormatException e) {
        throw new InvalidRequestException(
            what + " must be an integer, got '" + node.textValue() + "'");
      }
    }
    if (node == null || !node.isNumber()) {
      throw new InvalidRequestException(what + " must be an integer, got " + describe(node));
    }
    if (!node.canConvertToExactIntegral()) {
      throw new InvalidRequestException(what + " must be an integer, got " + node);
    }
    if (!node.canConvertToLong()) {
      throw new InvalidRequestException(
          what + " " + node + " is outside [" + min + ", " + max + "]");
    }
    return checkRange(node.longValue(), what, min, max);
  }

  private static int checkRange(long v, String what, long min, long max) {
    if (v < min || v > max) {
      throw new InvalidRequestException(what + " " + v + " is outside [" + min + ", " + max + "]");
    }
    return (int) v;
  }

  /** A float value; NaN and infinities pass here and are rejected by the schema with context. */
  public static float floatValue(JsonNode node, String what) {
    if (node == null || !node.isNumber()) {
      throw new InvalidRequestException(what + " must be a number, got " + describe(node));
    }
    return node.floatValue();
  }

  /** A boolean value. */
  public static boolean bool(JsonNode node, String what) {
    if (node != null && node.isTextual()) {
      String t = node.textValue();
      if (t.equals("true") || t.equals("false")) {
        return Boolean.parseBoolean(t);
      }
    }
    if (node == null || !node.isBoolean()) {
      throw new InvalidRequestException(what + " must be true or false, got " + describe(node));
    }
    return node.booleanValue();
  }

  /** A float array, for vectors. */
  public static float[] vector(JsonNode node, String what) {
    if (node == null || !node.isArray()) {
      throw new InvalidRequestException(
          what + " must be an array of numbers, got " + describe(node));
    }
    float[] v = new float[node.size()];
    for (int i = 0; i < v.length; i++) {
      JsonNode c = node.get(i);
      if (!c.isNumber()) {
        throw new InvalidRequestException(
            what + "[" + i + "] must be a number, got " + describe(c));
      }
      v[i] = c.floatValue();
    }
    return v;
  }

  /** A short description of a node for messages. */
  public static String describe(JsonNode node) {
    if (node == null || node.isMissingNode()) {
      return "nothing";
    }
    JsonNodeType t = node.getNodeType();
    String s = node.toString();
    return t.name().toLowerCase(java.util.Locale.ROOT)
        + " "
        + (s.length() > 60 ? s.substring(0, 57) + "..." : s);
  }
}
