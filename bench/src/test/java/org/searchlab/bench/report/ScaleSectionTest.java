package org.searchlab.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScaleSectionTest {
  private static final RunInfo.Machine MACHINE = new RunInfo.Machine(2, "test cpu", true);
  private static final int[] SIZES = {100_000, 300_000, 1_000_000};

  /** Per-round factors on the cost, shared by the stores so that the ratios' rounds are paired. */
  private static final double[] ROUND = {1.0, 0.9, 1.1, 1.05, 0.95, 1.0};

  /** CPU ms per query at 100k, and the exponent of its growth, per store. */
  private static final Map<String, double[]> COST =
      Map.of(
          "mutable", new double[] {2, 0.2},
          "segmented-forcemerged", new double[] {4, 0.5},
          "segmented", new double[] {8, 1});

  static ResultRow row(
      String variant, String phase, String type, int clients, int docs, double msPerQuery) {
    double perCore = 1000 / msPerQuery;
    ResultRow r =
        new ResultRow(
            variant, phase, type, false, clients, null, null, perCore, null, null, null, null, null,
            1.0, perCore, 0.96, 0.96, null, null, 100L, 0L, 1.0, null, null, null, "scale", MACHINE,
            "jdk", "abc", docs, 16);
    return type.equals("lexical") ? r : r.withCandidates(10, 100, 0.95);
  }

  /** Every store's round rows at every size, plus rows the section must ignore. */
  static List<ResultRow> rows() {
    List<ResultRow> rows = new ArrayList<>();
    for (int n : SIZES) {
      for (Map.Entry<String, double[]> e : COST.entrySet()) {
        for (String type : List.of("lexical", "vector")) {
          double ms = e.getValue()[0] * Math.pow(n / 100_000.0, e.getValue()[1]);
          for (int r = 0; r < ROUND.length; r++) {
            rows.add(
                row(e.getKey(), RowIndex.AT_TARGET, type, 16, n, ms * ROUND[r]).withRound(r + 1));
          }
          // A summary row, another client count and another phase, all far off: not read.
          rows.add(row(e.getKey(), RowIndex.AT_TARGET, type, 16, n, ms * 100));
          rows.add(row(e.getKey(), RowIndex.AT_TARGET, type, 1, n, ms * 100).withRound(1));
          rows.add(row(e.getKey(), "after_flush", type, 16, n, ms * 100).withRound(1));
        }
      }
    }
    return rows;
  }

  @Test
  void slopesPerStoreAreTheExponentsOfTheFabricatedCosts() {
    ScaleSection s = new ScaleSection(rows(), 16, 0.95);
    for (Map.Entry<String, double[]> e : COST.entrySet()) {
      for (String type : List.of("lexical", "vector")) {
        Slopes.Fit fit = s.slope(e.getKey(), type, false).orElseThrow();
        double b = e.getValue()[1];
        assertEquals(b, fit.ofMedians(), 1e-9, e.getKey() + " " + type);
        assertEquals(b, fit.perRound().median(), 1e-9, e.getKey() + " " + type);
        assertEquals(b, fit.perRound().low(), 1e-9, e.getKey() + " " + type);
        assertEquals(b, fit.perRound().high(), 1e-9, e.getKey() + " " + type);
        assertEquals(6, fit.perRound().n());
      }
    }
    assertTrue(new ScaleSection(rows(), 16, 0.95).slope("mutable", "hybrid", false).isEmpty());
  }

  @Test
  void tableGivesCostsRatiosAndSlopesPerSize() {
    String md = new ScaleSection(rows(), 16, 0.95).markdown();
    assertTrue(md.contains("### lexical, 16 clients"), md);
    assertTrue(md.contains("### vector, 16 clients"), md);
    // Median of 2 ms × ROUND is 2.000; 6 rounds give [min, max] = [1.8, 2.2].
    assertTrue(
        md.contains(
            "| 100,000 | 2.000 [1.800–2.200] | 4.000 [3.600–4.400] | 8.000 [7.200–8.800] |"),
        md);
    // At 1M: 2 · 10^0.2 = 3.170, 4 · 10^0.5 = 12.649 and 8 · 10 ms; the QPS-per-core ratios are
    // the cost ratios, 2 · 10^0.3 = 3.99 and 4 · 10^0.8 = 25.24, the same in every round.
    assertTrue(
        md.contains(
            "| 1,000,000 | 3.170 [2.853–3.487] | 12.649 [11.384–13.914] | 80.000 [72.000–88.000]"
                + " | 3.99 [3.99–3.99]× | 25.24 [25.24–25.24]× |"),
        md);
    assertTrue(md.contains("- mutable: 0.20 [0.20–0.20]; 0.20"), md);
    assertTrue(md.contains("- force-merged: 0.50 [0.50–0.50]; 0.50"), md);
    assertTrue(md.contains("- default: 1.00 [1.00–1.00]; 1.00"), md);
  }

  @Test
  void noSlopeWhenAStoreLacksASizeOrARound() {
    List<ResultRow> rows = new ArrayList<>(rows());
    // The default store loses round 6 at 1M; the force-merged store all of 300k.
    rows.removeIf(
        r ->
            r.queryType().equals("vector")
                && ((r.variant().equals("segmented")
                        && r.docs() == 1_000_000
                        && Integer.valueOf(6).equals(r.round()))
                    || (r.variant().equals("segmented-forcemerged") && r.docs() == 300_000)));
    ScaleSection s = new ScaleSection(rows, 16, 0.95);
    assertTrue(s.slope("segmented", "vector", false).isEmpty());
    assertTrue(s.slope("segmented-forcemerged", "vector", false).isEmpty());
    assertFalse(s.slope("mutable", "vector", false).isEmpty());
    assertFalse(s.slope("segmented", "lexical", false).isEmpty());
    String vector = s.markdown().split("### vector")[1];
    assertTrue(vector.contains("- default: –"), vector);
    assertTrue(vector.contains("- force-merged: –"), vector);
  }
}
