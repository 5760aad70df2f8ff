package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.searchlab.server.Json;
import org.searchlab.server.Text;

/**
 * Elasticsearch's {@code filter_path} response filter: a comma-separated list of dotted field paths
 * whose segments may hold {@code *} (any characters within one name) or be {@code **} (any number
 * of levels); a path with a leading {@code -} removes what it matches. With at least one inclusive
 * path only what they match is kept (a matched field keeps its whole value); exclusions then
 * remove; arrays are transparent; objects left empty are dropped, and an answer that keeps nothing
 * is {@code {}}. Immutable and thread-safe.
 */
final class FilterPath {
  private record State(String[] segments, int at) {}

  private final List<String[]> includes = new ArrayList<>();
  private final List<String[]> excludes = new ArrayList<>();

  private FilterPath(String value) {
    for (String path : EsParams.list(value, "filter_path")) {
      boolean exclude = path.startsWith("-");
      String p = exclude ? path.substring(1) : path;
      String[] segments = p.split("\\.", -1);
      for (String s : segments) {
        if (s.isEmpty()) {
          throw EsParams.bad("filter_path [" + Text.quote(path) + "] has an empty segment");
        }
      }
      (exclude ? excludes : includes).add(segments);
    }
  }

  /** {@code body} filtered by {@code value}, or {@code body} itself when {@code value} is null. */
  static JsonNode apply(JsonNode body, String value) {
    if (value == null) {
      return body;
    }
    FilterPath f = new FilterPath(value);
    JsonNode out = body;
    if (!f.includes.isEmpty()) {
      out = include(body, states(f.includes));
    }
    if (out != null && !f.excludes.isEmpty()) {
      out = exclude(out, states(f.excludes));
    }
    return out == null ? Json.MAPPER.createObjectNode() : out;
  }

  private static List<State> states(List<String[]> paths) {
    List<State> out = new ArrayList<>(paths.size());
    for (String[] p : paths) {
      out.add(new State(p, 0));
    }
    return out;
  }

  /** What {@code node} keeps under the filters in {@code states}; null when nothing. */
  private static JsonNode include(JsonNode node, List<State> states) {
    if (node.isObject()) {
      ObjectNode out = Json.MAPPER.createObjectNode();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        List<State> next = new ArrayList<>();
        if (step(states, e.getKey(), next)) {
          out.set(e.getKey(), e.getValue());
        } else if (!next.isEmpty()) {
          JsonNode kept = include(e.getValue(), next);
          if (kept != null) {
            out.set(e.getKey(), kept);
          }
        }
      }
      return out.isEmpty() ? null : out;
    }
    if (node.isArray()) {
      ArrayNode out = Json.MAPPER.createArrayNode();
      for (JsonNode element : node) {
        JsonNode kept = element.isContainerNode() ? include(element, states) : null;
        if (kept != null) {
          out.add(kept);
        }
      }
      return out.isEmpty() ? null : out;
    }
    return null;
  }

  /** {@code node} without what the filters in {@code states} match. */
  private static JsonNode exclude(JsonNode node, List<State> states) {
    if (node.isObject()) {
      ObjectNode out = Json.MAPPER.createObjectNode();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        List<State> next = new ArrayList<>();
        if (step(states, e.getKey(), next)) {
          continue;
        }
        out.set(e.getKey(), next.isEmpty() ? e.getValue() : exclude(e.getValue(), next));
      }
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = Json.MAPPER.createArrayNode();
      for (JsonNode element : node) {
        out.add(element.isContainerNode() ? exclude(element, states) : element);
      }
      return out;
    }
    return node;
  }

  /**
   * Moves every filter in {@code states} past the field {@code name}: adds to {@code next} the
   * filters still open below it, and answers whether some filter ends at it (matches it whole).
   */
  private static boolean step(List<State> states, String name, List<State> next) {
    boolean whole = false;
    for (State s : states) {
      whole |= step(s, name, next);
    }
    return whole;
  }

  private static boolean step(State s, String name, List<State> next) {
    String segment = s.segments[s.at];
    boolean last = s.at + 1 == s.segments.length;
    if (segment.equals("**")) {
      add(next, s); // ** takes this level and stays open
      // ** may also take no level: try the next segment on this field.
      return last || step(new State(s.segments, s.at + 1), name, next);
    }
    if (!IndexExpression.glob(segment, name)) {
      return false;
    }
    if (last) {
      return true;
    }
    add(next, new State(s.segments, s.at + 1));
    return false;
  }

  /** Adds a state once: {@code **} reaches the same state by several routes. */
  private static void add(List<State> states, State s) {
    if (!states.contains(s)) {
      states.add(s);
    }
  }
}
