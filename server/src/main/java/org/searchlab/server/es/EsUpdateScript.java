package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import org.searchlab.server.ApiException;
import org.searchlab.server.Json;
import org.searchlab.server.Text;

/**
 * The scripts {@code _update_by_query} accepts, read by hand: this server has no script engine, so
 * only Painless assignments of a constant to a source field are understood, and they become the
 * same partial update of every matching document. The grammar, whitespace allowed between tokens:
 *
 * <pre>
 * script    := statement (';' statement)* ';'?
 * statement := 'ctx._source.' path '=' value
 * path      := name ('.' name)*          name := [A-Za-z_][A-Za-z0-9_]*
 * value     := 'params.' name | number | 'text' | "text" | true | false | null
 * </pre>
 *
 * A dotted path assigns inside an object, merged key by key as {@code _update}'s {@code doc} is
 * (Painless would fail where the object is missing; here it is created). Anything else (a read of
 * {@code ctx}, arithmetic, a method call, {@code ctx.op}, a stored script {@code id}, a language
 * other than {@code painless}) is refused with Elasticsearch's {@code script_exception} naming the
 * position and the construct. Bounded: at most {@value #MAX_LENGTH} characters and {@value
 * #MAX_STATEMENTS} statements. Stateless and thread-safe.
 */
final class EsUpdateScript {
  /** The longest script source read. */
  static final int MAX_LENGTH = 4096;

  /** The most assignments one script may hold. */
  static final int MAX_STATEMENTS = 64;

  private static final String TARGET = "ctx._source.";

  private final String src;
  private final JsonNode params;
  private int pos;

  private EsUpdateScript(String src, JsonNode params) {
    this.src = src;
    this.params = params;
  }

  /**
   * The partial source a {@code script} (a string, or an object with {@code source}, {@code lang}
   * and {@code params}) assigns to every document.
   */
  static ObjectNode parse(JsonNode script) {
    String source;
    JsonNode params = JsonNodeFactory.instance.objectNode();
    if (script.isTextual()) {
      source = script.textValue();
    } else if (script.isObject()) {
      JsonNode s = null;
      for (Iterator<Map.Entry<String, JsonNode>> it = script.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        switch (f.getKey()) {
          case "source" -> s = f.getValue();
          case "params" -> params = EsParsing.object(f.getValue(), "script.params");
          case "lang" -> {
            if (!f.getValue().isTextual() || !f.getValue().textValue().equals("painless")) {
              throw EsParsing.illegal(
                  "script_lang ["
                      + Text.quote(String.valueOf(f.getValue()))
                      + "] is not supported; this server reads a subset of [painless]");
            }
          }
          case "id" ->
              throw EsParsing.illegal(
                  "stored scripts ([script.id]) are not supported; send the script [source]");
          case "options" -> {}
          default ->
              throw EsParsing.parsing(
                  "unknown key [script."
                      + Text.quote(f.getKey())
                      + "]; supported: source, lang, params");
        }
      }
      if (s == null || !s.isTextual()) {
        throw EsParsing.parsing("[script] must have a [source] string");
      }
      source = s.textValue();
    } else {
      throw EsParsing.parsing(
          "[script] must be a string or an object, got " + Json.describe(script));
    }
    if (source.length() > MAX_LENGTH) {
      throw scriptError(
          "the script is " + source.length() + " characters long; at most " + MAX_LENGTH);
    }
    return new EsUpdateScript(source, params).statements();
  }

  private ObjectNode statements() {
    ObjectNode doc = JsonNodeFactory.instance.objectNode();
    int n = 0;
    skipSpace();
    while (pos < src.length()) {
      if (++n > MAX_STATEMENTS) {
        throw scriptError("the script has more than " + MAX_STATEMENTS + " statements");
      }
      statement(doc);
      skipSpace();
      if (pos < src.length()) {
        expect(";");
        skipSpace();
      }
    }
    if (n == 0) {
      throw scriptError("the script is empty; expected " + TARGET + "<field> = <value>");
    }
    return doc;
  }

  private void statement(ObjectNode doc) {
    if (!src.startsWith(TARGET, pos)) {
      throw unsupported("expected [" + TARGET + "<field> = <value>]");
    }
    pos += TARGET.length();
    ObjectNode parent = doc;
    String name = name();
    while (pos < src.length() && src.charAt(pos) == '.') {
      pos++;
      JsonNode child = parent.get(name);
      parent = child instanceof ObjectNode o ? o : parent.putObject(name);
      name = name();
    }
    skipSpace();
    if (src.startsWith("==", pos) || !src.startsWith("=", pos)) {
      throw unsupported("expected [=] after the field");
    }
    pos++;
    skipSpace();
    parent.set(name, value());
  }

  private String name() {
    int start = pos;
    while (pos < src.length()
        && (Character.isLetter(src.charAt(pos))
            || src.charAt(pos) == '_'
            || (pos > start && Character.isDigit(src.charAt(pos))))) {
      pos++;
    }
    if (pos == start) {
      throw unsupported("expected a field name");
    }
    return src.substring(start, pos);
  }

  private JsonNode value() {
    if (pos >= src.length()) {
      throw unsupported("expected a value");
    }
    char c = src.charAt(pos);
    JsonNode v;
    if (src.startsWith("params.", pos)) {
      pos += "params.".length();
      String p = name();
      if (!params.has(p)) {
        throw scriptError("[params." + Text.quote(p) + "] is not among the script's params");
      }
      v = params.get(p);
    } else if (c == '\'' || c == '"') {
      v = JsonNodeFactory.instance.textNode(text(c));
    } else if (c == '-' || Character.isDigit(c)) {
      v = number();
    } else {
      String word = src.substring(pos, Math.min(src.length(), pos + 5));
      if (word.startsWith("true")) {
        pos += 4;
        v = JsonNodeFactory.instance.booleanNode(true);
      } else if (word.startsWith("false")) {
        pos += 5;
        v = JsonNodeFactory.instance.booleanNode(false);
      } else if (word.startsWith("null")) {
        pos += 4;
        v = JsonNodeFactory.instance.nullNode();
      } else {
        throw unsupported("expected a literal or params.<name>");
      }
    }
    skipSpace();
    if (pos < src.length() && src.charAt(pos) != ';') {
      throw unsupported("expected [;] or the end after the value");
    }
    return v;
  }

  private String text(char quote) {
    StringBuilder sb = new StringBuilder();
    int start = pos++;
    while (pos < src.length()) {
      char c = src.charAt(pos++);
      if (c == quote) {
        return sb.toString();
      }
      if (c == '\\' && pos < src.length()) {
        char e = src.charAt(pos++);
        if (e != '\\' && e != '\'' && e != '"') {
          pos -= 2;
          throw unsupported("only \\\\, \\' and \\\" escapes are read");
        }
        c = e;
      }
      sb.append(c);
    }
    pos = start;
    throw unsupported("the string is not closed");
  }

  private JsonNode number() {
    int start = pos;
    if (src.charAt(pos) == '-') {
      pos++;
    }
    while (pos < src.length()
        && (Character.isDigit(src.charAt(pos)) || ".eE+-".indexOf(src.charAt(pos)) >= 0)) {
      pos++;
    }
    String t = src.substring(start, pos);
    try {
      if (t.length() > 40
          || !t.matches("-?\\d+(\\.\\d+)?([eE][+-]?\\d{1,3})?")
          || !Double.isFinite(Double.parseDouble(t))) {
        throw new NumberFormatException(t);
      }
      // Read as a JSON body's number is, so the update equals _update's with the same value.
      return Json.MAPPER.readTree(t);
    } catch (NumberFormatException | java.io.IOException e) {
      pos = start;
      throw unsupported("[" + Text.quote(t) + "] is not a number this server reads");
    }
  }

  private void expect(String s) {
    if (!src.startsWith(s, pos)) {
      throw unsupported("expected [" + s + "]");
    }
    pos += s.length();
  }

  private void skipSpace() {
    while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) {
      pos++;
    }
  }

  /** A construct outside the grammar: where it is, what was expected, a short quote of it. */
  private ApiException unsupported(String expected) {
    String at = src.substring(pos, Math.min(src.length(), pos + 40));
    return scriptError(
        "unsupported script at position "
            + pos
            + ": "
            + expected
            + ", found ["
            + Text.quote(at)
            + "]; this server runs no script engine and accepts only ["
            + TARGET
            + "<field> = <literal or params.name>] statements");
  }

  private static ApiException scriptError(String reason) {
    return new ApiException(400, "script_exception", Text.bounded(reason, Text.MAX_MESSAGE));
  }
}
