package org.searchlab.core.mapping;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Schema;
import org.searchlab.core.Source;

/**
 * Reads a document's source against a mapping, as Elasticsearch's document parser does: each value
 * is checked against its field's type and converted to what the stores index ({@link
 * ParsedDocument}); a field the mapping does not know follows its object's {@code dynamic} (mapped
 * from its first value, kept unindexed, or refused); a key holding dots ({@code "a.b"}) is the path
 * of objects it names. Dynamic mapping follows Elasticsearch 8: a string becomes {@code text} with
 * a {@code keyword} multi-field ({@code ignore_above: 256}) or, when date detection is on and it
 * reads as a date, a {@code date}; a whole number a {@code long}; a fraction a {@code float}; a
 * boolean a {@code boolean}; an object an {@code object}; an array of 128 to 4,096 numbers
 * beginning with a fraction a {@code dense_vector} ({@code cosine}, indexed); any other array the
 * type of its first value.
 *
 * <p>Nothing is half-applied: a document that fails leaves the mapping as it was. Stateless and
 * thread-safe.
 */
public final class DocumentParser {
  /** Lucene's limit on one indexed term, which a keyword value may not exceed. */
  public static final int MAX_KEYWORD_BYTES = 32766;

  /** The most values one document may hold in all its fields. */
  public static final int MAX_VALUES = 100_000;

  private DocumentParser() {}

  /**
   * Reads {@code doc} against {@code mapping}.
   *
   * @param defaultAnalyzer the analyzer of text fields the document adds dynamically
   * @throws MappingException {@code mapper_parsing_exception} for a value that does not fit its
   *     field, {@code strict_dynamic_mapping_exception} for a field a strict object does not know
   */
  public static ParsedDocument parse(Mapping mapping, String defaultAnalyzer, Document doc) {
    Schema.validateId(doc.id());
    State st = new State(mapping, defaultAnalyzer, doc.id());
    Map<String, Object> stored = st.object(doc.source(), "", mapping.dynamic(), 1);
    Map<String, Object> values = new LinkedHashMap<>();
    st.values.forEach((path, list) -> values.put(path, st.pack(path, list)));
    Mapping result = st.mapping;
    return new ParsedDocument(
        stored == doc.source() ? doc : doc.withSource(stored), values, result, result != mapping);
  }

  /** The parse of one document: the mapping as it grows, and the values found so far. */
  private static final class State {
    Mapping mapping;
    final String defaultAnalyzer;
    final String id;
    final Map<String, List<Object>> values = new LinkedHashMap<>();
    int count;

    State(Mapping mapping, String defaultAnalyzer, String id) {
      this.mapping = mapping;
      this.defaultAnalyzer = defaultAnalyzer;
      this.id = id;
    }

    /**
     * Reads an object's entries; returns the object as stored (the same instance when nothing in it
     * changed form, else a copy with vectors as {@code float[]}).
     */
    Map<String, Object> object(Map<String, Object> obj, String prefix, Dynamic dynamic, int depth) {
      if (depth > Mapping.MAX_DEPTH) {
        throw MappingException.parsing(
            "the document nests objects deeper than "
                + Mapping.MAX_DEPTH
                + " (index.mapping.depth.limit)");
      }
      Map<String, Object> copy = null;
      for (Map.Entry<String, Object> e : obj.entrySet()) {
        String key = e.getKey();
        Schema.validateText("a field name of document '" + id + "'", key);
        if (key.isEmpty() || key.isBlank()) {
          throw MappingException.parsing("a field name of document [" + id + "] is empty or blank");
        }
        if (key.startsWith(".") || key.endsWith(".") || key.contains("..")) {
          throw MappingException.parsing(
              "field name ["
                  + NumberType.abbreviate(key)
                  + "] of document ["
                  + id
                  + "] cannot begin or end with a dot or hold two in a row");
        }
        if (prefix.isEmpty() && Mapping.METADATA_FIELDS.contains(key)) {
          throw MappingException.parsing(
              "Field ["
                  + key
                  + "] is a metadata field and cannot be added inside a document. Use the index"
                  + " API request parameters.");
        }
        Object stored = field(prefix, key.split("\\."), 0, e.getValue(), dynamic, depth);
        if (stored != e.getValue()) {
          if (copy == null) {
            copy = new LinkedHashMap<>(obj);
          }
          copy.put(key, stored);
        }
      }
      return copy == null ? obj : copy;
    }

    /** One (possibly dotted) key's value; returns the value as stored. */
    Object field(String prefix, String[] parts, int i, Object value, Dynamic dynamic, int depth) {
      String path = prefix + parts[i];
      Mapping.checkName(parts[i]);
      FieldType type = mapping.field(path);
      boolean last = i == parts.length - 1;
      if (!last) {
        // An intermediate part of a dotted key: an object, mapped or about to be.
        if (type == null) {
          type = dynamicObject(path, dynamic);
          if (type == null) {
            return value; // dynamic false: kept in the source, not indexed
          }
        }
        if (!(type instanceof FieldType.ObjectField o)) {
          throw MappingException.parsing(
              "field ["
                  + path
                  + "] of document ["
                  + id
                  + "] is a "
                  + type.esName()
                  + ", not an object; ["
                  + String.join(".", parts)
                  + "] cannot be under it");
        }
        if (!o.enabled()) {
          return value;
        }
        return field(path + ".", parts, i + 1, value, inherit(o, dynamic), depth + 1);
      }
      if (value == null) {
        return null;
      }
      if (type == null) {
        type = dynamicField(path, value, dynamic);
        if (type == null) {
          return value;
        }
      }
      return switch (type) {
        case FieldType.ObjectField o -> objectValue(path, value, o, dynamic, depth);
        case FieldType.DenseVector v -> vector(path, value, v);
        default -> {
          for (Object item : Source.values(value)) {
            if (item instanceof Map<?, ?>) {
              throw MappingException.parsing(
                  "failed to parse field ["
                      + path
                      + "] of type ["
                      + type.esName()
                      + "] in document with id '"
                      + id
                      + "': an object is not a "
                      + type.esName()
                      + " value");
            }
            leaf(path, type, item);
          }
          yield value;
        }
      };
    }

    private static Dynamic inherit(FieldType.ObjectField o, Dynamic outer) {
      return o.dynamic() != null ? o.dynamic() : outer;
    }

    @SuppressWarnings("unchecked")
    private Object objectValue(
        String path, Object value, FieldType.ObjectField o, Dynamic dynamic, int depth) {
      if (!o.enabled()) {
        return value;
      }
      Dynamic inner = inherit(o, dynamic);
      if (value instanceof Map<?, ?> m) {
        return object((Map<String, Object>) m, path + ".", inner, depth + 1);
      }
      if (value instanceof List<?> list) {
        List<Object> out = null;
        for (int k = 0; k < list.size(); k++) {
          Object item = list.get(k);
          Object stored = item;
          if (item instanceof Map<?, ?> m) {
            stored = object((Map<String, Object>) m, path + ".", inner, depth + 1);
          } else if (item != null) {
            throw notAnObject(path, item);
          }
          if (stored != item) {
            if (out == null) {
              out = new ArrayList<>(list);
            }
            out.set(k, stored);
          }
        }
        return out == null ? value : out;
      }
      throw notAnObject(path, value);
    }

    private MappingException notAnObject(String path, Object value) {
      return MappingException.parsing(
          "object mapping for ["
              + path
              + "] tried to parse field ["
              + path
              + "] as object, but found a concrete value ["
              + NumberType.abbreviate(value)
              + "] in document with id '"
              + id
              + "'");
    }

    private float[] vector(String path, Object value, FieldType.DenseVector v) {
      float[] f = Source.floats(value);
      if (f == null) {
        throw MappingException.parsing(
            "failed to parse field ["
                + path
                + "] of type [dense_vector] in document with id '"
                + id
                + "': expected an array of numbers");
      }
      if (v.dims() == 0) {
        if (f.length < 1 || f.length > Mapping.MAX_DIMS) {
          throw MappingException.parsing(
              "the vector of ["
                  + path
                  + "] in document ["
                  + id
                  + "] has "
                  + f.length
                  + " dimensions; the limit is "
                  + Mapping.MAX_DIMS);
        }
        v = v.withDims(f.length);
        mapping = mapping.with(path, v);
      }
      if (f.length != v.dims()) {
        throw MappingException.parsing(
            "The [dense_vector] field ["
                + path
                + "] in doc [document with id '"
                + id
                + "'] has a different number of dimensions ["
                + f.length
                + "] than defined in the mapping ["
                + v.dims()
                + "]");
      }
      try {
        v.similarity().check("the vector of [" + path + "] in document [" + id + "]", f);
      } catch (InvalidRequestException e) {
        throw MappingException.parsing(e.getMessage());
      }
      add(path, f);
      return f;
    }

    private void leaf(String path, FieldType type, Object item) {
      switch (type) {
        case FieldType.Text t -> {
          String s = string(path, item);
          add(path, s);
          for (Map.Entry<String, FieldType> sub : t.fields().entrySet()) {
            leaf(path + "." + sub.getKey(), sub.getValue(), s);
          }
        }
        case FieldType.Keyword k -> {
          String s = string(path, item);
          if (s.length() <= k.ignoreAbove()) {
            int bytes = s.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_KEYWORD_BYTES) {
              throw MappingException.parsing(
                  "field ["
                      + path
                      + "] of document ["
                      + id
                      + "] holds a keyword of "
                      + bytes
                      + " bytes; a keyword may have at most "
                      + MAX_KEYWORD_BYTES
                      + " bytes (set ignore_above to keep longer values unindexed)");
            }
            add(path, s);
          }
        }
        case FieldType.Numeric n -> add(path, n.type().parse(path, item));
        case FieldType.Bool b -> add(path, bool(path, item) ? 1L : 0L);
        case FieldType.Date d -> add(path, Dates.parse(path, d.format(), item));
        default -> throw new AssertionError(type);
      }
    }

    private String string(String path, Object item) {
      String s =
          switch (item) {
            case String str -> str;
            case Boolean b -> b.toString();
            case Long l -> l.toString();
            case Double d -> d.toString();
            case java.math.BigDecimal d -> d.toPlainString();
            default ->
                throw MappingException.parsing(
                    "failed to parse field [" + path + "] in document with id '" + id + "'");
          };
      Schema.validateText("field [" + path + "] of document '" + id + "'", s);
      return s;
    }

    private boolean bool(String path, Object item) {
      if (item instanceof Boolean b) {
        return b;
      }
      if (item instanceof String s && (s.equals("true") || s.equals("false") || s.isEmpty())) {
        return s.equals("true");
      }
      throw MappingException.parsing(
          "failed to parse field ["
              + path
              + "] of type [boolean] in document with id '"
              + id
              + "': ["
              + NumberType.abbreviate(item)
              + "] is not true or false");
    }

    private void add(String path, Object v) {
      if (++count > MAX_VALUES) {
        throw MappingException.parsing(
            "document [" + id + "] holds more than " + MAX_VALUES + " field values");
      }
      values.computeIfAbsent(path, p -> new ArrayList<>(1)).add(v);
    }

    Object pack(String path, List<Object> list) {
      FieldType t = mapping.leaf(path);
      return switch (t) {
        case FieldType.DenseVector v -> list.get(0);
        case FieldType.Text x -> list.toArray(new String[0]);
        case FieldType.Keyword x -> list.toArray(new String[0]);
        case FieldType.Numeric n when !n.type().integral() -> {
          double[] d = new double[list.size()];
          for (int i = 0; i < d.length; i++) {
            d[i] = (Double) list.get(i);
          }
          yield d;
        }
        default -> {
          long[] l = new long[list.size()];
          for (int i = 0; i < l.length; i++) {
            l[i] = (Long) list.get(i);
          }
          yield l;
        }
      };
    }

    /** The object a dotted key's part needs, added under {@code dynamic: true}; null if false. */
    private FieldType dynamicObject(String path, Dynamic dynamic) {
      return switch (dynamic) {
        case STRICT -> throw MappingException.strict(lastPart(path), parentOf(path));
        case FALSE -> null;
        case TRUE -> {
          FieldType o = new FieldType.ObjectField(null, true, Map.of());
          mapping = mapping.with(path, o);
          yield o;
        }
      };
    }

    /** The type a new field gets from its value, added to the mapping; null if not mapped. */
    private FieldType dynamicField(String path, Object value, Dynamic dynamic) {
      if (dynamic == Dynamic.STRICT) {
        throw MappingException.strict(lastPart(path), parentOf(path));
      }
      if (dynamic == Dynamic.FALSE) {
        return null;
      }
      FieldType t = infer(value);
      if (t != null) {
        mapping = mapping.with(path, t);
      }
      return t;
    }

    private FieldType infer(Object value) {
      int length =
          switch (value) {
            case double[] d -> d.length;
            case List<?> l -> l.size();
            default -> -1;
          };
      if (length >= 128 && length <= Mapping.MAX_DIMS && startsWithFraction(value)) {
        return new FieldType.DenseVector(
            length, VectorSimilarity.COSINE, true, FieldType.IndexOptions.DEFAULT);
      }
      Object first = null;
      for (Object v : Source.values(value)) {
        if (v != null) {
          first = v;
          break;
        }
      }
      if (first == null && value instanceof List<?> l) {
        for (Object o : l) {
          if (o instanceof Map<?, ?> m) {
            first = m;
            break;
          }
        }
      }
      return switch (first) {
        case null -> null;
        case String s ->
            mapping.dateDetection() && Dates.detect(s)
                ? new FieldType.Date("strict_date_optional_time||epoch_millis", true, true)
                : new FieldType.Text(
                    defaultAnalyzer,
                    defaultAnalyzer,
                    FieldType.Bm25Similarity.DEFAULT,
                    true,
                    Map.of("keyword", FieldType.Keyword.DYNAMIC_SUBFIELD));
        case Boolean b -> new FieldType.Bool(true, true);
        case Long l -> new FieldType.Numeric(NumberType.LONG, true, true);
        case java.math.BigDecimal d ->
            d.scale() <= 0 && d.stripTrailingZeros().scale() <= 0
                ? new FieldType.Numeric(NumberType.LONG, true, true)
                : new FieldType.Numeric(NumberType.FLOAT, true, true);
        case Double d -> new FieldType.Numeric(NumberType.FLOAT, true, true);
        case Map<?, ?> m -> new FieldType.ObjectField(null, true, Map.of());
        default -> null;
      };
    }

    private static boolean startsWithFraction(Object value) {
      return switch (value) {
        case double[] d -> true;
        case List<?> l -> {
          for (Object o : l) {
            if (!(o instanceof Double)) {
              yield false;
            }
          }
          yield true;
        }
        default -> false;
      };
    }

    private static String lastPart(String path) {
      return path.substring(path.lastIndexOf('.') + 1);
    }

    private static String parentOf(String path) {
      int dot = path.lastIndexOf('.');
      return dot < 0 ? "_doc" : path.substring(0, dot);
    }
  }
}
