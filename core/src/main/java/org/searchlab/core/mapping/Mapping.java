package org.searchlab.core.mapping;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.searchlab.core.analysis.TextAnalysis;

/**
 * An index's mapping: a tree of named fields (Elasticsearch's {@code mappings}, Vespa's schema),
 * the root's {@code dynamic} and date detection. Documents are read against it ({@link
 * DocumentParser}); queries name its fields. Immutable and thread-safe; a dynamic update or a
 * {@code PUT _mapping} makes a new mapping ({@link #merge}).
 *
 * <p>Limits, as Elasticsearch's index settings of the same names: at most {@value #MAX_FIELDS}
 * fields ({@code index.mapping.total_fields.limit}, objects and multi-fields counted), objects
 * nested at most {@value #MAX_DEPTH} deep ({@code index.mapping.depth.limit}), field names of at
 * most {@value #MAX_NAME_BYTES} UTF-8 bytes, vectors of at most {@value #MAX_DIMS} dimensions.
 *
 * <p>The root has {@code dynamic} (what unknown fields at the root do), date detection (whether a
 * dynamically mapped string that reads as a date becomes a {@code date}, Elasticsearch's {@code
 * date_detection}, on by default) and its fields in definition order.
 */
public final class Mapping {
  public static final int MAX_FIELDS = 1000;
  public static final int MAX_DEPTH = 20;
  public static final int MAX_NAME_BYTES = 512;

  /** Lucene's and Elasticsearch's largest vector dimension. */
  public static final int MAX_DIMS = 4096;

  /** An empty mapping with {@code dynamic: true}, as a new Elasticsearch index has. */
  public static final Mapping EMPTY = new Mapping(Dynamic.TRUE, true, Map.of());

  /** Names Elasticsearch reserves for metadata; a document or a mapping may not define them. */
  public static final Set<String> METADATA_FIELDS =
      Set.of(
          "_id",
          "_index",
          "_source",
          "_routing",
          "_ignored",
          "_seq_no",
          "_version",
          "_primary_term",
          "_doc_count",
          "_field_names",
          "_tier",
          "_data_stream_timestamp",
          "_nested_path",
          "_feature",
          "_score");

  private final Dynamic dynamic;
  private final boolean dateDetection;
  private final Map<String, FieldType> properties;
  private final Map<String, FieldType> leaves;

  public Mapping(Dynamic dynamic, boolean dateDetection, Map<String, FieldType> properties) {
    this.dynamic = Objects.requireNonNull(dynamic, "dynamic");
    this.dateDetection = dateDetection;
    this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    check(this.properties, "", 1, new int[1]);
    Map<String, FieldType> l = new LinkedHashMap<>();
    collect(this.properties, "", l);
    this.leaves = Collections.unmodifiableMap(l);
  }

  public Dynamic dynamic() {
    return dynamic;
  }

  public boolean dateDetection() {
    return dateDetection;
  }

  public Map<String, FieldType> properties() {
    return properties;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Mapping m
        && dynamic == m.dynamic
        && dateDetection == m.dateDetection
        && properties.equals(m.properties);
  }

  @Override
  public int hashCode() {
    return Objects.hash(dynamic, dateDetection, properties);
  }

  @Override
  public String toString() {
    return "Mapping[dynamic=" + dynamic.esValue() + ", fields=" + leaves.keySet() + "]";
  }

  private static void check(Map<String, FieldType> props, String prefix, int depth, int[] count) {
    if (depth > MAX_DEPTH) {
      throw MappingException.parsing(
          "the object ["
              + prefix.substring(0, Math.max(0, prefix.length() - 1))
              + "] is nested "
              + depth
              + " deep; the limit is "
              + MAX_DEPTH
              + " (index.mapping.depth.limit)");
    }
    for (Map.Entry<String, FieldType> e : props.entrySet()) {
      checkName(e.getKey());
      String path = prefix + e.getKey();
      if (++count[0] > MAX_FIELDS) {
        throw MappingException.parsing(
            "the mapping has more than "
                + MAX_FIELDS
                + " fields (index.mapping.total_fields.limit)");
      }
      switch (e.getValue()) {
        case FieldType.ObjectField o -> check(o.properties(), path + ".", depth + 1, count);
        case FieldType.Text t -> {
          for (String sub : t.fields().keySet()) {
            checkName(sub);
            count[0]++;
          }
        }
        default -> {}
      }
    }
  }

  /** Rejects an empty, blank, dotted-only, metadata or over-long field name. */
  public static String checkName(String name) {
    if (name == null || name.isEmpty() || name.isBlank()) {
      throw MappingException.parsing("a field name cannot be empty or blank");
    }
    if (name.contains(".")) {
      throw MappingException.parsing(
          "field name [" + NumberType.abbreviate(name) + "] cannot contain '.' at this level");
    }
    if (METADATA_FIELDS.contains(name)) {
      throw MappingException.parsing(
          "field ["
              + name
              + "] is a metadata field and cannot be added inside a document or a mapping");
    }
    int bytes = name.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_NAME_BYTES) {
      throw MappingException.parsing(
          "a field name is " + bytes + " bytes long; the limit is " + MAX_NAME_BYTES + " bytes");
    }
    return name;
  }

  /** A root with these fields and {@code dynamic: true}. */
  public static Mapping of(Map<String, FieldType> properties) {
    return new Mapping(Dynamic.TRUE, true, properties);
  }

  /**
   * The benchmark's mapping: {@code id} and {@code category} keywords, {@code title} and {@code
   * description} text with the project's analyzer, {@code price} (integer) and {@code
   * average_rating} (float) kept as doc values only ({@code index: false}), and {@code embedding} a
   * {@code dot_product} vector of {@code dims} dimensions; {@code dynamic: strict}, as the
   * benchmark's index takes no other field.
   *
   * @param indexOptions the vector's graph settings
   */
  public static Mapping product(int dims, FieldType.IndexOptions indexOptions) {
    Map<String, FieldType> p = new LinkedHashMap<>();
    p.put("id", FieldType.Keyword.PLAIN);
    p.put("title", FieldType.Text.of(TextAnalysis.NAME));
    p.put("description", FieldType.Text.of(TextAnalysis.NAME));
    p.put("category", FieldType.Keyword.PLAIN);
    p.put("price", new FieldType.Numeric(NumberType.INTEGER, false, true));
    p.put("average_rating", new FieldType.Numeric(NumberType.FLOAT, false, true));
    p.put(
        "embedding",
        new FieldType.DenseVector(dims, VectorSimilarity.DOT_PRODUCT, true, indexOptions));
    return new Mapping(Dynamic.STRICT, true, p);
  }

  /** {@link #product(int, FieldType.IndexOptions)} with the store's default graph settings. */
  public static Mapping product(int dims) {
    return product(dims, FieldType.IndexOptions.DEFAULT);
  }

  /**
   * Every leaf field by its path, multi-fields included ({@code title.keyword}), in definition
   * order. Objects are not leaves; the fields of a disabled object are not either.
   */
  public Map<String, FieldType> leaves() {
    return leaves;
  }

  private static void collect(
      Map<String, FieldType> props, String prefix, Map<String, FieldType> out) {
    for (Map.Entry<String, FieldType> e : props.entrySet()) {
      String path = prefix + e.getKey();
      switch (e.getValue()) {
        case FieldType.ObjectField o -> {
          if (o.enabled()) {
            collect(o.properties(), path + ".", out);
          }
        }
        case FieldType.Text t -> {
          out.put(path, t);
          for (Map.Entry<String, FieldType> sub : t.fields().entrySet()) {
            out.put(path + "." + sub.getKey(), sub.getValue());
          }
        }
        default -> out.put(path, e.getValue());
      }
    }
  }

  /** The leaf at {@code path} (a multi-field included), or null. */
  public FieldType leaf(String path) {
    return leaves.get(path);
  }

  /** The field (leaf or object) at {@code path}, or null; multi-fields are found too. */
  public FieldType field(String path) {
    Map<String, FieldType> props = properties;
    String[] parts = path.split("\\.", -1);
    FieldType at = null;
    for (int i = 0; i < parts.length; i++) {
      if (props == null) {
        return null;
      }
      at = props.get(parts[i]);
      if (at == null) {
        return null;
      }
      if (at instanceof FieldType.ObjectField o) {
        props = o.properties();
      } else if (at instanceof FieldType.Text t && i + 1 < parts.length) {
        props = t.fields();
      } else {
        props = null;
      }
    }
    return at;
  }

  /** The paths of the leaves of type {@code type}, in definition order. */
  public <T extends FieldType> List<String> paths(Class<T> type) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, FieldType> e : leaves().entrySet()) {
      if (type.isInstance(e.getValue())) {
        out.add(e.getKey());
      }
    }
    return out;
  }

  /** The {@code dense_vector} leaf at {@code path}, or null. */
  public FieldType.DenseVector vector(String path) {
    return leaf(path) instanceof FieldType.DenseVector v ? v : null;
  }

  /** A mapping with {@code dynamic} set at the root. */
  public Mapping withDynamic(Dynamic d) {
    return new Mapping(d, dateDetection, properties);
  }

  /**
   * This mapping with {@code other}'s fields added: a field only {@code other} has is added, one
   * both have must agree (objects merge field by field; a text field may gain multi-fields; a
   * keyword may change {@code ignore_above}; a vector without dims takes {@code other}'s). The
   * root's {@code dynamic} and date detection are {@code other}'s when it changes them from the
   * defaults.
   *
   * @throws MappingException {@code illegal_argument_exception} naming the field and what would
   *     change, when a field would change its type or a parameter that cannot change
   */
  public Mapping merge(Mapping other) {
    Map<String, FieldType> merged = mergeProps(properties, other.properties, "");
    Dynamic d = other.dynamic != Dynamic.TRUE ? other.dynamic : dynamic;
    boolean dates = other.dateDetection && dateDetection;
    return new Mapping(d, dates, merged);
  }

  private static Map<String, FieldType> mergeProps(
      Map<String, FieldType> mine, Map<String, FieldType> theirs, String prefix) {
    Map<String, FieldType> out = new LinkedHashMap<>(mine);
    for (Map.Entry<String, FieldType> e : theirs.entrySet()) {
      String path = prefix + e.getKey();
      FieldType old = mine.get(e.getKey());
      out.put(e.getKey(), old == null ? e.getValue() : mergeField(path, old, e.getValue()));
    }
    return out;
  }

  private static FieldType mergeField(String path, FieldType old, FieldType neu) {
    if (old.equals(neu)) {
      return old;
    }
    if (!old.esName().equals(neu.esName())) {
      throw MappingException.conflict(
          "mapper ["
              + path
              + "] cannot be changed from type ["
              + old.esName()
              + "] to ["
              + neu.esName()
              + "]");
    }
    return switch (old) {
      case FieldType.ObjectField o -> {
        FieldType.ObjectField n = (FieldType.ObjectField) neu;
        if (o.enabled() != n.enabled()) {
          throw cannotUpdate(path, "enabled", o.enabled(), n.enabled());
        }
        yield new FieldType.ObjectField(
            n.dynamic() != null ? n.dynamic() : o.dynamic(),
            o.enabled(),
            mergeProps(o.properties(), n.properties(), path + "."));
      }
      case FieldType.Text t -> {
        FieldType.Text n = (FieldType.Text) neu;
        same(path, "analyzer", t.analyzer(), n.analyzer());
        same(path, "search_analyzer", t.searchAnalyzer(), n.searchAnalyzer());
        same(path, "similarity", t.similarity(), n.similarity());
        same(path, "index", t.indexed(), n.indexed());
        yield new FieldType.Text(
            t.analyzer(),
            t.searchAnalyzer(),
            t.similarity(),
            t.indexed(),
            mergeProps(t.fields(), n.fields(), path + "."));
      }
      case FieldType.Keyword k -> {
        FieldType.Keyword n = (FieldType.Keyword) neu;
        same(path, "index", k.indexed(), n.indexed());
        same(path, "doc_values", k.docValues(), n.docValues());
        yield n; // ignore_above may change, as in Elasticsearch
      }
      case FieldType.DenseVector v -> {
        FieldType.DenseVector n = (FieldType.DenseVector) neu;
        if (v.dims() != 0 && n.dims() != 0) {
          same(path, "dims", v.dims(), n.dims());
        }
        same(path, "similarity", v.similarity().esName(), n.similarity().esName());
        same(path, "index", v.indexed(), n.indexed());
        same(path, "index_options", v.indexOptions(), n.indexOptions());
        yield v.dims() != 0 ? v : n;
      }
      default -> {
        // Numbers, booleans and dates: every parameter is fixed once mapped.
        throw MappingException.conflict(
            "Mapper for [" + path + "] conflicts with existing mapper: " + old + " vs " + neu);
      }
    };
  }

  private static void same(String path, String param, Object a, Object b) {
    if (!Objects.equals(a, b)) {
      throw cannotUpdate(path, param, a, b);
    }
  }

  private static MappingException cannotUpdate(String path, String param, Object a, Object b) {
    return MappingException.conflict(
        "Mapper for ["
            + path
            + "] conflicts with existing mapper: Cannot update parameter ["
            + param
            + "] from ["
            + a
            + "] to ["
            + b
            + "]");
  }

  /**
   * This mapping with a leaf or object added at {@code path} ({@code a.b.c}), creating the objects
   * on the way as plain objects; for dynamic updates.
   */
  public Mapping with(String path, FieldType type) {
    String[] parts = path.split("\\.");
    return new Mapping(dynamic, dateDetection, put(properties, parts, 0, type));
  }

  private static Map<String, FieldType> put(
      Map<String, FieldType> props, String[] parts, int i, FieldType type) {
    Map<String, FieldType> out = new LinkedHashMap<>(props);
    if (i == parts.length - 1) {
      out.put(parts[i], type);
      return out;
    }
    FieldType at = props.get(parts[i]);
    FieldType.ObjectField o =
        at instanceof FieldType.ObjectField obj
            ? obj
            : new FieldType.ObjectField(null, true, Map.of());
    out.put(
        parts[i],
        new FieldType.ObjectField(
            o.dynamic(), o.enabled(), put(o.properties(), parts, i + 1, type)));
    return out;
  }
}
