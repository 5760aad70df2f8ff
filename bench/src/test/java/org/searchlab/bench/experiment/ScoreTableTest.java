package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/**
 * {@link ScoreTable} answers what the score map it replaces answered: every matching id's score bit
 * for bit (zeros of both signs, ties, large ordinals), NaN for ids that do not match, and the
 * scores of ids the ordinals do not know.
 */
class ScoreTableTest {
  @Test
  void answersAsTheMapDid() {
    long seed = TestSeeds.seed("ScoreTableTest.map");
    SplittableRandom r = new SplittableRandom(seed);
    for (int round = 0; round < 50; round++) {
      int corpus = 1 + r.nextInt(5000);
      Map<String, Integer> ordinals = new HashMap<>();
      for (int i = 0; i < corpus; i++) {
        ordinals.put("doc-" + i, i);
      }
      Map<String, Float> scores = new HashMap<>();
      int matches = r.nextInt(corpus + 1);
      for (int i = 0; i < matches; i++) {
        float s =
            switch (r.nextInt(4)) {
              case 0 -> 0f;
              case 1 -> -0f;
              case 2 -> r.nextInt(5) * 0.5f;
              default -> (float) r.nextDouble(-3, 40);
            };
        scores.put("doc-" + r.nextInt(corpus), s);
      }
      scores.put("unknown-" + round, 1.5f);
      ScoreTable table = new ScoreTable(scores, ordinals);
      String what = "seed " + seed + " round " + round;
      assertEquals(scores.size(), table.size(), what);
      for (int i = 0; i < corpus; i++) {
        String id = "doc-" + i;
        Float want = scores.get(id);
        double got = table.applyAsDouble(id);
        if (want == null) {
          assertTrue(Double.isNaN(got), what + " " + id + " does not match");
        } else {
          assertEquals(
              Float.floatToRawIntBits(want), Float.floatToRawIntBits((float) got), what + " " + id);
        }
      }
      assertEquals(1.5, table.applyAsDouble("unknown-" + round), what);
      assertTrue(Double.isNaN(table.applyAsDouble("never-seen")), what);
    }
  }
}
