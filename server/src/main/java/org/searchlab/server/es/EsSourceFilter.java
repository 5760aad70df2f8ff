package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.searchlab.server.ApiException;
import org.searchlab.server.ApiRequest;

/**
 * Elasticsearch source filtering: which fields of {@code _source} a hit or a get returns. As
 * Elasticsearch: {@code false} leaves {@code _source} out; one pattern or a list of them keeps only
 * the matching fields; {@code {"includes": [...], "excludes": [...]}} keeps the fields that match
 * an include (all, when there are none) and no exclude. Patterns are field paths ({@code
 * metadata.n}) with {@code *} wildcards. The URL parameters {@code _source}, {@code
 * _source_includes} and {@code _source_excludes} say the same. Immutable.
 *
 * @param enabled whether {@code _source} is returned at all
 * @param includes patterns of fields to keep; empty keeps every field
 * @param excludes patterns of fields to drop, applied after the includes
 */
record EsSourceFilter(boolean enabled, List<String> includes, List<String> excludes) {
  static final EsSourceFilter ALL = new EsSourceFilter(true, List.of(), List.of());
  static final EsSourceFilter NONE = new EsSourceFilter(false, List.of(), List.of());

  EsSourceFilter {
    includes = List.copyOf(includes);
    excludes = List.copyOf(excludes);
  }

  /** The {@code _source} of a search body. */
  static EsSourceFilter parse(JsonNode node) {
    if (node.isBoolean()) {
      return node.booleanValue() ? ALL : NONE;
    }
    if (node.isTextual() || node.isArray()) {
      return new EsSourceFilter(true, patterns(node, "[_source]"), List.of());
    }
    if (node.isObject()) {
      List<String> in = List.of();
      List<String> ex = List.of();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        switch (f.getKey()) {
          case "includes", "include" -> in = patterns(f.getValue(), "[_source." + f.getKey() + "]");
          case "excludes", "exclude" -> ex = patterns(f.getValue(), "[_source." + f.getKey() + "]");
          default ->
              throw parsing(
                  "unknown key [_source." + f.getKey() + "]; supported: includes, excludes");
        }
      }
      return new EsSourceFilter(true, in, ex);
    }
    throw parsing(
        "[_source] must be a boolean, a pattern, a list of patterns or an object with includes"
            + " and excludes, got "
            + node);
  }

  /**
   * The filter of the URL parameters {@code _source} ({@code true}, {@code false} or a
   * comma-separated list of includes), {@code _source_includes} and {@code _source_excludes}, or
   * {@code fallback} when none is given.
   */
  static EsSourceFilter fromParams(ApiRequest r, EsSourceFilter fallback) {
    String source = r.param("_source");
    String in = r.param("_source_includes");
    String ex = r.param("_source_excludes");
    if (source == null && in == null && ex == null) {
      return fallback;
    }
    List<String> includes = new ArrayList<>(split(in));
    if (source != null) {
      switch (source) {
        case "false" -> {
          return NONE;
        }
        case "true", "" -> {}
        default -> includes.addAll(split(source));
      }
    }
    return new EsSourceFilter(true, includes, split(ex));
  }

  /**
   * The fields of {@code source} this filter keeps (a new object); {@code source} is unchanged.
   * Patterns match a field's full path ({@code metadata.n}), as Elasticsearch's do: an included
   * object keeps all its fields but the excluded ones, and an object an include may match below is
   * descended into and kept when something in it is.
   */
  ObjectNode apply(ObjectNode source) {
    if (includes.isEmpty() && excludes.isEmpty()) {
      return source;
    }
    return filter(source, "", includes.isEmpty());
  }

  private ObjectNode filter(ObjectNode object, String prefix, boolean included) {
    ObjectNode out = object.objectNode();
    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      String path = prefix + f.getKey();
      if (matchesAny(excludes, path)) {
        continue;
      }
      JsonNode kept = keep(f.getValue(), path, included || matchesAny(includes, path));
      if (kept != null) {
        out.set(f.getKey(), kept);
      }
    }
    return out;
  }

  /** What of {@code value} at {@code path} is kept, or null for nothing. */
  private JsonNode keep(JsonNode value, String path, boolean included) {
    if (value.isObject()) {
      if (included && excludes.isEmpty()) {
        return value;
      }
      if (!included && !mayMatchBelow(path + ".")) {
        return null;
      }
      ObjectNode sub = filter((ObjectNode) value, path + ".", included);
      return included || !sub.isEmpty() ? sub : null;
    }
    if (value.isArray() && !(included && excludes.isEmpty())) {
      // Objects in an array are filtered by the array's path, as Elasticsearch does.
      ArrayNode out = ((ArrayNode) value).arrayNode();
      for (JsonNode e : value) {
        JsonNode kept = e.isObject() ? keep(e, path, included) : included ? e : null;
        if (kept != null) {
          out.add(kept);
        }
      }
      return included || !out.isEmpty() ? out : null;
    }
    return included ? value : null;
  }

  /** Whether an include pattern may match a path that starts with {@code prefix}. */
  private boolean mayMatchBelow(String prefix) {
    for (String p : includes) {
      if (prefixMatches(p, 0, prefix, 0)) {
        return true;
      }
    }
    return false;
  }

  /** Whether some name starting with {@code prefix[ni..]} matches {@code pattern[pi..]}. */
  private static boolean prefixMatches(String pattern, int pi, String prefix, int ni) {
    while (ni < prefix.length()) {
      if (pi == pattern.length()) {
        return false;
      }
      char c = pattern.charAt(pi);
      if (c == '*') {
        return true; // the run absorbs the rest of the prefix
      }
      if (prefix.charAt(ni) != c) {
        return false;
      }
      pi++;
      ni++;
    }
    return true;
  }

  private static boolean matchesAny(List<String> patterns, String name) {
    for (String p : patterns) {
      if (globMatches(p, 0, name, 0)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code name[ni..]} matches {@code pattern[pi..]}, where {@code *} is any run. */
  static boolean globMatches(String pattern, int pi, String name, int ni) {
    while (pi < pattern.length()) {
      char c = pattern.charAt(pi);
      if (c == '*') {
        while (pi < pattern.length() && pattern.charAt(pi) == '*') {
          pi++;
        }
        if (pi == pattern.length()) {
          return true;
        }
        for (int k = ni; k <= name.length(); k++) {
          if (globMatches(pattern, pi, name, k)) {
            return true;
          }
        }
        return false;
      }
      if (ni >= name.length() || name.charAt(ni) != c) {
        return false;
      }
      pi++;
      ni++;
    }
    return ni == name.length();
  }

  private static List<String> patterns(JsonNode node, String where) {
    List<String> out = new ArrayList<>();
    if (node.isTextual()) {
      out.add(node.textValue());
    } else if (node.isArray()) {
      for (JsonNode p : node) {
        if (!p.isTextual()) {
          throw parsing(where + " must hold field name patterns (strings), got " + p);
        }
        out.add(p.textValue());
      }
    } else {
      throw parsing(where + " must be a pattern or a list of patterns, got " + node);
    }
    return out;
  }

  private static List<String> split(String csv) {
    List<String> out = new ArrayList<>();
    if (csv != null) {
      for (String s : csv.split(",")) {
        if (!s.isBlank()) {
          out.add(s.strip());
        }
      }
    }
    return out;
  }

  private static ApiException parsing(String reason) {
    return new ApiException(400, "parsing_exception", reason);
  }
}
