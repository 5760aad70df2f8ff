package org.searchlab.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts between JSON (Jackson's tree) and {@link Source} trees: what a dialect reads from a
 * request body and writes into an answer. A JSON array of numbers becomes a packed {@code long[]}
 * (all whole numbers) or {@code double[]} (any fraction), so a 384-number vector is one array and
 * not 384 boxed values; a whole number beyond {@code long} is a {@link BigDecimal}. Written back, a
 * {@code float[]} (a vector) is its floats, so they print as the float values they are. Stateless
 * and thread-safe.
 */
public final class SourceJson {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  private SourceJson() {}

  /** A JSON object as a source tree's map; a 400 naming {@code what} for anything else. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> object(JsonNode n, String what) {
    if (n == null || !n.isObject()) {
      throw new InvalidRequestException(what + " must be a JSON object");
    }
    return (Map<String, Object>) value(n);
  }

  /** Any JSON value as a source tree value. */
  public static Object value(JsonNode n) {
    switch (n.getNodeType()) {
      case OBJECT -> {
        Map<String, Object> m = new LinkedHashMap<>(Math.max(4, n.size() * 2));
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          m.put(e.getKey(), value(e.getValue()));
        }
        return m;
      }
      case ARRAY -> {
        return array((ArrayNode) n);
      }
      case STRING -> {
        return n.textValue();
      }
      case BOOLEAN -> {
        return n.booleanValue();
      }
      case NULL, MISSING -> {
        return null;
      }
      case NUMBER -> {
        return number(n);
      }
      default -> throw new InvalidRequestException("unsupported JSON value " + n.getNodeType());
    }
  }

  private static Object number(JsonNode n) {
    if (n.isIntegralNumber()) {
      if (n.canConvertToLong()) {
        return n.longValue();
      }
      return new BigDecimal(n.bigIntegerValue());
    }
    if (n.isBigDecimal()) {
      return n.decimalValue();
    }
    double d = n.doubleValue();
    if (!Double.isFinite(d)) {
      throw notFinite(d);
    }
    return d;
  }

  private static Object array(ArrayNode a) {
    boolean numbers = !a.isEmpty();
    boolean integral = true;
    for (JsonNode x : a) {
      if (!x.isNumber()) {
        numbers = false;
        break;
      }
      if (!x.isIntegralNumber()) {
        integral = false;
      } else if (!x.canConvertToLong()) {
        numbers = false; // a huge whole number keeps its exact value in a list
        break;
      }
    }
    if (numbers && integral) {
      long[] l = new long[a.size()];
      for (int i = 0; i < l.length; i++) {
        l[i] = a.get(i).longValue();
      }
      return l;
    }
    if (numbers) {
      double[] d = new double[a.size()];
      for (int i = 0; i < d.length; i++) {
        d[i] = a.get(i).doubleValue();
        if (!Double.isFinite(d[i])) {
          throw notFinite(d[i]);
        }
      }
      return d;
    }
    List<Object> out = new ArrayList<>(a.size());
    for (JsonNode x : a) {
      out.add(value(x));
    }
    return out;
  }

  private static InvalidRequestException notFinite(double d) {
    return new InvalidRequestException(
        Double.isNaN(d)
            ? "NaN is not a number a document may hold; only finite values are allowed"
            : "a JSON number is beyond the range of a double (" + d + ")");
  }

  /** A source tree value as JSON. */
  public static JsonNode json(Object v) {
    return switch (v) {
      case null -> F.nullNode();
      case String s -> F.textNode(s);
      case Boolean b -> F.booleanNode(b);
      case Long l -> F.numberNode(l);
      case Integer i -> F.numberNode(i);
      case Double d -> F.numberNode(d);
      case Float f -> F.numberNode(f);
      case BigDecimal d -> F.numberNode(d);
      case BigInteger b -> F.numberNode(b);
      case float[] f -> {
        ArrayNode a = F.arrayNode(f.length);
        for (float x : f) {
          a.add(x);
        }
        yield a;
      }
      case double[] d -> {
        ArrayNode a = F.arrayNode(d.length);
        for (double x : d) {
          a.add(x);
        }
        yield a;
      }
      case long[] l -> {
        ArrayNode a = F.arrayNode(l.length);
        for (long x : l) {
          a.add(x);
        }
        yield a;
      }
      case List<?> list -> {
        ArrayNode a = F.arrayNode(list.size());
        for (Object o : list) {
          a.add(json(o));
        }
        yield a;
      }
      case Map<?, ?> m -> {
        ObjectNode o = F.objectNode();
        for (Map.Entry<?, ?> e : m.entrySet()) {
          o.set((String) e.getKey(), json(e.getValue()));
        }
        yield o;
      }
      default -> throw new IllegalArgumentException("not a source value: " + v.getClass());
    };
  }

  /** A source map as a JSON object. */
  public static ObjectNode json(Map<String, Object> source) {
    return (ObjectNode) json((Object) source);
  }
}
