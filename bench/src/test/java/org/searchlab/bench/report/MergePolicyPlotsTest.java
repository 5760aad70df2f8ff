package org.searchlab.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The merge-policy plots draw any number of policies, and nothing without points. */
class MergePolicyPlotsTest {
  @Test
  void drawsOneTwoOrThreePolicies(@TempDir Path dir) throws Exception {
    MergePolicyPlots plots = new MergePolicyPlots(dir);
    for (int n = 1; n <= 3; n++) {
      List<SegmentPoint> points = new ArrayList<>();
      Map<String, double[]> costs = new LinkedHashMap<>();
      for (int v = 0; v < n; v++) {
        String name = "policy" + v;
        points.add(
            new SegmentPoint(name, MergeWindow.FEED, null, 0.5, 2, 3000, List.of(2000L, 1000L)));
        points.add(new SegmentPoint(name, MergeWindow.FEED, null, 1.0, 1, 3000, List.of(3000L)));
        points.add(new SegmentPoint(name, MergeWindow.REFEED, 1, 0.5, 1, 3000, List.of(3000L)));
        costs.put(name, new double[] {1.5, 0.2});
      }
      for (String file :
          new String[] {plots.timeline(points), plots.sizes(points), plots.costs(costs, costs)}) {
        assertTrue(Files.size(dir.resolve(file)) > 0, n + " policies: " + file);
      }
    }
    assertNull(plots.timeline(List.of()));
    assertNull(plots.sizes(List.of()));
    assertNull(plots.costs(Map.of(), Map.of()));
    assertEquals(3, Files.list(dir).count());
  }
}
