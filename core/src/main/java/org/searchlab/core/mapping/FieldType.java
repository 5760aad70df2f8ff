package org.searchlab.core.mapping;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What one field of a mapping is: Elasticsearch's field types, with the options both stores honour.
 * A leaf type holds values; {@link ObjectField} holds other fields. Immutable and thread-safe.
 */
public sealed interface FieldType {
  /** The type's name in an Elasticsearch mapping ({@code text}, {@code long}, ...). */
  String esName();

  /** Whether the field is searchable (Elasticsearch's {@code index}). */
  boolean indexed();

  /**
   * Analysed full text, scored by BM25.
   *
   * @param analyzer the index-time analyzer, a name {@link
   *     org.searchlab.core.analysis.TextAnalysis#analyzer(String)} knows
   * @param searchAnalyzer the analyzer of query text for this field
   * @param similarity the BM25 parameters (a named similarity of the index settings, or {@code
   *     BM25})
   * @param fields multi-fields indexed from the same value ({@code title.keyword}), by sub-name
   */
  record Text(
      String analyzer,
      String searchAnalyzer,
      Bm25Similarity similarity,
      boolean indexed,
      Map<String, FieldType> fields)
      implements FieldType {
    public Text {
      Objects.requireNonNull(analyzer, "analyzer");
      Objects.requireNonNull(searchAnalyzer, "searchAnalyzer");
      Objects.requireNonNull(similarity, "similarity");
      fields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /** A text field with the project's analyzer, default BM25 and no multi-fields. */
    public static Text of(String analyzer) {
      return new Text(analyzer, analyzer, Bm25Similarity.DEFAULT, true, Map.of());
    }

    @Override
    public String esName() {
      return "text";
    }
  }

  /**
   * An exact-value string, matched whole ({@code term}, {@code terms}, {@code range} over its UTF-8
   * bytes) and scored by BM25 without norms when queried in a scoring context, as Lucene scores a
   * {@code TermQuery} on a keyword field.
   *
   * @param ignoreAbove strings longer than this many characters are kept in the source but not
   *     indexed ({@code ignore_above}); {@link Integer#MAX_VALUE} for no limit
   */
  record Keyword(int ignoreAbove, boolean indexed, boolean docValues) implements FieldType {
    /** Elasticsearch's dynamic {@code .keyword} multi-field: {@code ignore_above: 256}. */
    public static final Keyword DYNAMIC_SUBFIELD = new Keyword(256, true, true);

    public static final Keyword PLAIN = new Keyword(Integer.MAX_VALUE, true, true);

    @Override
    public String esName() {
      return "keyword";
    }
  }

  /**
   * A number of one of the {@link NumberType}s. With {@code indexed: false} it is still searchable
   * through its doc values, more slowly (Elasticsearch's {@code index: false}).
   */
  record Numeric(NumberType type, boolean indexed, boolean docValues) implements FieldType {
    public Numeric {
      Objects.requireNonNull(type, "type");
    }

    @Override
    public String esName() {
      return type.esName();
    }
  }

  /** {@code true} or {@code false}; held as 1 or 0. */
  record Bool(boolean indexed, boolean docValues) implements FieldType {
    @Override
    public String esName() {
      return "boolean";
    }
  }

  /**
   * A point in time, held as milliseconds since the epoch (UTC).
   *
   * @param format Elasticsearch's format expression; {@link Dates#DEFAULT_FORMAT} and its parts are
   *     what is supported
   */
  record Date(String format, boolean indexed, boolean docValues) implements FieldType {
    public Date {
      Objects.requireNonNull(format, "format");
    }

    @Override
    public String esName() {
      return "date";
    }
  }

  /**
   * A fixed-dimension float vector, searched by approximate kNN when {@code indexed} and scored
   * exactly by {@code script_score} either way.
   *
   * @param dims the dimension, 1 to {@value Mapping#MAX_DIMS}; 0 until the first document sets it
   *     (a mapping without {@code dims})
   * @param similarity how vectors compare, and their {@code _score}
   * @param indexOptions the graph's settings; ignored when not indexed
   * @throws MappingException an indexed {@code bbq_hnsw} field of fewer than {@value #BBQ_MIN_DIMS}
   *     dimensions, refused with Elasticsearch's message: 1-bit codes of so few components rank too
   *     coarsely to guide a graph search
   */
  record DenseVector(
      int dims, VectorSimilarity similarity, boolean indexed, IndexOptions indexOptions)
      implements FieldType {
    /** Elasticsearch's floor for {@code bbq_hnsw} ({@code DenseVectorFieldMapper.BBQ_MIN_DIMS}). */
    public static final int BBQ_MIN_DIMS = 64;

    public DenseVector {
      Objects.requireNonNull(similarity, "similarity");
      Objects.requireNonNull(indexOptions, "indexOptions");
      if (indexed && dims > 0 && dims < BBQ_MIN_DIMS && "bbq_hnsw".equals(indexOptions.type())) {
        throw MappingException.parsing(
            "bbq_hnsw does not support dimensions fewer than "
                + BBQ_MIN_DIMS
                + "; provided="
                + dims);
      }
    }

    @Override
    public String esName() {
      return "dense_vector";
    }

    /** This field with its dimension set. */
    public DenseVector withDims(int d) {
      return new DenseVector(d, similarity, indexed, indexOptions);
    }
  }

  /**
   * {@code index_options} of a {@code dense_vector}: the graph's type and parameters.
   *
   * @param type {@code hnsw} (float vectors), or {@code int8_hnsw}, {@code int4_hnsw} or {@code
   *     bbq_hnsw} (8-bit, 4-bit or 1-bit codes, floats kept for rescoring; {@link
   *     org.searchlab.core.VectorQuantization#fromEsIndexType}); null for the server's default
   * @param m the graph's links per node (Elasticsearch's {@code m}), 2 to 512; 0 for the store's
   *     default
   * @param efConstruction the build beam (Elasticsearch's {@code ef_construction}), 1 to 3200; 0
   *     for the store's default
   */
  record IndexOptions(String type, int m, int efConstruction) {
    public static final IndexOptions DEFAULT = new IndexOptions(null, 0, 0);
  }

  /**
   * An object: a container of fields. Its own {@code dynamic} (null: its parent's) decides what a
   * document's unknown fields inside it do.
   *
   * @param enabled false keeps the object in the source without parsing or indexing anything in it
   */
  record ObjectField(Dynamic dynamic, boolean enabled, Map<String, FieldType> properties)
      implements FieldType {
    public ObjectField {
      properties = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    @Override
    public String esName() {
      return "object";
    }

    @Override
    public boolean indexed() {
      return enabled;
    }

    /** This object with {@code name} set to {@code type}. */
    public ObjectField with(String name, FieldType type) {
      Map<String, FieldType> p = new LinkedHashMap<>(properties);
      p.put(name, type);
      return new ObjectField(dynamic, enabled, p);
    }
  }

  /**
   * BM25's parameters for a text field, and the name that chose them (Elasticsearch's built-in
   * {@code BM25}, or a similarity defined in the index settings, such as LangChain's {@code
   * custom_bm25}).
   *
   * @param k1 term-frequency saturation, ≥ 0
   * @param b length normalisation, in [0, 1]
   */
  record Bm25Similarity(String name, float k1, float b) {
    public static final Bm25Similarity DEFAULT =
        new Bm25Similarity(
            "BM25", org.searchlab.core.scoring.Bm25.K1, org.searchlab.core.scoring.Bm25.B);

    public Bm25Similarity {
      Objects.requireNonNull(name, "name");
      if (!(k1 >= 0) || !Float.isFinite(k1)) {
        throw MappingException.parsing(
            "similarity [" + name + "]: k1 " + k1 + " must be a finite number ≥ 0");
      }
      if (!(b >= 0 && b <= 1)) {
        throw MappingException.parsing(
            "similarity [" + name + "]: b " + b + " must be between 0 and 1");
      }
    }
  }
}
