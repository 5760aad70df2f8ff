package org.searchlab.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The value tree of a document's source, the JSON a client sent, and the operations the contract
 * needs on it. A tree holds only: {@code null}, {@link String}, {@link Boolean}, {@link Long},
 * {@link Double}, {@link java.math.BigDecimal} (a number beyond long or double), {@link List},
 * {@link Map} with {@link String} keys (insertion-ordered), and three compact array forms for
 * numeric JSON arrays: {@code long[]} (all integers), {@code double[]} (any fraction) and {@code
 * float[]} (a vector, once its field's mapping says so). Trees are immutable by convention: no one
 * modifies a tree after it is given to a document. Stateless and thread-safe.
 */
public final class Source {
  private Source() {}

  /** Whether two trees are equal: maps and lists by content, arrays element by element. */
  public static boolean deepEquals(Object a, Object b) {
    if (a == b) {
      return true;
    }
    if (a == null || b == null) {
      return false;
    }
    return switch (a) {
      case float[] x -> b instanceof float[] y && Arrays.equals(x, y);
      case double[] x -> b instanceof double[] y && Arrays.equals(x, y);
      case long[] x -> b instanceof long[] y && Arrays.equals(x, y);
      case Map<?, ?> x -> {
        if (!(b instanceof Map<?, ?> y) || x.size() != y.size()) {
          yield false;
        }
        for (Map.Entry<?, ?> e : x.entrySet()) {
          if (!y.containsKey(e.getKey()) || !deepEquals(e.getValue(), y.get(e.getKey()))) {
            yield false;
          }
        }
        yield true;
      }
      case List<?> x -> {
        if (!(b instanceof List<?> y) || x.size() != y.size()) {
          yield false;
        }
        for (int i = 0; i < x.size(); i++) {
          if (!deepEquals(x.get(i), y.get(i))) {
            yield false;
          }
        }
        yield true;
      }
      default -> a.equals(b);
    };
  }

  /** A hash consistent with {@link #deepEquals}. */
  public static int deepHash(Object a) {
    return switch (a) {
      case null -> 0;
      case float[] x -> Arrays.hashCode(x);
      case double[] x -> Arrays.hashCode(x);
      case long[] x -> Arrays.hashCode(x);
      case Map<?, ?> x -> {
        int h = 0;
        for (Map.Entry<?, ?> e : x.entrySet()) {
          h += Objects.hashCode(e.getKey()) ^ deepHash(e.getValue());
        }
        yield h;
      }
      case List<?> x -> {
        int h = 1;
        for (Object o : x) {
          h = 31 * h + deepHash(o);
        }
        yield h;
      }
      default -> a.hashCode();
    };
  }

  /**
   * The value at a dotted path ({@code metadata.source}), following objects and also keys that hold
   * dots themselves ({@code {"metadata.source": ...}}); null when absent.
   */
  public static Object get(Map<String, Object> source, String path) {
    Object direct = source.get(path);
    if (direct != null || source.containsKey(path)) {
      return direct;
    }
    int dot = path.indexOf('.');
    while (dot > 0) {
      Object head = source.get(path.substring(0, dot));
      if (head instanceof Map<?, ?> m) {
        @SuppressWarnings("unchecked")
        Object v = get((Map<String, Object>) m, path.substring(dot + 1));
        if (v != null) {
          return v;
        }
      }
      dot = path.indexOf('.', dot + 1);
    }
    return null;
  }

  /**
   * {@code base} with {@code patch} merged in, as Elasticsearch's partial update merges a {@code
   * doc}: an object in both merges key by key, anything else in {@code patch} replaces what {@code
   * base} has (a {@code null} too). Neither input is modified.
   */
  public static Map<String, Object> merge(Map<String, Object> base, Map<String, Object> patch) {
    Map<String, Object> out = new LinkedHashMap<>(base);
    for (Map.Entry<String, Object> e : patch.entrySet()) {
      Object old = out.get(e.getKey());
      if (old instanceof Map<?, ?> om && e.getValue() instanceof Map<?, ?> pm) {
        @SuppressWarnings("unchecked")
        Map<String, Object> merged = merge((Map<String, Object>) om, (Map<String, Object>) pm);
        out.put(e.getKey(), merged);
      } else {
        out.put(e.getKey(), e.getValue());
      }
    }
    return out;
  }

  /** A JSON-like value as a float vector, or null when it is not a numeric array. */
  public static float[] floats(Object v) {
    return switch (v) {
      case float[] f -> f;
      case double[] d -> {
        float[] f = new float[d.length];
        for (int i = 0; i < d.length; i++) {
          f[i] = (float) d[i];
        }
        yield f;
      }
      case long[] l -> {
        float[] f = new float[l.length];
        for (int i = 0; i < l.length; i++) {
          f[i] = l[i];
        }
        yield f;
      }
      case List<?> list -> {
        float[] f = new float[list.size()];
        for (int i = 0; i < f.length; i++) {
          if (!(list.get(i) instanceof Number n)) {
            yield null;
          }
          f[i] = n.floatValue();
        }
        yield f;
      }
      case null, default -> null;
    };
  }

  /**
   * The elements of a value: the items of a list or a numeric array (flattening nested lists, as
   * Elasticsearch reads {@code [[1, 2], 3]} as three values), the value itself otherwise, nothing
   * for null.
   */
  public static List<Object> values(Object v) {
    List<Object> out = new ArrayList<>();
    addValues(v, out, 0);
    return out;
  }

  private static void addValues(Object v, List<Object> out, int depth) {
    switch (v) {
      case null -> {}
      case List<?> l -> {
        if (depth > 64) {
          throw new InvalidRequestException("arrays nest deeper than 64 levels");
        }
        for (Object o : l) {
          addValues(o, out, depth + 1);
        }
      }
      case long[] a -> {
        for (long x : a) {
          out.add(x);
        }
      }
      case double[] a -> {
        for (double x : a) {
          out.add(x);
        }
      }
      case float[] a -> {
        for (float x : a) {
          out.add((double) x);
        }
      }
      default -> out.add(v);
    }
  }
}
