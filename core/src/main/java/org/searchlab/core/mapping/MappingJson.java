// Just over 500 lines: the Elasticsearch mapping's JSON both ways (reading every field type
// with its options and errors, and rendering it back), in one place so the two stay alike.
package org.searchlab.core.mapping;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.searchlab.core.VectorQuantization;

/**
 * Reads an Elasticsearch {@code mappings} object into a {@link Mapping} and writes one back, as
 * {@code GET /{index}/_mapping} shows it. Parameters the stores implement are read; parameters
 * whose Elasticsearch default is what the stores do are accepted; anything else is a {@code
 * mapper_parsing_exception} naming the parameter, the field and the type, as Elasticsearch answers
 * an unknown parameter. Stateless and thread-safe.
 */
public final class MappingJson {
  private static final Set<String> ROOT_KEYS =
      Set.of(
          "properties",
          "dynamic",
          "date_detection",
          "_source",
          "_meta",
          "dynamic_templates",
          "numeric_detection");

  private MappingJson() {}

  /**
   * Reads {@code mappings} (null or empty: no fields, {@code dynamic: true}) against the index's
   * settings, which define the analyzers and similarities fields may name.
   */
  public static Mapping parse(JsonNode mappings, IndexSettings settings) {
    if (mappings == null || mappings.isNull()) {
      return Mapping.EMPTY;
    }
    object(mappings, "[mappings]");
    // Elasticsearch 6 wrapped the mapping in a type name ({"_doc": {...}}); 8.x refuses it too.
    Dynamic dynamic = Dynamic.TRUE;
    boolean dates = true;
    Map<String, FieldType> props = Map.of();
    for (Iterator<Map.Entry<String, JsonNode>> it = mappings.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      switch (e.getKey()) {
        case "properties" -> props = properties(v, "", settings, 1);
        case "dynamic" -> dynamic = Dynamic.parse(v.asText());
        case "date_detection" -> dates = bool(v, "[date_detection]");
        case "numeric_detection" -> {
          if (bool(v, "[numeric_detection]")) {
            throw MappingException.parsing("[numeric_detection] true is not supported");
          }
        }
        case "_source" -> {
          JsonNode enabled = v.get("enabled");
          if (v.size() > 1 || (enabled != null && !bool(enabled, "[_source.enabled]"))) {
            throw MappingException.parsing(
                "[_source] can only be {\"enabled\": true}: both stores keep every document's"
                    + " source");
          }
        }
        case "_meta" -> object(v, "[_meta]");
        case "dynamic_templates" -> {
          if (!v.isArray() || !v.isEmpty()) {
            throw MappingException.parsing("[dynamic_templates] are not supported");
          }
        }
        default ->
            throw MappingException.parsing(
                "Root mapping definition has unsupported parameters: ["
                    + NumberType.abbreviate(e.getKey())
                    + "]; supported: "
                    + ROOT_KEYS);
      }
    }
    return new Mapping(dynamic, dates, props);
  }

  private static Map<String, FieldType> properties(
      JsonNode props, String prefix, IndexSettings settings, int depth) {
    object(props, "[properties]");
    if (depth > Mapping.MAX_DEPTH) {
      throw MappingException.parsing(
          "the mapping nests objects deeper than "
              + Mapping.MAX_DEPTH
              + " (index.mapping.depth.limit)");
    }
    Map<String, FieldType> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String name = e.getKey();
      if (name.contains(".")
          && !name.startsWith(".")
          && !name.endsWith(".")
          && !name.contains("..")) {
        // A dotted name defines objects on the way, as Elasticsearch expands "a.b".
        String[] parts = name.split("\\.");
        FieldType leaf = field(prefix + name, e.getValue(), settings, depth + parts.length - 1);
        for (int i = parts.length - 1; i >= 1; i--) {
          leaf = new FieldType.ObjectField(null, true, Map.of(parts[i], leaf));
        }
        FieldType prev = out.get(parts[0]);
        out.put(parts[0], prev == null ? leaf : mergeInto(prefix + parts[0], prev, leaf));
        continue;
      }
      Mapping.checkName(name);
      FieldType f = field(prefix + name, e.getValue(), settings, depth);
      FieldType prev = out.get(name);
      out.put(name, prev == null ? f : mergeInto(prefix + name, prev, f));
    }
    return out;
  }

  private static FieldType mergeInto(String path, FieldType a, FieldType b) {
    return Mapping.of(Map.of("x", a)).merge(Mapping.of(Map.of("x", b))).properties().get("x");
  }

  private static FieldType field(String path, JsonNode def, IndexSettings settings, int depth) {
    object(def, "mapping of [" + path + "]");
    String type =
        def.has("type")
            ? text(def.get("type"), "[" + path + ".type]")
            : def.has("properties") ? "object" : null;
    if (type == null) {
      throw MappingException.parsing("No type specified for field [" + path + "]");
    }
    Params p = new Params(def, path, type);
    FieldType f =
        switch (type) {
          case "text" -> {
            String analyzer = settings.resolveAnalyzer(p.string("analyzer"));
            String search = p.string("search_analyzer");
            Map<String, FieldType> fields = Map.of();
            if (def.has("fields")) {
              p.used("fields");
              fields = multiFields(def.get("fields"), path, settings);
            }
            p.accept("norms", true);
            p.accept("fielddata", false);
            p.accept("store", false);
            p.skip(
                "index_options", "term_vector", "position_increment_gap", "eager_global_ordinals");
            yield new FieldType.Text(
                analyzer,
                search == null ? analyzer : settings.resolveAnalyzer(search),
                settings.resolveSimilarity(p.string("similarity")),
                p.bool("index", true),
                fields);
          }
          case "keyword" -> {
            int ignoreAbove = p.integer("ignore_above", Integer.MAX_VALUE, 0, Integer.MAX_VALUE);
            p.accept("store", false);
            p.accept("norms", false);
            p.skip("eager_global_ordinals", "split_queries_on_whitespace");
            if (def.has("fields")) {
              throw MappingException.parsing(
                  "[" + path + ".fields]: multi-fields are supported on text fields only");
            }
            yield new FieldType.Keyword(
                ignoreAbove, p.bool("index", true), p.bool("doc_values", true));
          }
          case "long", "integer", "short", "byte", "double", "float" -> {
            p.accept("coerce", true);
            p.accept("ignore_malformed", false);
            p.accept("store", false);
            yield new FieldType.Numeric(
                NumberType.of(type), p.bool("index", true), p.bool("doc_values", true));
          }
          case "boolean" -> {
            p.accept("store", false);
            yield new FieldType.Bool(p.bool("index", true), p.bool("doc_values", true));
          }
          case "date" -> {
            String format = p.string("format");
            p.accept("ignore_malformed", false);
            p.accept("store", false);
            p.skip("locale");
            yield new FieldType.Date(
                format == null ? Dates.DEFAULT_FORMAT : Dates.checkFormat(format),
                p.bool("index", true),
                p.bool("doc_values", true));
          }
          case "object" -> {
            Dynamic d = def.has("dynamic") ? Dynamic.parse(def.get("dynamic").asText()) : null;
            p.used("dynamic");
            boolean enabled = p.bool("enabled", true);
            Map<String, FieldType> props = Map.of();
            if (def.has("properties")) {
              p.used("properties");
              props = properties(def.get("properties"), path + ".", settings, depth + 1);
            }
            yield new FieldType.ObjectField(d, enabled, props);
          }
          case "dense_vector" -> vector(p, def, path);
          case "nested" ->
              throw MappingException.parsing(
                  "[" + path + "] has type [nested], which is not supported; use object");
          default ->
              throw MappingException.parsing(
                  "No handler for type ["
                      + NumberType.abbreviate(type)
                      + "] declared on field ["
                      + path
                      + "]; supported: text, keyword, long, integer, short, byte, double, float,"
                      + " boolean, date, object, dense_vector");
        };
    p.checkAllUsed();
    return f;
  }

  private static FieldType vector(Params p, JsonNode def, String path) {
    int dims = p.integer("dims", 0, 1, Mapping.MAX_DIMS);
    String element = p.string("element_type");
    if (element != null && !element.equals("float")) {
      throw MappingException.parsing(
          "[" + path + ".element_type] is [" + element + "]; only float vectors are supported");
    }
    boolean indexed = p.bool("index", true);
    String sim = p.string("similarity");
    VectorSimilarity similarity =
        sim == null ? VectorSimilarity.COSINE : VectorSimilarity.parse(sim);
    FieldType.IndexOptions options = FieldType.IndexOptions.DEFAULT;
    if (def.has("index_options")) {
      p.used("index_options");
      JsonNode o = object(def.get("index_options"), "[" + path + ".index_options]");
      Params op = new Params(o, path + ".index_options", "index_options");
      String t = op.string("type");
      if (t == null) {
        throw MappingException.parsing("[" + path + ".index_options.type] is required");
      }
      // Elasticsearch's flat, int8_flat, int4_flat, bbq_flat and bbq_disk stay unknown here.
      if (!VectorQuantization.esIndexTypes().contains(t)) {
        throw MappingException.parsing(
            "["
                + path
                + ".index_options.type] is ["
                + NumberType.abbreviate(t)
                + "]; supported: "
                + VectorQuantization.esIndexTypes());
      }
      int m = op.integer("m", 0, 2, 512);
      int ef = op.integer("ef_construction", 0, 1, 3200);
      op.skip("confidence_interval");
      op.checkAllUsed();
      options = new FieldType.IndexOptions(t, m, ef);
    }
    return new FieldType.DenseVector(dims, similarity, indexed, options);
  }

  private static Map<String, FieldType> multiFields(
      JsonNode fields, String path, IndexSettings settings) {
    object(fields, "[" + path + ".fields]");
    Map<String, FieldType> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = fields.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      Mapping.checkName(e.getKey());
      FieldType f = field(path + "." + e.getKey(), e.getValue(), settings, 1);
      if (!(f instanceof FieldType.Keyword) && !(f instanceof FieldType.Text)) {
        throw MappingException.parsing(
            "multi-field ["
                + path
                + "."
                + e.getKey()
                + "] has type ["
                + f.esName()
                + "]; multi-fields may be keyword or text");
      }
      if (f instanceof FieldType.Text t && !t.fields().isEmpty()) {
        throw MappingException.parsing("multi-field [" + path + "." + e.getKey() + "] has fields");
      }
      out.put(e.getKey(), f);
    }
    return out;
  }

  /** The mapping as {@code GET /{index}/_mapping} shows it under {@code mappings}. */
  public static ObjectNode render(Mapping m) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    if (m.dynamic() != Dynamic.TRUE) {
      o.put("dynamic", m.dynamic().esValue());
    }
    if (!m.dateDetection()) {
      o.put("date_detection", false);
    }
    if (!m.properties().isEmpty()) {
      o.set("properties", renderProps(m.properties()));
    }
    return o;
  }

  private static ObjectNode renderProps(Map<String, FieldType> props) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, FieldType> e : props.entrySet()) {
      o.set(e.getKey(), render(e.getValue()));
    }
    return o;
  }

  /** One field's definition. */
  public static ObjectNode render(FieldType f) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    switch (f) {
      case FieldType.ObjectField obj -> {
        if (obj.dynamic() != null) {
          o.put("dynamic", obj.dynamic().esValue());
        }
        if (!obj.enabled()) {
          o.put("type", "object").put("enabled", false);
        }
        o.set("properties", renderProps(obj.properties()));
      }
      case FieldType.Text t -> {
        o.put("type", "text");
        // Always named: an index's default analyzer is the project's, not Elasticsearch's.
        o.put("analyzer", t.analyzer());
        if (!t.searchAnalyzer().equals(t.analyzer())) {
          o.put("search_analyzer", t.searchAnalyzer());
        }
        if (!t.similarity().name().equals("BM25")) {
          o.put("similarity", t.similarity().name());
        }
        if (!t.indexed()) {
          o.put("index", false);
        }
        if (!t.fields().isEmpty()) {
          o.set("fields", renderProps(t.fields()));
        }
      }
      case FieldType.Keyword k -> {
        o.put("type", "keyword");
        if (k.ignoreAbove() != Integer.MAX_VALUE) {
          o.put("ignore_above", k.ignoreAbove());
        }
        indexAndDocValues(o, k.indexed(), k.docValues());
      }
      case FieldType.Numeric n -> {
        o.put("type", n.esName());
        indexAndDocValues(o, n.indexed(), n.docValues());
      }
      case FieldType.Bool b -> {
        o.put("type", "boolean");
        indexAndDocValues(o, b.indexed(), b.docValues());
      }
      case FieldType.Date d -> {
        o.put("type", "date");
        if (!d.format().equals(Dates.DEFAULT_FORMAT)) {
          o.put("format", d.format());
        }
        indexAndDocValues(o, d.indexed(), d.docValues());
      }
      case FieldType.DenseVector v -> {
        o.put("type", "dense_vector");
        if (v.dims() > 0) {
          o.put("dims", v.dims());
        }
        o.put("index", v.indexed());
        o.put("similarity", v.similarity().esName());
        FieldType.IndexOptions io = v.indexOptions();
        if (io.type() != null || io.m() > 0 || io.efConstruction() > 0) {
          ObjectNode opts = o.putObject("index_options");
          opts.put("type", io.type() == null ? "hnsw" : io.type());
          if (io.m() > 0) {
            opts.put("m", io.m());
          }
          if (io.efConstruction() > 0) {
            opts.put("ef_construction", io.efConstruction());
          }
        }
      }
    }
    return o;
  }

  private static void indexAndDocValues(ObjectNode o, boolean indexed, boolean docValues) {
    if (!indexed) {
      o.put("index", false);
    }
    if (!docValues) {
      o.put("doc_values", false);
    }
  }

  private static JsonNode object(JsonNode n, String where) {
    if (n == null || !n.isObject()) {
      throw MappingException.parsing(where + " must be an object");
    }
    return n;
  }

  private static String text(JsonNode n, String where) {
    if (n == null || !n.isTextual()) {
      throw MappingException.parsing(where + " must be a string");
    }
    return n.textValue();
  }

  private static boolean bool(JsonNode n, String where) {
    if (n.isBoolean()) {
      return n.booleanValue();
    }
    if (n.isTextual() && (n.textValue().equals("true") || n.textValue().equals("false"))) {
      return Boolean.parseBoolean(n.textValue());
    }
    throw MappingException.parsing(where + " must be true or false");
  }

  /** A field definition's parameters, each marked as read, so that an unknown one is refused. */
  private static final class Params {
    private final JsonNode def;
    private final String path;
    private final String type;
    private final Set<String> used = new java.util.HashSet<>(Set.of("type"));

    Params(JsonNode def, String path, String type) {
      this.def = def;
      this.path = path;
      this.type = type;
    }

    void used(String key) {
      used.add(key);
    }

    void skip(String... keys) {
      used.addAll(java.util.List.of(keys));
    }

    String string(String key) {
      used.add(key);
      JsonNode v = def.get(key);
      return v == null || v.isNull() ? null : text(v, "[" + path + "." + key + "]");
    }

    boolean bool(String key, boolean dflt) {
      used.add(key);
      JsonNode v = def.get(key);
      return v == null || v.isNull() ? dflt : MappingJson.bool(v, "[" + path + "." + key + "]");
    }

    int integer(String key, int dflt, int min, int max) {
      used.add(key);
      JsonNode v = def.get(key);
      if (v == null || v.isNull()) {
        return dflt;
      }
      if (v.canConvertToInt() && (v.isIntegralNumber() || v.isTextual())) {
        int i = v.isTextual() ? parseInt(v.textValue()) : v.intValue();
        if (i >= min && i <= max) {
          return i;
        }
      }
      throw MappingException.parsing(
          "["
              + path
              + "."
              + key
              + "] is ["
              + NumberType.abbreviate(v.toString())
              + "]; expected an integer in ["
              + min
              + ", "
              + max
              + "]");
    }

    private static int parseInt(String s) {
      try {
        return Integer.parseInt(s.trim());
      } catch (NumberFormatException e) {
        return Integer.MIN_VALUE;
      }
    }

    /** A parameter accepted only at the value the stores implement. */
    void accept(String key, boolean only) {
      used.add(key);
      JsonNode v = def.get(key);
      if (v != null && MappingJson.bool(v, "[" + path + "." + key + "]") != only) {
        throw MappingException.parsing(
            "[" + path + "." + key + "] can only be " + only + " here (" + type + " fields)");
      }
    }

    void checkAllUsed() {
      for (Iterator<String> it = def.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        if (!used.contains(k)) {
          throw MappingException.parsing(
              "unknown parameter ["
                  + NumberType.abbreviate(k)
                  + "] on mapper ["
                  + path
                  + "] of type ["
                  + type.toLowerCase(Locale.ROOT)
                  + "]");
        }
      }
    }
  }
}
