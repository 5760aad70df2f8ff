package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The experiment's time-left estimate, on a clock the test moves. */
class ProgressTest {
  private long now;

  private Progress progress(int cells, double cellSeconds, long docs) {
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    return new Progress(out, cells, cells * cellSeconds, docs, () -> now);
  }

  private void advance(double seconds) {
    now += (long) (seconds * 1e9);
  }

  @Test
  void checksAfterACellAreNotCountedAsTheCellsTime() {
    Progress p = progress(200, 1.0, 0);
    p.planChecks(20_000);
    // 150 cells of 1 s that take 1 s each: the cell rate is 1.
    for (int i = 0; i < 150; i++) {
      p.cell("phase", "cell", 1.0);
      advance(1.0);
    }
    // Then 10,000 recall checks that take 40 s, recorded before the next progress line.
    advance(40);
    p.checked(10_000, 40);
    // Left: 50 cells at 1 s each and 10,000 checks at 4 ms each, 90 s, and no overhead (none so
    // far). Counted in the last cell, the checks would have made the cell rate 41/150 higher.
    assertEquals(90, p.left(), 1.0);
  }

  @Test
  void theFirstEstimateUsesTheMeasuredDefaults() {
    // 600 cells of 1.1 s, 600,000 documents to feed, 100,000 checks: a standard run's plan.
    Progress p = progress(600, 1.1, 600_000);
    p.planChecks(100_000);
    double planned = 600 * 1.1 * 1.05 + 600_000 * 0.0003 + 100_000 * 0.004;
    assertEquals(planned * 1.2, p.left(), 1.0);
  }

  @Test
  void aFeedAfterACellIsNotCountedAsTheCellsTime() {
    Progress p = progress(150, 1.0, 100_000);
    for (int i = 0; i < 150; i++) {
      p.cell("phase", "cell", 1.0);
      advance(1.0);
    }
    advance(30);
    p.fed(50_000, 30);
    // 50,000 documents left at the measured 0.6 ms each.
    assertEquals(30, p.left(), 1.0);
  }
}
