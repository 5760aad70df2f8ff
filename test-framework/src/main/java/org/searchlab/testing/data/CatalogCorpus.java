package org.searchlab.testing.data;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.searchlab.core.Document;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.mapping.Dates;
import org.searchlab.core.mapping.Dynamic;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.NumberType;
import org.searchlab.core.mapping.VectorSimilarity;

/**
 * A seeded corpus of a second mapping, unlike the benchmark's in every way the contract allows:
 * other field names, two text fields with different analyzers (one with a keyword multi-field),
 * keyword arrays, an integer, a double, a float, a date (ISO strings and epoch milliseconds), a
 * boolean, a strict object with a keyword, a long and a text field, two vector fields ({@code
 * cosine} over vectors of any length and {@code l2_norm}), and fields the mapping does not define,
 * which documents bring and dynamic mapping adds ({@code label}, {@code extra.note}, {@code
 * extra.score}). Words come from a {@link SyntheticCorpus}'s Zipfian vocabulary and vectors from
 * its clusters, so text queries have shared terms and nearest neighbours have structure. Immutable
 * and thread-safe.
 */
public final class CatalogCorpus {
  public static final int IMG_DIMS = 16;
  public static final int TXT_DIMS = 12;
  public static final String[] BRANDS = {
    "acme", "globex", "initech", "umbrella", "hooli", "Vandelay"
  };
  public static final String[] TAGS = {"red", "green", "blue", "sale", "new", "eco", "Ünïcode"};
  public static final String[] ORIGINS = {"de", "fr", "jp", "us"};

  /** The first date generated documents carry: 2020-01-01T00:00:00Z. */
  public static final long EPOCH_2020 = 1_577_836_800_000L;

  private final long seed;
  private final SyntheticCorpus words;
  private final SyntheticCorpus img;
  private final SyntheticCorpus txt;

  public CatalogCorpus(long seed) {
    this.seed = seed;
    this.words =
        new SyntheticCorpus(seed, 2, SyntheticCorpus.Params.builder().vocabulary(1500).build());
    this.img = new SyntheticCorpus(seed + 1, IMG_DIMS);
    this.txt = new SyntheticCorpus(seed + 2, TXT_DIMS);
  }

  /** The mapping, before any document adds its dynamic fields. */
  public static Mapping mapping() {
    Map<String, FieldType> p = new LinkedHashMap<>();
    p.put("name", FieldType.Text.of(TextAnalysis.STANDARD));
    p.put(
        "body",
        new FieldType.Text(
            TextAnalysis.NAME,
            TextAnalysis.NAME,
            FieldType.Bm25Similarity.DEFAULT,
            true,
            Map.of("raw", new FieldType.Keyword(64, true, true))));
    p.put("brand", FieldType.Keyword.PLAIN);
    p.put("tags", FieldType.Keyword.PLAIN);
    p.put("stock", new FieldType.Numeric(NumberType.INTEGER, true, true));
    p.put("weight", new FieldType.Numeric(NumberType.DOUBLE, true, true));
    p.put("rating", new FieldType.Numeric(NumberType.FLOAT, false, true));
    p.put("released", new FieldType.Date(Dates.DEFAULT_FORMAT, true, true));
    p.put("available", new FieldType.Bool(true, true));
    Map<String, FieldType> meta = new LinkedHashMap<>();
    meta.put("origin", FieldType.Keyword.PLAIN);
    meta.put("rank", new FieldType.Numeric(NumberType.LONG, true, true));
    meta.put("notes", FieldType.Text.of(TextAnalysis.NAME));
    p.put("meta", new FieldType.ObjectField(Dynamic.STRICT, true, meta));
    p.put(
        "img",
        new FieldType.DenseVector(
            IMG_DIMS, VectorSimilarity.COSINE, true, new FieldType.IndexOptions("hnsw", 16, 100)));
    p.put(
        "txt",
        new FieldType.DenseVector(
            TXT_DIMS, VectorSimilarity.L2_NORM, true, FieldType.IndexOptions.DEFAULT));
    return new Mapping(Dynamic.TRUE, true, p);
  }

  /** The settings the suite opens the index with: one shard, no replica. */
  public static IndexSettings settings() {
    return IndexSettings.parse(
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
            .objectNode()
            .put("number_of_shards", 1)
            .put("number_of_replicas", 0));
  }

  /** Document {@code i}, with id {@code "item-" + i}. */
  public Document document(int i) {
    SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + i);
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("name", words.randomQueryText(r, 2 + r.nextInt(5)));
    s.put("body", words.randomQueryText(r, 5 + r.nextInt(20)));
    s.put("brand", BRANDS[Math.min(BRANDS.length - 1, (int) Math.abs(r.nextGaussian() * 2))]);
    int nTags = r.nextInt(4);
    if (nTags > 0) {
      List<Object> tags = new ArrayList<>();
      for (int t = 0; t < nTags; t++) {
        tags.add(TAGS[r.nextInt(TAGS.length)]);
      }
      s.put("tags", tags);
    }
    s.put("stock", (long) r.nextInt(500) - 20);
    s.put("weight", Math.round(r.nextDouble() * 10_000) / 100.0);
    if (r.nextInt(10) > 0) {
      s.put("rating", Math.round(r.nextDouble() * 50) / 10.0);
    }
    long when = EPOCH_2020 + r.nextLong(5L * 365 * 86_400_000L);
    s.put("released", r.nextBoolean() ? Dates.format(when) : (Object) when);
    s.put("available", r.nextInt(3) > 0);
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("origin", ORIGINS[r.nextInt(ORIGINS.length)]);
    meta.put("rank", r.nextLong(1_000_000L));
    if (r.nextBoolean()) {
      meta.put("notes", words.randomQueryText(r, 3 + r.nextInt(6)));
    }
    s.put("meta", meta);
    if (r.nextInt(20) > 0) {
      s.put("img", scaled(img.document(i).embedding(), 0.25 + r.nextDouble() * 4));
    }
    if (r.nextInt(20) > 0) {
      s.put("txt", scaled(txt.document(i).embedding(), 1 + r.nextDouble() * 3));
    }
    // Fields the mapping does not define: dynamic mapping adds them.
    if (r.nextInt(3) == 0) {
      s.put("label", words.randomQueryText(r, 1));
    }
    if (r.nextInt(2) == 0) {
      Map<String, Object> extra = new LinkedHashMap<>();
      extra.put("note", words.randomQueryText(r, 2 + r.nextInt(3)));
      extra.put("score", Math.round(r.nextDouble() * 1000) / 10.0 + 0.5);
      s.put("extra", extra);
    }
    return new Document("item-" + i, s);
  }

  private static float[] scaled(float[] v, double by) {
    float[] out = new float[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = (float) (v[i] * by);
    }
    return out;
  }

  /** The first {@code n} documents. */
  public List<Document> documents(int n) {
    List<Document> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(document(i));
    }
    return out;
  }

  /** Query text of {@code n} words from the corpus's vocabulary. */
  public String text(SplittableRandom r, int n) {
    return words.randomQueryText(r, n);
  }

  /** A query vector for {@code img}: near a cluster, any length. */
  public float[] imgQuery(SplittableRandom r) {
    return scaled(img.randomQueryVector(r), 0.5 + r.nextDouble() * 2);
  }

  /** A query vector for {@code txt}. */
  public float[] txtQuery(SplittableRandom r) {
    return scaled(txt.randomQueryVector(r), 1 + r.nextDouble() * 3);
  }
}
