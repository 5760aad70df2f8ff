package org.searchlab.testing.data;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.SearchRequest;

/**
 * A deterministic product-like corpus: document {@code i} depends only on the seed, the parameters
 * and {@code i}, so corpora of millions can be generated in parallel or in pieces, and any document
 * regenerated alone.
 *
 * <ul>
 *   <li>Text: titles of 3–12 and descriptions of 8–60 words drawn from a vocabulary of {@link
 *       Params#vocabulary()} pseudo-words with Zipf exponent {@link Params#zipfExponent()}.
 *   <li>Categories: {@link Params#categories()} names with Zipf(1.1) sizes, like a catalogue whose
 *       largest section dwarfs the smallest.
 *   <li>Vectors: {@link Params#clusters()} random unit centroids; each category prefers a few
 *       clusters; a document's vector is normalize(centroid + N(0, σ²)) with σ = {@link
 *       Params#noise()} per dimension scaled by 1/√dim.
 *   <li>A fraction {@link Params#duplicateRate()} of documents copy the text and vector of an
 *       earlier document, as about 4–5% of a real catalogue's entries share their text.
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class SyntheticCorpus {
  /**
   * Generator parameters. Immutable; build one with {@link #builder()} (which starts from {@link
   * #DEFAULT}) or change one with {@link #toBuilder()}.
   *
   * @param vocabulary distinct words, ≥ 10; larger gives rarer terms
   * @param zipfExponent word-frequency skew, in (0, 3]; 1.0 is natural text
   * @param categories distinct categories, 1 to 10,000 (the benchmark has 34)
   * @param clusters vector centroids, ≥ 1; fewer means denser neighbourhoods
   * @param noise per-dimension spread around a centroid, in (0, 10]; larger is more uniform
   * @param duplicateRate fraction of documents that duplicate an earlier one, in [0, 0.5]
   */
  public record Params(
      int vocabulary,
      double zipfExponent,
      int categories,
      int clusters,
      double noise,
      double duplicateRate) {
    public static final Params DEFAULT = new Params(20_000, 1.0, 34, 64, 1.0, 0.0);

    public Params {
      if (vocabulary < 10) throw new IllegalArgumentException("vocabulary " + vocabulary + " < 10");
      if (!(zipfExponent > 0 && zipfExponent <= 3))
        throw new IllegalArgumentException("zipfExponent " + zipfExponent + " outside (0, 3]");
      if (categories < 1 || categories > 10_000)
        throw new IllegalArgumentException("categories " + categories + " outside [1, 10000]");
      if (clusters < 1) throw new IllegalArgumentException("clusters " + clusters + " < 1");
      if (!(noise > 0 && noise <= 10))
        throw new IllegalArgumentException("noise " + noise + " outside (0, 10]");
      if (!(duplicateRate >= 0 && duplicateRate <= 0.5))
        throw new IllegalArgumentException("duplicateRate " + duplicateRate + " outside [0, 0.5]");
    }

    /** A builder starting from {@link #DEFAULT}. */
    public static Builder builder() {
      return DEFAULT.toBuilder();
    }

    /** A builder preloaded with this parameter set's values. */
    public Builder toBuilder() {
      Builder b = new Builder();
      b.vocabulary = vocabulary;
      b.zipfExponent = zipfExponent;
      b.categories = categories;
      b.clusters = clusters;
      b.noise = noise;
      b.duplicateRate = duplicateRate;
      return b;
    }

    /**
     * Builds a {@link Params}, one setter per component; {@link #build()} runs the record's
     * validation. Not thread-safe.
     */
    public static final class Builder {
      private int vocabulary;
      private double zipfExponent;
      private int categories;
      private int clusters;
      private double noise;
      private double duplicateRate;

      private Builder() {}

      public Builder vocabulary(int v) {
        vocabulary = v;
        return this;
      }

      public Builder zipfExponent(double v) {
        zipfExponent = v;
        return this;
      }

      public Builder categories(int v) {
        categories = v;
        return this;
      }

      public Builder clusters(int v) {
        clusters = v;
        return this;
      }

      public Builder noise(double v) {
        noise = v;
        return this;
      }

      public Builder duplicateRate(double v) {
        duplicateRate = v;
        return this;
      }

      public Params build() {
        return new Params(vocabulary, zipfExponent, categories, clusters, noise, duplicateRate);
      }
    }
  }

  private static final String[] SYLLABLES = {
    "ka", "lo", "mi", "ra", "ten", "vo", "su", "bel", "dor", "fi", "gan", "hu", "jis", "ke", "lum",
    "nor", "pa", "qui", "ros", "sta", "tri", "ul", "ven", "wex", "yor", "zen", "ab", "ec", "id",
        "om"
  };

  private final long seed;
  private final int dimension;
  private final Params params;
  private final String[] words;
  private final double[] wordCdf;
  private final String[] categoryNames;
  private final double[] categoryCdf;
  private final float[][] centroids;
  private final int[][] categoryClusters;

  public SyntheticCorpus(long seed, int dimension) {
    this(seed, dimension, Params.DEFAULT);
  }

  public SyntheticCorpus(long seed, int dimension, Params params) {
    if (dimension < 2) {
      throw new IllegalArgumentException("dimension " + dimension + " < 2");
    }
    this.seed = seed;
    this.dimension = dimension;
    this.params = params;
    SplittableRandom r = new SplittableRandom(seed);
    words = new String[params.vocabulary()];
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (int i = 0; i < words.length; i++) {
      String w;
      do {
        StringBuilder sb = new StringBuilder();
        int syl = 1 + r.nextInt(3) + (i > 2000 ? 1 : 0);
        for (int s = 0; s < syl; s++) {
          sb.append(SYLLABLES[r.nextInt(SYLLABLES.length)]);
        }
        w = sb.toString();
      } while (!seen.add(w));
      words[i] = w;
    }
    wordCdf = zipfCdf(words.length, params.zipfExponent());
    categoryNames = new String[params.categories()];
    for (int i = 0; i < categoryNames.length; i++) {
      categoryNames[i] = "cat-" + i;
    }
    categoryCdf = zipfCdf(categoryNames.length, 1.1);
    centroids = new float[params.clusters()][];
    for (int c = 0; c < centroids.length; c++) {
      centroids[c] = randomUnit(r, dimension);
    }
    categoryClusters = new int[categoryNames.length][];
    for (int c = 0; c < categoryNames.length; c++) {
      int k = 1 + r.nextInt(Math.min(3, centroids.length));
      categoryClusters[c] = new int[k];
      for (int j = 0; j < k; j++) {
        categoryClusters[c][j] = r.nextInt(centroids.length);
      }
    }
  }

  public long seed() {
    return seed;
  }

  public int dimension() {
    return dimension;
  }

  public Params params() {
    return params;
  }

  /** The category names, most frequent first. */
  public List<String> categories() {
    return List.of(categoryNames);
  }

  /** Document {@code i}, with id {@code "doc-" + i}. */
  public Document document(int i) {
    return generate("doc-" + i, new SplittableRandom(mix(contentSeed(originalOf(i)))));
  }

  /**
   * The document whose text and vector document {@code i} shows: itself, or for a duplicate the
   * original it copies (never another duplicate).
   */
  public int originalOf(int i) {
    int j = i;
    while (j > 0 && params.duplicateRate() > 0) {
      SplittableRandom r = new SplittableRandom(mix(seed * 0x9E3779B97F4A7C15L + j));
      if (r.nextDouble() >= params.duplicateRate()) {
        break;
      }
      j = r.nextInt(j);
    }
    return j;
  }

  private long contentSeed(int i) {
    return (seed ^ 0x5DEECE66DL) * 0xC2B2AE3D27D4EB4FL + i;
  }

  /** The first {@code n} documents. */
  public List<Document> documents(int n) {
    List<Document> docs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      docs.add(document(i));
    }
    return docs;
  }

  /**
   * A benchmark-style query for document {@code i}: text = the first 8 words of its title, vector =
   * its own vector, filter = its category (when {@code filtered}).
   */
  public SearchRequest.Builder query(int i, boolean filtered) {
    Document d = document(i);
    String[] t = d.title().split(" ");
    String text = String.join(" ", java.util.Arrays.copyOf(t, Math.min(8, t.length)));
    SearchRequest.Builder b = SearchRequest.builder().text(text).vector(d.embedding());
    if (filtered) {
      b.filter(Filter.category(d.category()));
    }
    return b;
  }

  /** A random unit vector near the corpus's clusters, for queries that are not documents. */
  public float[] randomQueryVector(SplittableRandom r) {
    return noisy(centroids[r.nextInt(centroids.length)], r);
  }

  /** Random query text of {@code words} Zipf-drawn words. */
  public String randomQueryText(SplittableRandom r, int nWords) {
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < nWords; k++) {
      if (k > 0) sb.append(' ');
      sb.append(word(r));
    }
    return sb.toString();
  }

  private Document generate(String id, SplittableRandom r) {
    int cat = draw(categoryCdf, r);
    String title = text(r, 3 + r.nextInt(10));
    String description = text(r, 8 + r.nextInt(53));
    int[] prefs = categoryClusters[cat];
    float[] v = noisy(centroids[prefs[r.nextInt(prefs.length)]], r);
    int price = 100 + (int) Math.min(1_000_000, Math.exp(3 + 2.5 * r.nextDouble()) * 10);
    float rating = Math.round((1 + 4 * r.nextDouble()) * 10) / 10f;
    return new Document(id, title, description, categoryNames[cat], price, rating, v);
  }

  private String text(SplittableRandom r, int n) {
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < n; k++) {
      if (k > 0) sb.append(' ');
      String w = word(r);
      sb.append(k == 0 ? Character.toUpperCase(w.charAt(0)) + w.substring(1) : w);
    }
    return sb.toString();
  }

  private String word(SplittableRandom r) {
    return words[draw(wordCdf, r)];
  }

  private float[] noisy(float[] centroid, SplittableRandom r) {
    float[] v = new float[dimension];
    double sigma = params.noise() / Math.sqrt(dimension);
    for (int d = 0; d < dimension; d++) {
      v[d] = (float) (centroid[d] + sigma * gaussian(r));
    }
    return normalize(v);
  }

  private static float[] randomUnit(SplittableRandom r, int dim) {
    float[] v = new float[dim];
    for (int d = 0; d < dim; d++) {
      v[d] = (float) gaussian(r);
    }
    return normalize(v);
  }

  /** Scales {@code v} to unit length in place and returns it. */
  public static float[] normalize(float[] v) {
    double s = 0;
    for (float x : v) {
      s += (double) x * x;
    }
    float inv = (float) (1 / Math.sqrt(s));
    for (int d = 0; d < v.length; d++) {
      v[d] *= inv;
    }
    return v;
  }

  private static double gaussian(SplittableRandom r) {
    // Box–Muller; SplittableRandom has no nextGaussian of its own before JDK 17's RandomGenerator.
    double u1 = 1 - r.nextDouble();
    double u2 = r.nextDouble();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  private static double[] zipfCdf(int n, double s) {
    double[] cdf = new double[n];
    double sum = 0;
    for (int k = 0; k < n; k++) {
      sum += 1 / Math.pow(k + 1, s);
      cdf[k] = sum;
    }
    for (int k = 0; k < n; k++) {
      cdf[k] /= sum;
    }
    return cdf;
  }

  private static int draw(double[] cdf, SplittableRandom r) {
    int i = java.util.Arrays.binarySearch(cdf, r.nextDouble());
    return Math.min(i >= 0 ? i : -i - 1, cdf.length - 1);
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
