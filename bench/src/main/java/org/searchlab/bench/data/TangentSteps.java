package org.searchlab.bench.data;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.searchlab.core.Document;

/**
 * A corpus of any size grown from a real base corpus by "tangent steps": every generated document
 * is a step away from a real document, in a direction drawn from the span of its nearest real
 * neighbours and over a distance scaled to how far its nearest neighbour is, so that a million
 * documents spread through the base's neighbourhoods, outward as well as between points, at the
 * local density (issue 68). {@link NeighbourMixes}, whose children stay inside the hull of their
 * parents, crowded the middle of every neighbourhood (docs/scale.md).
 *
 * <ul>
 *   <li>Documents {@code 0 … B−1} are the base, unchanged and in order.
 *   <li>Document {@code B + j} is child {@code r = j / B + 1} of its primary parent {@code a =
 *       π_r(j mod B)}, with {@code π_r} a seeded permutation per round (as {@link NeighbourMixes}
 *       orders them), so any prefix covers the parents evenly and every base document has one child
 *       per round.
 *   <li>Direction: {@code g = Σ z_k (e_k − e_a)} over {@code a}'s {@link Params#neighbours() K}
 *       nearest base documents {@code e_k}, {@code z_k ~ N(0, 1)}, made orthogonal to {@code e_a}
 *       and of unit length: a Gaussian direction within the local span of the data, which has the
 *       neighbourhood's shape and steps outward as often as inward.
 *   <li>Distance: {@code L = c · r^γ · d₁(a) · exp(j·N(0, 1))}, with {@code d₁(a)} the L2 distance
 *       from {@code a} to its nearest base neighbour that is not an exact copy of it (a twin; when
 *       all K are twins, direction and distance come from its K nearest distinct documents), {@link
 *       Params#scale() c}, {@link Params#growth() γ} and {@link Params#jitter() j} the settings.
 *       Scaled to {@code d₁(a)}, the steps follow the local density: short in dense regions, long
 *       in sparse ones. {@code r^γ} lengthens later rounds' steps, as a neighbourhood that already
 *       holds the earlier children must be filled further out; the log-normal jitter spreads the
 *       distances as real nearest-neighbour distances spread.
 *   <li>Vector: {@code normalize(e_a + L·g)}, a unit vector as the corpus's {@code dot_product}
 *       similarity requires.
 *   <li>Text, from parents only, as {@link NeighbourMixes} writes it: the primary and the {@link
 *       Params#textParents()} neighbours the step goes furthest towards, weighted by how far along
 *       the way to each it goes ({@code L·cos(g, e_k − e_a) / |e_k − e_a|}, at most 1), the primary
 *       by what is left (at least {@code 1/(textParents + 1)}).
 *   <li>Id {@code <a's id>~s<r>}, {@code a}'s category, {@code a}'s price times a factor uniform in
 *       [0.5, 2), and the rating of the new id.
 * </ul>
 *
 * <p>Document {@code i} depends only on the seed, the base, the neighbours, the settings and {@code
 * i}: the first {@code n} documents of a larger corpus are the corpus of {@code n}. Generation
 * streams. Not thread-safe: a corpus is used by one thread.
 */
final class TangentSteps extends GrownCorpus {
  /**
   * The generator's settings.
   *
   * @param neighbours K, the nearest base documents whose span the direction is drawn from, ≥ 1
   * @param scale c, the median step in units of the primary's nearest-neighbour distance in the
   *     first round, &gt; 0
   * @param growth γ, the exponent of the round in the step's length, ≥ 0
   * @param jitter j, the standard deviation of the step's log-length, ≥ 0
   * @param textParents how many neighbours besides the primary give the text words, ≥ 1
   */
  record Params(int neighbours, double scale, double growth, double jitter, int textParents)
      implements Grower {
    /**
     * The setting the held-out scale-up test chose: the smallest worst KS distance over growths of
     * ×1.6, ×4 and ×16 (docs/scale.md has the tables).
     */
    static final Params DEFAULT = new Params(50, 1.6, 0.2, 0.7, 4);

    Params {
      if (neighbours < 1 || neighbours > 1000) {
        throw new IllegalArgumentException("neighbours " + neighbours + " outside [1, 1000]");
      }
      if (!(scale > 0 && scale <= 100)) {
        throw new IllegalArgumentException("scale " + scale + " outside (0, 100]");
      }
      if (!(growth >= 0 && growth <= 5)) {
        throw new IllegalArgumentException("growth " + growth + " outside [0, 5]");
      }
      if (!(jitter >= 0 && jitter <= 5)) {
        throw new IllegalArgumentException("jitter " + jitter + " outside [0, 5]");
      }
      if (textParents < 1 || textParents > neighbours) {
        throw new IllegalArgumentException(
            "text parents " + textParents + " outside [1, neighbours = " + neighbours + "]");
      }
    }

    @Override
    public boolean control() {
      return false;
    }

    @Override
    public TangentSteps open(List<Document> base, int[][] neighbours, int count, long seed) {
      return new TangentSteps(base, neighbours, this, count, seed);
    }

    /**
     * Names the setting in a dataset's model, which decides whether a built corpus is reused: "v2"
     * scales steps to the nearest neighbour that is not a twin (see the class javadoc), so a corpus
     * grown by the first version, with its clusters of identical copies, is rebuilt.
     */
    @Override
    public String toString() {
      return "steps v2 K=" + neighbours + " c=" + scale + " γ=" + growth + " j=" + jitter;
    }
  }

  /** A generated document's parts before its text: the vector and the text's parents. */
  record Step(int[] parents, double[] weights, float[] vector, double length) {}

  private final Params params;
  private final Map<Integer, int[]> distinct = new HashMap<>();

  /**
   * @param base the base documents, with unit embeddings
   * @param neighbours per base document, at least {@code params.neighbours()} nearest other base
   *     documents, best first ({@link BaseNeighbours})
   * @param count documents to produce, base included
   */
  TangentSteps(List<Document> base, int[][] neighbours, Params params, int count, long seed) {
    super(base, neighbours, params.neighbours(), count, seed);
    this.params = params;
  }

  /** Document {@code i}'s step: its vector, and the parents and weights of its text. */
  Step step(int i) {
    int a = primary(i);
    float[] ea = base.get(a).embedding();
    int dim = ea.length;
    if (i < base.size()) {
      return new Step(new int[] {a}, new double[] {1}, ea, 0);
    }
    int child = child(i);
    SplittableRandom random = new SplittableRandom(mix(seed, i, 3));
    int k = params.neighbours();
    int[] near = neighbours[a];
    if (distance(ea, base.get(near[k - 1]).embedding()) == 0) {
      near = distinctNeighbours(a);
    }
    double[] g = new double[dim];
    for (int n = 0; n < k; n++) {
      double z = random.nextGaussian();
      float[] e = base.get(near[n]).embedding();
      for (int x = 0; x < dim; x++) {
        g[x] += z * (e[x] - ea[x]);
      }
    }
    // Orthogonal to e_a: a step along e_a would only change the length normalisation takes away.
    double along = 0;
    for (int x = 0; x < dim; x++) {
      along += g[x] * ea[x];
    }
    double norm = 0;
    for (int x = 0; x < dim; x++) {
      g[x] -= along * ea[x];
      norm += g[x] * g[x];
    }
    norm = Math.sqrt(norm);
    double d1 = nearestDistinct(ea, near, k);
    double length =
        params.scale()
            * Math.pow(child, params.growth())
            * d1
            * Math.exp(params.jitter() * random.nextGaussian());
    float[] v = ea.clone();
    if (norm > 0) {
      for (int x = 0; x < dim; x++) {
        v[x] += (float) (length * g[x] / norm);
      }
    }
    normalize(v);
    // Text parents: the neighbours the step goes furthest towards.
    double[] towards = new double[k];
    for (int n = 0; n < k; n++) {
      float[] e = base.get(near[n]).embedding();
      double dot = 0;
      double sq = 0;
      for (int x = 0; x < dim; x++) {
        double d = e[x] - ea[x];
        dot += d * g[x];
        sq += d * d;
      }
      towards[n] = norm > 0 && sq > 0 ? Math.min(1, length * dot / norm / sq) : 0;
    }
    Integer[] order = new Integer[k];
    for (int n = 0; n < k; n++) {
      order[n] = n;
    }
    Arrays.sort(order, (x, y) -> Double.compare(towards[y], towards[x]));
    int t = params.textParents();
    int[] parents = new int[t + 1];
    double[] w = new double[t + 1];
    parents[0] = a;
    double others = 0;
    for (int n = 0; n < t; n++) {
      parents[n + 1] = near[order[n]];
      w[n + 1] = Math.max(0, towards[order[n]]);
      others += w[n + 1];
    }
    // The primary keeps what the others leave, at least 1/(t + 1); the others share the rest in
    // proportion to how far the step goes towards each.
    w[0] = Math.max(1.0 / (t + 1), 1 - others);
    double rest = others > 0 ? (1 - w[0]) / others : 0;
    for (int n = 1; n <= t; n++) {
      w[n] *= rest;
    }
    return new Step(parents, w, v, length);
  }

  /** Document {@code i}; see the class javadoc. */
  @Override
  Document document(int i) {
    if (i < base.size()) {
      return base.get(i);
    }
    Step s = step(i);
    int[] p = s.parents();
    double[] w = s.weights();
    int child = child(i);
    SplittableRandom random = new SplittableRandom(mix(seed, i, 2));
    Document a = base.get(p[0]);
    int heaviest = 1;
    for (int j = 2; j < p.length; j++) {
      heaviest = w[j] > w[heaviest] ? j : heaviest;
    }
    String title = NeighbourMixes.title(a.title(), base.get(p[heaviest]).title(), w[0]);
    List<List<String>> sentences = new ArrayList<>();
    for (int q : p) {
      sentences.add(SyntheticVariants.sentences(base.get(q).description()));
    }
    String id = a.id() + "~s" + child;
    return new Document(
        id,
        title,
        NeighbourMixes.description(sentences, w, title),
        a.category(),
        (int) Math.round(a.price() * (0.5 + 1.5 * random.nextDouble())),
        DebianCatalogue.rating(id),
        s.vector());
  }

  /**
   * The {@code K} nearest base documents of {@code a} that are not exact copies of it, by brute
   * force, for a primary whose cached {@code K} nearest are all twins (a group of more than {@code
   * K} identical packages; Debian has one of 84): its offsets to them are all 0, so without these
   * its children would all be copies. A base with fewer than {@code K} other distinct vectors keeps
   * the cached list. Computed once per such primary.
   */
  private int[] distinctNeighbours(int a) {
    return distinct.computeIfAbsent(
        a,
        x -> {
          float[] ea = base.get(x).embedding();
          int k = params.neighbours();
          // The k nearest by a bounded max-heap on distance, ties to the lower index.
          PriorityQueue<double[]> heap =
              new PriorityQueue<>(
                  (p, q) -> p[0] != q[0] ? Double.compare(q[0], p[0]) : Double.compare(q[1], p[1]));
          for (int j = 0; j < base.size(); j++) {
            double d = distance(ea, base.get(j).embedding());
            if (j == x || d == 0) {
              continue;
            }
            heap.add(new double[] {d, j});
            if (heap.size() > k) {
              heap.poll();
            }
          }
          if (heap.size() < k) {
            return neighbours[x];
          }
          int[] near = new int[k];
          for (int n = near.length - 1; n >= 0; n--) {
            near[n] = (int) heap.poll()[1];
          }
          return near;
        });
  }

  /**
   * The distance from {@code ea} to the nearest of its first {@code k} neighbours that is not an
   * exact copy of it, or 0 when all of them are. Identical texts embed to identical vectors (5.4%
   * of Debian's packages have a twin), and a step scaled to a twin's distance of 0 made every child
   * an exact copy: at 1M, clusters of 28–64 identical vectors that no real catalogue grows and that
   * Lucene's graphs reach poorly (docs/scale.md).
   */
  private double nearestDistinct(float[] ea, int[] near, int k) {
    for (int n = 0; n < k; n++) {
      double d = distance(ea, base.get(near[n]).embedding());
      if (d > 0) {
        return d;
      }
    }
    return 0;
  }

  private static double distance(float[] a, float[] b) {
    double sq = 0;
    for (int x = 0; x < a.length; x++) {
      double d = a[x] - b[x];
      sq += d * d;
    }
    return Math.sqrt(sq);
  }
}
