package org.searchlab.bench.data;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.searchlab.core.Document;

/**
 * A corpus of any size grown from a real base corpus of {@code B} embedded documents by
 * "neighbourhood mixes": every generated document mixes a real document with some of its nearest
 * real neighbours, in its vector and in its text, so that a million documents fill the base's
 * neighbourhoods rather than stacking copies on its points (design note of issue 68, §3.3).
 *
 * <ul>
 *   <li>Documents {@code 0 … B−1} are the base, unchanged and in order.
 *   <li>Document {@code B + j} is child {@code r = j / B + 1} of its primary parent {@code a =
 *       π_r(j mod B)}, with {@code π_r} a seeded permutation per round, so any prefix covers the
 *       parents evenly and every base document has one child per round.
 *   <li>Its other {@link Params#parents() m − 1} parents are distinct entries of {@code a}'s {@link
 *       Params#neighbours() K} nearest base documents ({@link BaseNeighbours}), taken in a seeded
 *       order of {@code a}'s list, so successive children of {@code a} use disjoint neighbours
 *       until the list is used up.
 *   <li>Weights {@code w ~ Dirichlet(α, …, α)}, drawn again until {@code w_a ≥ 1/m}, so {@code a}
 *       stays the heaviest parent or near it; the vector is {@code normalize(Σ w_j·v_j)}, a unit
 *       vector as the corpus's {@code dot_product} similarity requires. all-MiniLM-L6-v2 mean-pools
 *       its token vectors, so the embedding of a text made of the parents' pieces is about the
 *       weighted mean of their embeddings.
 *   <li>Text, from the parents' text only: a title of {@code a}'s length, its first {@code
 *       ⌈w_a·|t_a|⌉} words from {@code a} and the rest from the end of the heaviest other parent's
 *       title; a description of as many sentences as {@code a}'s (at least one per parent that has
 *       any), one from each parent first ({@code a}'s first), then interleaved in proportion to
 *       {@code w} (smooth weighted round robin). So that the text carries what the vector says, the
 *       first sentence of every parent lies within the model's window of {@value #WINDOW} word
 *       pieces: the first round's sentences are cut, at word boundaries, to shares of what the
 *       title leaves of the window in proportion to the weights, {@value #MIN_SHARE} pieces at
 *       least ({@link #pieces} estimates word pieces without the model's tokenizer, erring long).
 *       Shares by weight rather than equal ones raised the median cosine between a generated
 *       document's true embedding and its interpolated vector from 0.883 to 0.889 (docs/scale.md).
 *   <li>Id {@code <a's id>~m<r>}, {@code a}'s category, {@code a}'s price times a factor uniform in
 *       [0.5, 2), and the rating of the new id.
 * </ul>
 *
 * <p>Document {@code i} depends only on the seed, the base, the neighbours, the parameters and
 * {@code i}: the corpus is deterministic and the first {@code n} documents of a larger corpus are
 * the corpus of {@code n}. Generation streams: nothing per generated document is kept. Not
 * thread-safe: an iterator is used by one thread.
 */
final class NeighbourMixes extends GrownCorpus {
  /** The model's window in word pieces, {@code [CLS]} and {@code [SEP]} included. */
  static final int WINDOW = 128;

  /** The fewest window pieces a parent's first sentence is cut to. */
  static final int MIN_SHARE = 4;

  /**
   * The generator's settings.
   *
   * @param parents m, the documents mixed into one, 2 to {@code neighbours + 1}; more fills a
   *     neighbourhood in more directions, fewer keeps children on the segments between pairs
   * @param neighbours K, how many of the primary parent's nearest base documents the others are
   *     drawn from, ≥ 1; larger reaches further from the primary parent
   * @param alpha the Dirichlet concentration, &gt; 0; small puts children near a vertex (one parent
   *     dominates), large near the parents' centre
   */
  record Params(int parents, int neighbours, double alpha) implements Grower {
    /**
     * The setting the held-out scale-up test chose: the smallest worst KS distance (0.315) when
     * 16,000 real documents are grown to 63,696, over the design's grid (m = 3, K ∈ {10, 20, 50}, α
     * ∈ {0.5, 1, 2}; best 0.412) and a wider one (m ∈ {3, 5, 8}, K ∈ {50, 100}, α ∈ {2, 5});
     * docs/scale.md has the tables.
     */
    static final Params DEFAULT = new Params(5, 100, 2.0);

    Params {
      if (neighbours < 1 || neighbours > 1000) {
        throw new IllegalArgumentException("neighbours " + neighbours + " outside [1, 1000]");
      }
      if (parents < 2 || parents > neighbours + 1) {
        throw new IllegalArgumentException(
            "parents " + parents + " outside [2, neighbours + 1 = " + (neighbours + 1) + "]");
      }
      if (!(alpha > 0 && alpha <= 100)) {
        throw new IllegalArgumentException("alpha " + alpha + " outside (0, 100]");
      }
    }

    /** Pair mixes ({@code m = 2}) are the test's control: they fill segments, not volumes. */
    @Override
    public boolean control() {
      return parents == 2;
    }

    @Override
    public NeighbourMixes open(List<Document> base, int[][] neighbours, int count, long seed) {
      return new NeighbourMixes(base, neighbours, this, count, seed);
    }

    @Override
    public String toString() {
      return (parents == 2 ? "pair mixes (control), " : "mixes ")
          + "m="
          + parents
          + " K="
          + neighbours
          + " α="
          + alpha;
    }
  }

  private final Params params;

  /**
   * @param base the base documents, with unit embeddings
   * @param neighbours per base document, at least {@code params.neighbours()} nearest other base
   *     documents, best first ({@link BaseNeighbours})
   * @param count documents to produce, base included
   */
  NeighbourMixes(List<Document> base, int[][] neighbours, Params params, int count, long seed) {
    super(base, neighbours, params.neighbours(), count, seed);
    this.params = params;
  }

  /** The ordinals of document {@code i}'s parents, primary first (one for a base document). */
  int[] parents(int i) {
    int b = base.size();
    if (i < b) {
      return new int[] {i};
    }
    int child = child(i);
    int a = primary(i);
    int m = params.parents();
    int k = params.neighbours();
    int[] out = new int[m];
    out[0] = a;
    int filled = 1;
    // Slots of a's neighbour list in a seeded order per pass over it, continued from child to
    // child.
    for (long slot = (long) (child - 1) * (m - 1); filled < m; slot++) {
      int[] order = shuffled(k, mix(seed ^ 0x632BE59BD9B4E019L, a, slot / k));
      int candidate = neighbours[a][order[(int) (slot % k)]];
      boolean seen = false;
      for (int f = 0; f < filled; f++) {
        seen |= out[f] == candidate;
      }
      if (!seen) {
        out[filled++] = candidate;
      }
    }
    return out;
  }

  /** The weights of document {@code i}'s parents, in the order of {@link #parents}. */
  double[] weights(int i) {
    if (i < base.size()) {
      return new double[] {1};
    }
    return dirichlet(new SplittableRandom(mix(seed, i, 1)));
  }

  /** Document {@code i}; see the class javadoc. */
  @Override
  Document document(int i) {
    if (i < base.size()) {
      return base.get(i);
    }
    int[] p = parents(i);
    double[] w = weights(i);
    int child = child(i);
    SplittableRandom random = new SplittableRandom(mix(seed, i, 2));
    Document a = base.get(p[0]);
    float[] v = new float[a.embedding().length];
    for (int j = 0; j < p.length; j++) {
      float[] e = base.get(p[j]).embedding();
      for (int x = 0; x < v.length; x++) {
        v[x] += (float) (w[j] * e[x]);
      }
    }
    normalize(v);
    int heaviest = 1;
    for (int j = 2; j < p.length; j++) {
      heaviest = w[j] > w[heaviest] ? j : heaviest;
    }
    String title = title(a.title(), base.get(p[heaviest]).title(), w[0]);
    List<List<String>> sentences = new ArrayList<>();
    for (int q : p) {
      sentences.add(SyntheticVariants.sentences(base.get(q).description()));
    }
    String id = a.id() + "~m" + child;
    return new Document(
        id,
        title,
        description(sentences, w, title),
        a.category(),
        (int) Math.round(a.price() * (0.5 + 1.5 * random.nextDouble())),
        DebianCatalogue.rating(id),
        v);
  }

  /**
   * A title of {@code |a|} words: {@code a}'s first ⌈w_a·|a|⌉, then the last words of {@code b}
   * (more of {@code a}'s when {@code b} is too short).
   */
  static String title(String a, String b, double wa) {
    String[] ta = a.strip().split("\\s+");
    String[] tb = b.strip().split("\\s+");
    int fromB =
        Math.min(tb.length, ta.length - (int) Math.min(ta.length, Math.ceil(wa * ta.length)));
    int fromA = ta.length - fromB;
    List<String> words = new ArrayList<>(Arrays.asList(ta).subList(0, fromA));
    words.addAll(Arrays.asList(tb).subList(tb.length - fromB, tb.length));
    return String.join(" ", words);
  }

  /**
   * The description: one sentence of each parent that has any (the primary's first, then by
   * weight), cut to share the window, then the rest interleaved by weight, up to the primary's
   * sentence count (at least one per parent).
   */
  static String description(List<List<String>> sentences, double[] w, String title) {
    int m = sentences.size();
    List<Integer> first = new ArrayList<>();
    for (int j = 0; j < m; j++) {
      if (!sentences.get(j).isEmpty()) {
        first.add(j);
      }
    }
    if (first.isEmpty()) {
      return "";
    }
    first.sort((x, y) -> x == 0 ? -1 : y == 0 ? 1 : Double.compare(w[y], w[x]));
    int total = Math.max(sentences.get(0).size(), first.size());
    int budget = WINDOW - 2 - pieces("Item: Title: " + title + " Description:");
    // The window is shared in proportion to the weights, as the vector is, with a floor of
    // MIN_SHARE pieces each so that every parent is there.
    double weightIn = 0;
    for (int j : first) {
      weightIn += w[j];
    }
    int spare = Math.max(0, budget - MIN_SHARE * first.size());
    List<String> out = new ArrayList<>();
    int[] used = new int[m];
    for (int j : first) {
      int share = MIN_SHARE + (int) Math.floor(spare * w[j] / weightIn);
      out.add(cut(sentences.get(j).get(0), share));
      used[j] = 1;
    }
    double[] current = new double[m];
    while (out.size() < total) {
      int pick = -1;
      double sum = 0;
      for (int j = 0; j < m; j++) {
        if (used[j] < sentences.get(j).size()) {
          current[j] += w[j];
          sum += w[j];
          pick = pick < 0 || current[j] > current[pick] ? j : pick;
        }
      }
      if (pick < 0) {
        break;
      }
      current[pick] -= sum;
      out.add(sentences.get(pick).get(used[pick]++));
    }
    return String.join(" ", out);
  }

  /** The longest word prefix of {@code sentence} of at most {@code maxPieces} (at least a word). */
  static String cut(String sentence, int maxPieces) {
    if (pieces(sentence) <= maxPieces) {
      return sentence;
    }
    String[] words = sentence.split("\\s+");
    StringBuilder b = new StringBuilder(words[0]);
    int used = pieces(words[0]);
    for (int i = 1; i < words.length; i++) {
      int p = pieces(words[i]);
      if (used + p > maxPieces) {
        break;
      }
      b.append(' ').append(words[i]);
      used += p;
    }
    return b.toString();
  }

  /**
   * An estimate, erring long, of the uncased WordPiece tokens of {@code text}: like BERT's basic
   * tokenizer, every punctuation or symbol character is one token; a run of letters is one piece up
   * to 6 letters and one per 5 letters beyond that (common words are one piece, rare and technical
   * ones split); a run with digits counts one per 3 characters.
   */
  static int pieces(String text) {
    int n = 0;
    int run = 0;
    boolean digits = false;
    for (int i = 0; i <= text.length(); i++) {
      char c = i < text.length() ? text.charAt(i) : ' ';
      if (Character.isLetterOrDigit(c)) {
        run++;
        digits |= Character.isDigit(c);
        continue;
      }
      if (run > 0) {
        n += digits ? (run + 2) / 3 : run <= 6 ? 1 : (run + 4) / 5;
        run = 0;
        digits = false;
      }
      if (!Character.isWhitespace(c)) {
        n++;
      }
    }
    return n;
  }

  /** Dirichlet(α) weights, drawn again until the first is at least 1/m. */
  private double[] dirichlet(SplittableRandom r) {
    int m = params.parents();
    double[] w = new double[m];
    while (true) {
      double sum = 0;
      for (int j = 0; j < m; j++) {
        w[j] = gamma(params.alpha(), r);
        sum += w[j];
      }
      if (sum > 0 && w[0] / sum >= 1.0 / m) {
        for (int j = 0; j < m; j++) {
          w[j] /= sum;
        }
        return w;
      }
    }
  }

  /** Gamma(shape, 1) by Marsaglia and Tsang (2000), boosted by U^(1/shape) for shape below 1. */
  static double gamma(double shape, SplittableRandom r) {
    if (shape < 1) {
      return gamma(shape + 1, r) * Math.pow(r.nextDouble(), 1 / shape);
    }
    double d = shape - 1.0 / 3;
    double c = 1 / Math.sqrt(9 * d);
    while (true) {
      double x = r.nextGaussian();
      double v = 1 + c * x;
      if (v <= 0) {
        continue;
      }
      v = v * v * v;
      double u = r.nextDouble();
      if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) {
        return d * v;
      }
    }
  }
}
