package org.searchlab.server.vespa;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.server.Json;

/**
 * Reads a Vespa query tensor parameter: a JSON array ({@code [0.1, ...]}), a string holding one, an
 * object {@code {"values": [...]}}, or {@code embed(...)} ({@code embed(text)}, {@code
 * embed("text")}, {@code embed(model, "text")}, {@code embed(@param)}), which asks the server's
 * embedder. Stateless.
 */
final class QueryTensor {
  private QueryTensor() {}

  /** A {@code float[]}, or the {@code String} to embed. */
  static Object parse(JsonNode v, String name, Map<String, JsonNode> params) {
    if (v.isArray()) {
      return Json.vector(v, name);
    }
    if (v.isObject() && v.has("values")) {
      return Json.vector(v.get("values"), name + ".values");
    }
    String s = Json.string(v, name).trim();
    if (s.startsWith("[")) {
      return Json.vector(
          Json.parse(s.getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, s.length(), name),
          name);
    }
    if (s.startsWith("{")) {
      JsonNode obj =
          Json.parse(s.getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, s.length(), name);
      return parse(obj, name, params);
    }
    if (s.startsWith("embed(") && s.endsWith(")")) {
      String args = s.substring("embed(".length(), s.length() - 1).trim();
      String text = lastArgument(args);
      if (text.startsWith("@")) {
        JsonNode ref = params.get(text.substring(1));
        if (ref == null) {
          throw new InvalidRequestException(
              name + " refers to parameter '" + text.substring(1) + "', which is missing");
        }
        text = Json.string(ref, text.substring(1));
      }
      if (text.isEmpty()) {
        throw new InvalidRequestException(name + " embeds an empty text");
      }
      return text;
    }
    throw new InvalidRequestException(
        name + " must be a JSON array of numbers or embed(...), got '" + abbreviate(s) + "'");
  }

  /** The last top-level comma-separated argument, unquoted. */
  private static String lastArgument(String args) {
    boolean quoted = false;
    char quote = 0;
    int lastComma = -1;
    for (int i = 0; i < args.length(); i++) {
      char c = args.charAt(i);
      if (quoted) {
        if (c == '\\') {
          i++;
        } else if (c == quote) {
          quoted = false;
        }
      } else if (c == '"' || c == '\'') {
        quoted = true;
        quote = c;
      } else if (c == ',') {
        lastComma = i;
      }
    }
    String last = args.substring(lastComma + 1).trim();
    if (last.length() >= 2
        && (last.charAt(0) == '"' || last.charAt(0) == '\'')
        && last.charAt(last.length() - 1) == last.charAt(0)) {
      last = last.substring(1, last.length() - 1).replace("\\\"", "\"").replace("\\'", "'");
    }
    return last;
  }

  private static String abbreviate(String s) {
    return s.length() > 60 ? s.substring(0, 57) + "..." : s;
  }
}
