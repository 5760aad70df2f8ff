package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.searchlab.core.Document;
import org.searchlab.core.Schema;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.MappingException;
import org.searchlab.core.mapping.MappingJson;

/**
 * The index an experiment runs on and the roles its fields play: the index (and Vespa document
 * type) name, the mapping, the text fields the lexical part searches ({@code multi_match}
 * best_fields), the vector field of the vector part, the keyword field of the filtered queries, and
 * the numeric field the update phase changes (its value + 100). The {@link #PRODUCT} mapping is the
 * benchmark's own, whose requests are built as they always were; any other comes from a mapping
 * file ({@link #read}). Immutable and thread-safe.
 *
 * @param index the index name, lower-case letters, digits and {@code _}, starting with a letter (so
 *     it is a Vespa document type too)
 * @param settings the index settings of the mapping file (analyzers, similarities)
 * @param mapping the mapping as searchlab's core reads it
 * @param textFields the lexical part's fields, at least one, each a {@code text} field
 * @param vectorField an indexed {@code dense_vector} field
 * @param filterField a {@code keyword} field
 * @param updateField a numeric field (empty in the roles of a dataset build, which updates nothing)
 * @param product whether this is the benchmark's product mapping
 * @param origin where the mapping came from (its file), for the report
 */
public record BenchMapping(
    String index,
    IndexSettings settings,
    Mapping mapping,
    List<String> textFields,
    String vectorField,
    String filterField,
    String updateField,
    boolean product,
    String origin) {

  /** The benchmark's index name. */
  public static final String PRODUCT_INDEX = "product";

  private static final Pattern INDEX_NAME = Pattern.compile("[a-z][a-z0-9_]{0,99}");

  /** The HNSW settings of a vector field whose mapping names none: Elasticsearch's defaults. */
  static final int DEFAULT_M = 16;

  static final int DEFAULT_EF_CONSTRUCTION = 200;

  /** The numbers an update adds to the update field, as the benchmark's price update. */
  public static final int UPDATE_DELTA = 100;

  public BenchMapping {
    Objects.requireNonNull(index, "index");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(mapping, "mapping");
    textFields = List.copyOf(textFields);
    Objects.requireNonNull(vectorField, "vectorField");
    Objects.requireNonNull(filterField, "filterField");
    Objects.requireNonNull(updateField, "updateField");
    Objects.requireNonNull(origin, "origin");
  }

  /** The benchmark's product mapping (title, description, embedding, category, price). */
  public static final BenchMapping PRODUCT =
      new BenchMapping(
          PRODUCT_INDEX,
          IndexSettings.NO_REPLICAS,
          Mapping.product(0),
          List.of(Schema.TITLE, Schema.DESCRIPTION),
          Schema.EMBEDDING,
          Schema.CATEGORY,
          Schema.PRICE,
          true,
          "the product mapping");

  /**
   * The fields a user chose on the command line; null for "the default": the text fields are the
   * mapping's top-level {@code text} fields (not multi-fields), and each other role the one field
   * of its type.
   */
  public record Choice(
      String index,
      List<String> textFields,
      String vectorField,
      String filterField,
      String updateField) {
    /** Every role by default, the index named {@value BenchMapping#PRODUCT_INDEX}. */
    public static final Choice DEFAULTS = new Choice(null, null, null, null, null);
  }

  /**
   * A mapping file's roles: {@code file} is a {@code PUT /{index}} body ({@code settings} and
   * {@code mappings}) or a bare {@code mappings} object.
   *
   * @throws IllegalArgumentException naming the field or setting, for a body core refuses, a field
   *     that does not fit its role, or a role without a single default
   */
  public static BenchMapping read(JsonNode file, Choice choice) {
    return read(file, choice, "a mapping given in code");
  }

  /**
   * {@link #read(JsonNode, Choice)}, naming where the mapping came from.
   *
   * @param origin the mapping file, as the report names it
   */
  public static BenchMapping read(JsonNode file, Choice choice, String origin) {
    return resolve(file, choice, origin, true);
  }

  /**
   * {@link #read(JsonNode, Choice, String)} without the update field (empty), for a dataset build,
   * which needs the text, vector and filter fields only.
   */
  public static BenchMapping roles(JsonNode file, Choice choice, String origin) {
    return resolve(file, choice, origin, false);
  }

  private static BenchMapping resolve(
      JsonNode file, Choice choice, String origin, boolean needUpdate) {
    ObjectNode body = putBody(file);
    IndexSettings settings;
    Mapping mapping;
    try {
      settings = IndexSettings.parse(body.get("settings"));
      mapping = MappingJson.parse(body.get("mappings"), settings);
    } catch (MappingException e) {
      throw new IllegalArgumentException("mapping: " + e.getMessage(), e);
    }
    String index = choice.index() == null ? PRODUCT_INDEX : choice.index();
    if (!INDEX_NAME.matcher(index).matches()) {
      throw new IllegalArgumentException(
          "--index-name ["
              + index
              + "]: lower-case letters, digits and _, starting with a letter (it is also the Vespa"
              + " document type)");
    }
    List<String> text = choice.textFields() == null ? topLevelText(mapping) : choice.textFields();
    if (text.isEmpty()) {
      throw new IllegalArgumentException("--text-fields: the mapping has no text field");
    }
    for (String f : text) {
      if (!(mapping.leaf(f) instanceof FieldType.Text t) || !t.indexed()) {
        throw new IllegalArgumentException(
            "--text-fields: ["
                + f
                + "] is "
                + describe(mapping, f)
                + ", not an indexed text field");
      }
    }
    List<String> vectors = new ArrayList<>();
    for (String p : mapping.paths(FieldType.DenseVector.class)) {
      if (mapping.vector(p).indexed()) {
        vectors.add(p);
      }
    }
    String vector = choose("--vector-field", "indexed dense_vector", choice.vectorField(), vectors);
    if (!vectors.contains(vector)) {
      throw new IllegalArgumentException(
          "--vector-field: ["
              + vector
              + "] is "
              + describe(mapping, vector)
              + ", not an indexed dense_vector field");
    }
    List<String> keywords = new ArrayList<>();
    for (String p : mapping.paths(FieldType.Keyword.class)) {
      if (!subFieldOfText(mapping, p) && mapping.leaf(p).indexed()) {
        keywords.add(p);
      }
    }
    String filter = choose("--filter-field", "keyword", choice.filterField(), keywords);
    if (!(mapping.leaf(filter) instanceof FieldType.Keyword k) || !k.indexed()) {
      throw new IllegalArgumentException(
          "--filter-field: [" + filter + "] is " + describe(mapping, filter) + ", not a keyword");
    }
    if (!needUpdate) {
      return new BenchMapping(index, settings, mapping, text, vector, filter, "", false, origin);
    }
    String update =
        choose(
            "--update-field",
            "numeric",
            choice.updateField(),
            mapping.paths(FieldType.Numeric.class));
    if (!(mapping.leaf(update) instanceof FieldType.Numeric)) {
      throw new IllegalArgumentException(
          "--update-field: [" + update + "] is " + describe(mapping, update) + ", not numeric");
    }
    return new BenchMapping(index, settings, mapping, text, vector, filter, update, false, origin);
  }

  /**
   * The file as a {@code PUT /{index}} body: {@code settings} (maybe absent) and {@code mappings}.
   */
  static ObjectNode putBody(JsonNode file) {
    if (file == null || !file.isObject()) {
      throw new IllegalArgumentException("mapping: the file must hold a JSON object");
    }
    if (file.has("mappings")) {
      return (ObjectNode) file;
    }
    if (file.has("properties")) {
      ObjectNode body = Json.object();
      body.set("mappings", file);
      return body;
    }
    throw new IllegalArgumentException(
        "mapping: expected a PUT /{index} body (\"mappings\") or a mappings object"
            + " (\"properties\"); found the keys "
            + iterable(file.fieldNames()));
  }

  private static List<String> iterable(java.util.Iterator<String> it) {
    List<String> out = new ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }

  private static String choose(String flag, String type, String given, List<String> candidates) {
    if (given != null) {
      return given;
    }
    if (candidates.size() != 1) {
      throw new IllegalArgumentException(
          flag
              + ": the mapping has "
              + (candidates.isEmpty()
                  ? "no " + type + " field"
                  : "the " + type + " fields " + candidates)
              + "; name "
              + (candidates.isEmpty() ? "a mapping with one" : "one"));
    }
    return candidates.get(0);
  }

  private static String describe(Mapping mapping, String path) {
    FieldType f = mapping.field(path);
    return f == null
        ? "not in the mapping"
        : "a " + f.esName() + (f.indexed() ? "" : " (not indexed)");
  }

  /** The mapping's indexed text fields that are no multi-field of another, in order. */
  static List<String> topLevelText(Mapping mapping) {
    List<String> out = new ArrayList<>();
    for (String p : mapping.paths(FieldType.Text.class)) {
      if (!subFieldOfText(mapping, p) && mapping.leaf(p).indexed()) {
        out.add(p);
      }
    }
    return out;
  }

  private static boolean subFieldOfText(Mapping mapping, String path) {
    int dot = path.lastIndexOf('.');
    return dot > 0 && mapping.leaf(path.substring(0, dot)) instanceof FieldType.Text;
  }

  /** The vector field's definition in the mapping. */
  public FieldType.DenseVector vector() {
    return mapping.vector(vectorField);
  }

  /** The report's line: the index, where the mapping came from and the field of each role. */
  public String describe() {
    return "index "
        + index
        + (product ? " (the product mapping)" : " (mapping " + origin + ")")
        + ": text fields "
        + textFields
        + ", vector field "
        + vectorField
        + ", filter field "
        + filterField
        + ", update field "
        + updateField;
  }

  // ----------------------------------------------------------------------------------------------
  // Documents

  /** A document's vector in the vector field, or null when it has none. */
  public float[] vectorOf(Document d) {
    return floats(d.value(vectorField));
  }

  /** A document's filter value, or null when it has no string there. */
  public String filterOf(Document d) {
    Object v = d.value(filterField);
    if (v instanceof List<?> l && !l.isEmpty()) {
      v = l.get(0);
    }
    return v instanceof String s ? s : null;
  }

  /** The query text a document gives: the first {@code words} words of its first text field. */
  public String queryTextOf(Document d, int words) {
    for (String f : textFields) {
      Object v = d.value(f);
      if (v instanceof List<?> l && !l.isEmpty()) {
        v = l.get(0);
      }
      if (v instanceof String s && !s.isBlank()) {
        return BenchQuery.queryText(s, words);
      }
    }
    return "";
  }

  /** The update field's value + {@value #UPDATE_DELTA} (0 + it when the document has none). */
  public Number updatedValue(Document d) {
    Object v = d.value(updateField);
    FieldType.Numeric type = (FieldType.Numeric) mapping.leaf(updateField);
    double now = v instanceof Number n ? n.doubleValue() : 0;
    if (type.type().integral()) {
      return (long) now + UPDATE_DELTA;
    }
    return now + UPDATE_DELTA;
  }

  /**
   * A source value as a float vector: a {@code float[]}, the {@code double[]} or {@code long[]} a
   * JSON array of numbers is read as, or a list of numbers; null otherwise.
   */
  static float[] floats(Object v) {
    if (v instanceof float[] f) {
      return f;
    }
    if (v instanceof double[] d && d.length > 0) {
      float[] out = new float[d.length];
      for (int i = 0; i < out.length; i++) {
        out[i] = (float) d[i];
      }
      return out;
    }
    if (v instanceof long[] l && l.length > 0) {
      float[] out = new float[l.length];
      for (int i = 0; i < out.length; i++) {
        out[i] = l[i];
      }
      return out;
    }
    if (v instanceof List<?> l && !l.isEmpty() && l.stream().allMatch(x -> x instanceof Number)) {
      float[] out = new float[l.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = ((Number) l.get(i)).floatValue();
      }
      return out;
    }
    return null;
  }

  // ----------------------------------------------------------------------------------------------
  // Index bodies

  /**
   * The {@code PUT /{index}} body for a searchlab server: the mapping as core reads it (every text
   * field naming its analyzer), settings defining the benchmark's analyzer, the default analyzer
   * and the named BM25 similarities, {@code index.store} = {@code store}, and the vector field's
   * {@code index_options} with {@code quantization}'s type and the mapping's {@code m} and {@code
   * ef_construction} (else {@value #DEFAULT_M} and {@value #DEFAULT_EF_CONSTRUCTION}).
   *
   * @param store the variant's store, or null for an engine that is not searchlab's (Elasticsearch:
   *     no {@code index.store}, and no similarity named {@code default})
   */
  public ObjectNode indexBody(int dimension, VectorQuantization quantization, String store) {
    ObjectNode body = Json.object();
    ObjectNode index = body.putObject("settings").putObject("index");
    index.put("number_of_shards", 1);
    index.put("number_of_replicas", 0);
    if (store != null) {
      index.put("store", store);
    }
    ObjectNode analysis = index.putObject("analysis");
    ObjectNode analyzers = analysis.putObject("analyzer");
    benchmarkAnalyzer(analyzers.putObject(TextAnalysis.NAME));
    if (settings.defaultAnalyzer().equals(TextAnalysis.NAME)) {
      benchmarkAnalyzer(analyzers.putObject("default"));
    } else {
      analyzers.putObject("default").put("type", "standard");
    }
    analysis
        .putObject("filter")
        .putObject("porter2_stemmer")
        .put("type", "stemmer")
        .put("language", "porter2");
    ObjectNode similarities = Json.object();
    for (Map.Entry<String, FieldType.Bm25Similarity> e :
        new java.util.TreeMap<>(settings.similarities()).entrySet()) {
      if (store == null && e.getKey().equals("default")) {
        continue; // Elasticsearch's default similarity is BM25 with its own parameters
      }
      similarities
          .putObject(e.getKey())
          .put("type", "BM25")
          .put("k1", e.getValue().k1())
          .put("b", e.getValue().b());
    }
    if (!similarities.isEmpty()) {
      index.set("similarity", similarities);
    }
    ObjectNode mappings = MappingJson.render(mapping);
    ObjectNode vector = vectorNode(mappings, vectorField);
    FieldType.DenseVector v = vector();
    if (v.dims() == 0) {
      vector.put("dims", dimension);
    }
    FieldType.IndexOptions io = v.indexOptions();
    vector
        .putObject("index_options")
        .put("type", quantization.esIndexType())
        .put("m", io.m() > 0 ? io.m() : DEFAULT_M)
        .put(
            "ef_construction",
            io.efConstruction() > 0 ? io.efConstruction() : DEFAULT_EF_CONSTRUCTION);
    body.set("mappings", mappings);
    return body;
  }

  private static void benchmarkAnalyzer(ObjectNode an) {
    an.put("type", "custom");
    an.put("tokenizer", "standard");
    an.putArray("filter").add("lowercase").add("asciifolding").add("porter2_stemmer");
  }

  /** The rendered definition of the field at {@code path} (through objects' properties). */
  private static ObjectNode vectorNode(ObjectNode mappings, String path) {
    ObjectNode at = mappings;
    for (String part : path.split("\\.")) {
      at = (ObjectNode) at.path("properties").path(part);
    }
    return at;
  }

  /**
   * The OpenSearch body: {@link #indexBody} for Elasticsearch with the vector field as a {@code
   * knn_vector} on the Lucene engine, its space from the field's similarity, and {@code index.knn}.
   */
  public ObjectNode openSearchBody(int dimension) {
    ObjectNode body = indexBody(dimension, VectorQuantization.NONE, null);
    ((ObjectNode) body.path("settings").path("index")).put("knn", true);
    ObjectNode vector = vectorNode((ObjectNode) body.get("mappings"), vectorField);
    JsonNode opts = vector.path("index_options");
    int dims = vector.path("dims").asInt();
    String space =
        switch (vector().similarity()) {
          case L2_NORM -> "l2";
          case COSINE -> "cosinesimil";
          case DOT_PRODUCT, MAX_INNER_PRODUCT -> "innerproduct";
        };
    vector.removeAll();
    vector.put("type", "knn_vector").put("dimension", dims);
    ObjectNode method = vector.putObject("method");
    method.put("name", "hnsw").put("engine", "lucene").put("space_type", space);
    method
        .putObject("parameters")
        .put("m", opts.path("m").asInt())
        .put("ef_construction", opts.path("ef_construction").asInt());
    return body;
  }
}
