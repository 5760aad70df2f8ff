package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.mapping.VectorSimilarity;
import org.searchlab.testing.TestSeeds;

/**
 * The rows with the neighbours' 1-bit codes ({@link InlineCodeRows}, {@link
 * HnswConfig#inlineCodes()}) against the nodes' own codes: every row estimates, bit for bit, what
 * {@link BinaryCodes.Query} estimates from each neighbour's own code, after inserts, deletes,
 * vector replacements, hand-overs and a snapshot load; and a graph with them finds exactly the hits
 * of the same graph without them, filtered or not, for the dot product and for {@code l2_norm}. A
 * row that dropped a slot, paired a link with another neighbour's words, kept a replaced code or
 * rounded the estimate in another order fails the first test; a beam that expanded differently
 * fails the second.
 */
class InlineCodeRowsTest {
  private static HnswConfig config(VectorSimilarity similarity, boolean inline) {
    return HnswConfig.builder()
        .quantization(VectorQuantization.BBQ)
        .similarity(similarity)
        .m(8)
        .efConstruction(64)
        .buildThreads(1)
        .inlineCodes(inline)
        .build();
  }

  private static float[][] data(SplittableRandom r, int n, int dim, boolean unit) {
    float[][] data = TestVectors.clustered(r, n, dim, 12, 1.0);
    if (!unit) {
      for (float[] v : data) {
        float scale = (float) (0.5 + 2 * r.nextDouble());
        for (int d = 0; d < dim; d++) {
          v[d] *= scale;
        }
      }
    }
    return data;
  }

  /**
   * Every row's estimates equal the neighbours' own codes' estimates, bit for bit, in link order.
   */
  private static void assertRowsMatchOwnCodes(MutableHnswGraph g, float[] q, String where) {
    HnswAdjacency adjacency = g.adjacency();
    InlineCodeRows inline = adjacency.inlineRows();
    BinaryCodes.Query query = new BinaryCodes.Query(new Rotation(g.vectors().dimension()));
    query.bind(q);
    boolean l2 = g.config().similarity() == VectorSimilarity.L2_NORM;
    float[] out = new float[(g.config().maxLinks(0) + 7) & ~7];
    int checked = 0;
    for (int node = 0; node < adjacency.idUpperBound(); node++) {
      if (!g.contains(node)) {
        continue;
      }
      int[] links = g.neighbors(node, 0);
      long[] rows = inline.page(node);
      int at = inline.at(node);
      assertEquals(links.length, inline.count(rows, at), where + ": count of node " + node);
      inline.estimate(rows, at, links.length, query, out);
      for (int j = 0; j < links.length; j++) {
        assertEquals(links[j], inline.link(rows, at, j), where + ": link " + j + " of " + node);
        byte[] code = g.vectors().lowBitCode(links[j]);
        float own = l2 ? -query.squareDistance(code) : query.dot(code);
        assertEquals(
            Float.floatToIntBits(own),
            Float.floatToIntBits(out[j]),
            where + ": node " + node + " slot " + j + " (" + own + " vs " + out[j] + ")");
        checked++;
      }
    }
    assertTrue(checked > 0, where);
  }

  @Test
  void rowsEstimateWhatTheNeighboursOwnCodesEstimateThroughEveryChange(@TempDir Path dir)
      throws IOException {
    long seed = TestSeeds.seed("InlineCodeRowsTest.rows");
    for (VectorSimilarity similarity :
        new VectorSimilarity[] {VectorSimilarity.DOT_PRODUCT, VectorSimilarity.L2_NORM}) {
      SplittableRandom r = new SplittableRandom(seed);
      // 200 dimensions: four words of bits, the last one partly used.
      int n = 600;
      float[][] data = data(r, n, 200, similarity != VectorSimilarity.L2_NORM);
      MutableHnswGraph g = QuantizedGraphTest.build(config(similarity, true), data);
      float[] q = TestVectors.near(r, data[r.nextInt(n)], 1.0);
      String s = similarity.esName() + ", seed " + seed;
      assertRowsMatchOwnCodes(g, q, "after inserts, " + s);
      for (int i = 0; i < 60; i++) {
        g.remove(r.nextInt(n));
      }
      assertRowsMatchOwnCodes(g, q, "after deletes, " + s);
      for (int i = 0; i < 60; i++) {
        int node = r.nextInt(n);
        g.update(node, data(r, 1, 200, similarity != VectorSimilarity.L2_NORM)[0]);
      }
      assertRowsMatchOwnCodes(g, q, "after replaced vectors, " + s);
      for (int i = 0; i < 20; i++) {
        int from = r.nextInt(n);
        if (g.contains(from)) {
          int to = n + i;
          g.vectors().set(to, g.vectors().get(from));
          g.handOver(from, to);
          g.remove(from);
        }
      }
      assertRowsMatchOwnCodes(g, q, "after hand-overs, " + s);
      Path file = dir.resolve(similarity.esName() + ".hnsw");
      g.writeSnapshot(file);
      MutableHnswGraph loaded = MutableHnswGraph.load(file, config(similarity, true));
      assertRowsMatchOwnCodes(loaded, q, "after a snapshot load, " + s);
    }
  }

  /** Rows on a second and a third page, beside a first page grown to its full size. */
  @Test
  void rowsOnLaterPagesEstimateWhatTheOwnCodesEstimate() {
    long seed = TestSeeds.seed("InlineCodeRowsTest.pages");
    SplittableRandom r = new SplittableRandom(seed);
    // At 64 dimensions and M 8 the rows are 384 bytes, so a page holds the most rows, 4,096.
    int n = 2 * InlineCodeRows.PAGE_ROWS + 500;
    float[][] data = data(r, n, 64, true);
    MutableHnswGraph g = QuantizedGraphTest.build(config(VectorSimilarity.DOT_PRODUCT, true), data);
    assertEquals(InlineCodeRows.PAGE_ROWS, g.adjacency().inlineRows().pageRows());
    assertRowsMatchOwnCodes(g, TestVectors.near(r, data[r.nextInt(n)], 1.0), "seed " + seed);
  }

  @Test
  void aGraphWithInlineCodesFindsTheHitsOfTheSameGraphWithout() {
    long seed = TestSeeds.seed("InlineCodeRowsTest.hits");
    for (VectorSimilarity similarity :
        new VectorSimilarity[] {VectorSimilarity.DOT_PRODUCT, VectorSimilarity.L2_NORM}) {
      SplittableRandom r = new SplittableRandom(seed);
      int n = 1_500;
      int dim = 128;
      float[][] data = data(r, n, dim, similarity != VectorSimilarity.L2_NORM);
      // Both graphs are built on the floats (a 1-bit graph's inserts search them), so the links
      // are the same; only where a search reads the neighbours' codes differs.
      MutableHnswGraph plain = QuantizedGraphTest.build(config(similarity, false), data);
      MutableHnswGraph inline = QuantizedGraphTest.build(config(similarity, true), data);
      for (int i = 0; i < 100; i++) { // the same deletes on both
        int node = r.nextInt(n);
        plain.remove(node);
        inline.remove(node);
      }
      AcceptBits odd = node -> (node & 1) == 1;
      String s = similarity.esName() + ", seed " + seed;
      for (int t = 0; t < 60; t++) {
        float[] q = TestVectors.near(r, data[r.nextInt(n)], 1.0);
        int ef = 20 + r.nextInt(120);
        GraphHits a = plain.search(q, 10, ef);
        GraphHits b = inline.search(q, 10, ef);
        assertArrayEquals(a.nodes(), b.nodes(), "query " + t + ", ef " + ef + ", " + s);
        assertArrayEquals(a.scores(), b.scores(), "query " + t + ", " + s);
        assertEquals(a.rescored(), b.rescored(), "rerank depth, query " + t + ", " + s);
        GraphHits fa = plain.search(q, 10, ef, odd, n / 2, FilterThresholds.INDEX_DEFAULT);
        GraphHits fb = inline.search(q, 10, ef, odd, n / 2, FilterThresholds.INDEX_DEFAULT);
        assertEquals(fa.plan(), fb.plan(), "filtered plan, query " + t + ", " + s);
        assertArrayEquals(fa.nodes(), fb.nodes(), "filtered, query " + t + ", " + s);
        assertArrayEquals(fa.scores(), fb.scores(), "filtered, query " + t + ", " + s);
      }
    }
  }
}
