package org.searchlab.bench.experiment;

import java.io.PrintStream;
import java.time.Duration;

/**
 * The progress line: phase, cell number and an estimate of the time left. The estimate scales the
 * planned seconds of the cells still to run by how long the run has taken per planned second so
 * far, so feeds and merges are folded in once a few have happened. Not thread-safe: the runner's
 * thread calls it.
 */
final class Progress {
  private final PrintStream out;
  private final long start = System.nanoTime();
  private final int totalCells;
  private final double plannedSeconds;
  private int doneCells;
  private double doneSeconds;

  Progress(PrintStream out, int totalCells, double plannedSeconds) {
    this.out = out;
    this.totalCells = totalCells;
    this.plannedSeconds = plannedSeconds;
  }

  /** Prints the line for the cell about to run, which is planned to take {@code seconds}. */
  void cell(String phase, String what, double seconds) {
    doneCells++;
    line(phase, "cell " + doneCells + "/" + totalCells + " " + what);
    doneSeconds += seconds;
  }

  /** Prints a line for a step that is not a cell (feed, merge, recall). */
  void step(String phase, String what) {
    line(phase, what);
  }

  private void line(String phase, String what) {
    double elapsed = (System.nanoTime() - start) / 1e9;
    double left = plannedSeconds - doneSeconds;
    // Until some cells have run, assume the overhead doubles the planned time.
    double factor = doneSeconds > 30 ? elapsed / doneSeconds : 2.0;
    out.printf(
        "[%s elapsed, ~%s left] %-20s %s%n",
        format(elapsed), format(Math.max(0, left * factor)), phase, what);
    out.flush();
  }

  static String format(double seconds) {
    Duration d = Duration.ofSeconds((long) seconds);
    return String.format("%d:%02d", d.toMinutes(), d.toSecondsPart());
  }
}
