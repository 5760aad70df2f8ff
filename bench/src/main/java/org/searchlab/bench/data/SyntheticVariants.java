package org.searchlab.bench.data;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;
import org.searchlab.core.Document;

/**
 * A corpus of any size derived from a real base corpus of {@code B} documents. Document {@code i}
 * is made from base document {@code b = i mod B} in round {@code r = i / B}:
 *
 * <ul>
 *   <li>round 0 is the base corpus itself, unchanged;
 *   <li>in round {@code r ≥ 1}: id {@code <base id>~r}; the base title; a description recombined
 *       from real text, the first half of the base description's sentences followed by the second
 *       half of a donor's (a random document of the same category); the base category; the base
 *       price times a factor uniform in [0.5, 2); the rating of the new id; and the vector {@code
 *       normalize(v_b + σ·g)} with {@code g} a standard Gaussian vector.
 * </ul>
 *
 * <p>The noise level {@code σ} is per component. For 384-d unit vectors the noise has norm about
 * {@code σ·√384}, so the default {@value #DEFAULT_NOISE} gives a variant a cosine of about 0.93
 * with its base: close to it, as near-duplicate products are, yet not a duplicate. A larger {@code
 * σ} spreads the variants out (0.05 ≈ cosine 0.72), a smaller one packs them into tighter clusters.
 *
 * <p>Every document depends only on {@code (seed, i)}, so the corpus is deterministic. Not
 * thread-safe: an iterator is used by one thread.
 */
public final class SyntheticVariants implements Iterator<Document> {
  public static final double DEFAULT_NOISE = 0.02;

  private final List<Document> base;
  private final int count;
  private final long seed;
  private final double noise;
  private final Map<String, int[]> byCategory = new HashMap<>();
  private int next;

  /**
   * @param base the base documents, with embeddings
   * @param count documents to produce, 1 or more
   * @param noise σ, 0 to 1; see the class javadoc
   */
  SyntheticVariants(List<Document> base, int count, long seed, double noise) {
    if (base.isEmpty()) {
      throw new IllegalArgumentException("the base corpus is empty");
    }
    this.base = base;
    this.count = count;
    this.seed = seed;
    this.noise = noise;
    Map<String, List<Integer>> lists = new HashMap<>();
    for (int i = 0; i < base.size(); i++) {
      lists.computeIfAbsent(String.valueOf(base.get(i).category()), c -> new ArrayList<>()).add(i);
    }
    lists.forEach((c, l) -> byCategory.put(c, l.stream().mapToInt(Integer::intValue).toArray()));
  }

  /**
   * The first {@code n} documents derived from {@code base}: the base itself, then variants of it
   * (see the class javadoc), as a list.
   */
  public static List<Document> first(List<Document> base, int n, long seed, double noise) {
    SyntheticVariants variants = new SyntheticVariants(base, n, seed, noise);
    List<Document> out = new ArrayList<>(n);
    while (variants.hasNext()) {
      out.add(variants.next());
    }
    return out;
  }

  @Override
  public boolean hasNext() {
    return next < count;
  }

  @Override
  public Document next() {
    if (next >= count) {
      throw new NoSuchElementException();
    }
    return variant(next++);
  }

  Document variant(int i) {
    int b = i % base.size();
    int round = i / base.size();
    Document d = base.get(b);
    if (round == 0) {
      return d;
    }
    SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + i);
    int[] peers = byCategory.get(String.valueOf(d.category()));
    Document donor = base.get(peers[random.nextInt(peers.length)]);
    String id = d.id() + "~" + round;
    float[] v = d.embedding().clone();
    for (int j = 0; j < v.length; j++) {
      v[j] += (float) (noise * random.nextGaussian());
    }
    return new Document(
        id,
        d.title(),
        recombine(d.description(), donor.description()),
        d.category(),
        (int) Math.round(d.price() * (0.5 + 1.5 * random.nextDouble())),
        DebianCatalogue.rating(id),
        VectorUtil.l2normalize(v));
  }

  static String recombine(String first, String second) {
    List<String> a = sentences(first);
    List<String> b = sentences(second);
    List<String> out = new ArrayList<>(a.subList(0, (a.size() + 1) / 2));
    out.addAll(b.subList(b.size() / 2, b.size()));
    return String.join(" ", out);
  }

  /** The sentences of {@code text}: split after . ! ? and at line breaks, blanks dropped. */
  static List<String> sentences(String text) {
    List<String> out = new ArrayList<>();
    for (String s : text.split("(?<=[.!?])\\s+|\\n")) {
      if (!s.isBlank()) {
        out.add(s.strip());
      }
    }
    return out;
  }
}
