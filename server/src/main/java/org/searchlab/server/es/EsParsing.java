package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.server.ApiException;
import org.searchlab.server.Json;
import org.searchlab.server.Text;

/**
 * The reading rules the search-body translators share, with Elasticsearch's two kinds of 400: a
 * body whose structure is wrong (an unknown key, an unknown query type, an object where a value
 * belongs) is a {@code parsing_exception}; a well-formed value the server cannot honour (an option
 * it does not implement, a number out of range) is an {@code illegal_argument_exception} ({@link
 * InvalidRequestException}). Every message names where in the body the problem is ({@code
 * [query.bool.must[1].match.title]}; a {@code where} argument is that path without the brackets)
 * and quotes client input through {@link Text#quote}, so a hostile body is never echoed back whole.
 * Stateless and thread-safe.
 */
final class EsParsing {
  private EsParsing() {}

  /** A {@code parsing_exception}. */
  static ApiException parsing(String reason) {
    return new ApiException(400, "parsing_exception", reason);
  }

  /** An {@code illegal_argument_exception}. */
  static InvalidRequestException illegal(String reason) {
    return new InvalidRequestException(reason);
  }

  /** {@code node} as an object, or a {@code parsing_exception} naming {@code where}. */
  static JsonNode object(JsonNode node, String where) {
    if (node == null || !node.isObject()) {
      throw parsing("[" + where + "] must be a JSON object, got " + Json.describe(node));
    }
    return node;
  }

  /**
   * Checks that {@code obj} has only {@code supported} keys; a key of {@code refused} is an option
   * Elasticsearch has and this server does not honour (a 400 saying so), any other key a {@code
   * parsing_exception}.
   */
  static void keys(JsonNode obj, String where, Set<String> supported, Set<String> refused) {
    for (Iterator<String> it = obj.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (supported.contains(k)) {
        continue;
      }
      if (refused.contains(k)) {
        throw notSupported(where + "." + k);
      }
      throw parsing(
          "unknown key ["
              + Text.quote(k)
              + "] in ["
              + where
              + "]; supported: "
              + String.join(", ", new TreeSet<>(supported)));
    }
  }

  /** A 400 for an Elasticsearch option this server does not implement. */
  static InvalidRequestException notSupported(String what) {
    return illegal("[" + what + "] is not supported by this server");
  }

  /**
   * The one key of a query body that names a field ({@code {"title": ...}}), skipping {@code
   * options} (keys that may sit beside the field, such as {@code boost} in {@code terms}). Several
   * field keys are a {@code parsing_exception}, as Elasticsearch answers "[term] query doesn't
   * support multiple fields".
   */
  static Map.Entry<String, JsonNode> field(JsonNode obj, String where, Set<String> options) {
    Map.Entry<String, JsonNode> found = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = obj.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (options.contains(e.getKey())) {
        continue;
      }
      if (found != null) {
        throw parsing(
            "["
                + where
                + "] does not support multiple fields, found ["
                + Text.quote(found.getKey())
                + "] and ["
                + Text.quote(e.getKey())
                + "]");
      }
      found = e;
    }
    if (found == null) {
      throw parsing("[" + where + "] names no field");
    }
    if (found.getKey().isEmpty()) {
      throw illegal("[" + where + "]: the field name is empty");
    }
    return found;
  }

  /**
   * A finite number: a JSON number or a numeric string (Elasticsearch coerces {@code "2"}).
   *
   * @throws InvalidRequestException naming {@code where} otherwise
   */
  static float number(JsonNode v, String where) {
    double d;
    if (v != null && v.isNumber()) {
      d = v.doubleValue();
    } else if (v != null && v.isTextual() && v.textValue().length() <= 64) {
      try {
        d = Double.parseDouble(v.textValue().trim());
      } catch (NumberFormatException e) {
        throw illegal("[" + where + "] must be a number, got " + Json.describe(v));
      }
    } else {
      throw illegal("[" + where + "] must be a number, got " + Json.describe(v));
    }
    float f = (float) d;
    if (!Float.isFinite(f)) {
      throw illegal("[" + where + "] " + Text.quote(v.asText()) + " is not a finite float");
    }
    return f;
  }

  /** A boost: a finite number ≥ 0 (Elasticsearch refuses negative boosts). */
  static float boost(JsonNode v, String where) {
    float b = number(v, where);
    if (b < 0) {
      throw illegal("[" + where + "] " + b + " is negative; a boost must be ≥ 0");
    }
    return b;
  }

  /** A tie breaker, in [0, 1] as Lucene's {@code DisjunctionMaxQuery} requires. */
  static float tieBreaker(JsonNode v, String where) {
    float t = number(v, where);
    if (t < 0 || t > 1) {
      throw illegal("[" + where + "] " + t + " is outside [0, 1]");
    }
    return t;
  }

  /**
   * A query value as the core query records take it: a {@link String}, a {@link Boolean}, a {@link
   * Long} (a whole number that fits), a {@link BigDecimal} (a larger one, or a decimal the parser
   * kept exact) or a {@link Double}. Null is refused; so are arrays and objects.
   */
  static Object value(JsonNode v, String where) {
    if (v == null || v.isNull() || v.isMissingNode()) {
      throw illegal("[" + where + "] must have a value, got null");
    }
    if (v.isTextual()) {
      return v.textValue();
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    if (v.isIntegralNumber()) {
      return v.canConvertToLong() ? (Object) v.longValue() : new BigDecimal(v.bigIntegerValue());
    }
    if (v.isBigDecimal()) {
      return v.decimalValue();
    }
    if (v.isNumber()) {
      return v.doubleValue();
    }
    throw parsing("[" + where + "] must be a single value, got " + Json.describe(v));
  }

  /** A range bound: like {@link #value}, but null (no bound) is allowed. */
  static Object bound(JsonNode v, String where) {
    return v == null || v.isNull() ? null : value(v, where);
  }

  /**
   * A query text: a string, or a number or boolean taken as its text (Elasticsearch's {@code match}
   * accepts {@code {"price": 12}}).
   */
  static String text(JsonNode v, String where) {
    if (v != null && (v.isTextual() || v.isNumber() || v.isBoolean())) {
      return v.asText();
    }
    throw illegal(
        "[" + where + "] must be a string, a number or a boolean, got " + Json.describe(v));
  }

  /**
   * {@code minimum_should_match}: an integer or a string such as {@code "75%"} or {@code "-1"}
   * (core checks its form).
   */
  static String minimumShouldMatch(JsonNode v, String where) {
    if (v != null && (v.isIntegralNumber() || v.isTextual())) {
      String s = v.asText();
      if (s.length() > 32) {
        throw illegal("[" + where + "] " + Text.quote(s) + " is longer than 32 characters");
      }
      return s;
    }
    throw illegal("[" + where + "] must be an integer or a string, got " + Json.describe(v));
  }

  /** A string option that must equal one of {@code allowed} (case-insensitive). */
  static String choice(JsonNode v, String where, Set<String> allowed) {
    if (v == null || !v.isTextual()) {
      throw illegal("[" + where + "] must be a string, got " + Json.describe(v));
    }
    String s = v.textValue().toLowerCase(java.util.Locale.ROOT);
    if (!allowed.contains(s)) {
      throw illegal(
          "["
              + where
              + "] ["
              + Text.quote(v.textValue())
              + "] is not supported; use "
              + String.join(" or ", new TreeSet<>(allowed)));
    }
    return s;
  }
}
