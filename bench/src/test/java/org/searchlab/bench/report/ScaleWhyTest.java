package org.searchlab.bench.report;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class ScaleWhyTest {
  /** The default store's profiles: graph walks take most of its growth; 10 → 30 segments. */
  private static JsonNode scale() throws Exception {
    return new ObjectMapper()
        .readTree(
            """
            {"per_size": [
              {"docs": 100000, "servers": {"segmented": {"segments": 10, "profile": {"vector":
                {"samples": 100, "parts": {"graph walks": 0.5, "distance computations": 0.3,
                 "other": 0.2}}}}}},
              {"docs": 300000, "servers": {}},
              {"docs": 1000000, "servers": {"segmented": {"segments": 30, "profile": {"vector":
                {"samples": 100, "parts": {"graph walks": 0.7, "distance computations": 0.2,
                 "other": 0.1}}}}}}
            ]}
            """);
  }

  @Test
  void namesTheFastestGrowingStoreAndThePartItsRiseIsIn() throws Exception {
    String md =
        new ScaleWhy(new ScaleSection(ScaleSectionTest.rows(), 16, 0.95), scale()).markdown();
    // Slopes 1.0, 0.5 and 0.2, every round alike: the intervals do not overlap.
    assertTrue(
        md.contains(
            "- **vector**: default segmented's CPU per query grows fastest, default segmented"
                + " N^1.00 [1.00–1.00], force-merged N^0.50 [0.50–0.50], mutable N^0.20"
                + " [0.20–0.20]."),
        md);
    // 8 → 80 ms: graph walks 80 · 0.7 − 8 · 0.5 = +52 ms of the 72 (distances' +13.6 is under a
    // quarter of it and not named).
    assertTrue(
        md.contains(
            "From 100,000 to 1,000,000 documents: default segmented 8.000 → 80.000 ms (+52.000 ms"
                + " in graph walks), segments 10 → 30; force-merged 4.000 → 12.649 ms (not"
                + " profiled at both sizes)"),
        md);
    assertTrue(md.contains("- **lexical**: "), md);
  }

  @Test
  void overlappingSlopesStateNoDirection() throws Exception {
    // Both stores grow as N^0.2, with the rounds' noise drawn differently at each size: the
    // per-round slopes scatter around 0.2 and the two intervals overlap.
    double[] round = {1.0, 0.9, 1.1, 1.05, 0.95, 1.0};
    int[] sizes = {100_000, 300_000, 1_000_000};
    java.util.List<ResultRow> rows = new java.util.ArrayList<>();
    for (int i = 0; i < sizes.length; i++) {
      double ms = 2 * Math.pow(sizes[i] / 100_000.0, 0.2);
      for (int r = 0; r < 6; r++) {
        rows.add(
            ScaleSectionTest.row(
                    "mutable", RowIndex.AT_TARGET, "vector", 16, sizes[i], ms * round[(r + i) % 6])
                .withRound(r + 1));
        rows.add(
            ScaleSectionTest.row(
                    "segmented",
                    RowIndex.AT_TARGET,
                    "vector",
                    16,
                    sizes[i],
                    ms * round[(r + 2 * i) % 6])
                .withRound(r + 1));
      }
    }
    String md =
        new ScaleWhy(new ScaleSection(rows, 16, 0.95), new ObjectMapper().readTree("{}"))
            .markdown();
    assertTrue(
        md.contains(
            "- **vector**: no store's CPU per query grows distinguishably faster (the slopes'"
                + " intervals overlap): "),
        md);
    assertTrue(md.contains("mutable 2.000 → "), md);
    assertTrue(md.contains("(not profiled at both sizes)"), md);
  }
}
