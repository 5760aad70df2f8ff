package org.searchlab.bench.experiment;

import java.io.PrintStream;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The progress line: phase, cell number and an estimate of the time left, from the plan and the
 * measured progress. The plan counts the timed cells (their planned seconds), the documents to feed
 * and the queries the quality checks send one at a time (recall over the calibration grid and at
 * each cell's beam, with their exact answers); the run measures four rates as it goes: wall time
 * per planned cell second (cells run longer than planned by their set-up), seconds per fed document
 * (the first feed sets it), seconds per quality query, and the remaining overhead (server starts,
 * warm-ups, merges) in proportion to the planned work done. The quality checks come early and cost
 * more per unit of planned work than anything after them: counted as overhead, they made one run's
 * estimate 54 minutes a third of the way into a 28-minute run. A check or a feed that runs after a
 * cell, before the next progress line, is taken out of that cell's wall time: counted in it, the 37
 * s of recall checks after the last calibration cell of a type doubled the cell rate, and the
 * estimate jumped from 23 to 38 minutes left in a 27-minute run.
 *
 * <p>Before a rate has been measured its default holds. The defaults are the rates of a standard
 * run on 2 cores (2026-11-24, run D: 27.2 minutes): 1.05 s per planned cell second, 0.3 ms per fed
 * document (its six bulk feeds averaged 0.29 ms), 4 ms per quality query (1.3 ms for vector
 * queries, up to 30 ms for hybrid ones with their exact answers) and overhead 0.2 × the planned
 * work. The old default of 2 ms per document made that run's first estimate 52:51. Not thread-safe:
 * the runner's thread calls it.
 */
final class Progress {
  private static final double DEFAULT_CELL_FACTOR = 1.05;
  private static final double DEFAULT_SECONDS_PER_DOC = 0.0003;
  private static final double DEFAULT_SECONDS_PER_CHECK = 0.004;
  private static final double DEFAULT_OVERHEAD = 0.2;

  private final PrintStream out;
  private final LongSupplier clock;
  private final long start;
  private final int totalCells;
  private final double plannedCellSeconds;
  private final long plannedFeedDocs;
  private int doneCells;
  private double doneCellSeconds;
  private double cellWall;
  private long openCellStart = -1;
  private long fedDocs;
  private double feedWall;
  private long plannedChecks;
  private long checked;
  private double checkWall;

  /**
   * @param totalCells timed cells in the plan
   * @param plannedCellSeconds their planned seconds (warm-up + window each)
   * @param plannedFeedDocs documents the plan feeds (bulk feeds, not the refeed under queries)
   */
  Progress(PrintStream out, int totalCells, double plannedCellSeconds, long plannedFeedDocs) {
    this(out, totalCells, plannedCellSeconds, plannedFeedDocs, System::nanoTime);
  }

  /** With {@code clock} (nanoseconds) in place of {@link System#nanoTime}, for tests. */
  Progress(
      PrintStream out,
      int totalCells,
      double plannedCellSeconds,
      long plannedFeedDocs,
      LongSupplier clock) {
    this.out = out;
    this.clock = clock;
    this.start = clock.getAsLong();
    this.totalCells = totalCells;
    this.plannedCellSeconds = plannedCellSeconds;
    this.plannedFeedDocs = plannedFeedDocs;
  }

  /** Prints the line for the cell about to run, which is planned to take {@code seconds}. */
  void cell(String phase, String what, double seconds) {
    closeCell();
    doneCells++;
    line(phase, "cell " + doneCells + "/" + totalCells + " " + what);
    doneCellSeconds += seconds;
    openCellStart = clock.getAsLong();
  }

  /** Adds quality-check queries to the plan (known once the variants' servers are up). */
  void planChecks(long queries) {
    plannedChecks += queries;
  }

  /**
   * Records quality-check queries (sent one at a time, with their exact answers) that took {@code
   * seconds}; their wall time is not overhead.
   */
  void checked(long queries, double seconds) {
    closeCell(seconds);
    checked += queries;
    checkWall += seconds;
  }

  /** Records a bulk feed that took {@code seconds} (its wall time is not overhead). */
  void fed(long docs, double seconds) {
    closeCell(seconds);
    fedDocs += docs;
    feedWall += seconds;
  }

  /** Prints a line for a step that is not a cell (feed, merge, recall). */
  void step(String phase, String what) {
    closeCell();
    line(phase, what);
  }

  private void closeCell() {
    closeCell(0);
  }

  /** Ends the open cell, if any, leaving out {@code notCell} seconds of other work since. */
  private void closeCell(double notCell) {
    if (openCellStart >= 0) {
      cellWall += Math.max(0, (clock.getAsLong() - openCellStart) / 1e9 - notCell);
      openCellStart = -1;
    }
  }

  /** Seconds left by the plan and the rates measured so far. */
  double left() {
    double elapsed = (clock.getAsLong() - start) / 1e9;
    double cellFactor = doneCellSeconds > 10 ? cellWall / doneCellSeconds : DEFAULT_CELL_FACTOR;
    double perDoc = fedDocs > 1_000 ? feedWall / fedDocs : DEFAULT_SECONDS_PER_DOC;
    double perCheck = checked > 1_000 ? checkWall / checked : DEFAULT_SECONDS_PER_CHECK;
    double cellsLeft = Math.max(0, plannedCellSeconds - doneCellSeconds) * cellFactor;
    double feedsLeft = Math.max(0, plannedFeedDocs - fedDocs) * perDoc;
    double checksLeft = Math.max(0, plannedChecks - checked) * perCheck;
    // The rest of the time so far, spread over the planned work done, predicts the rest to come.
    double overhead = Math.max(0, elapsed - cellWall - feedWall - checkWall);
    double plannedDone = doneCellSeconds * cellFactor + fedDocs * perDoc + checkWall;
    double plannedLeft = cellsLeft + feedsLeft + checksLeft;
    double overheadLeft =
        plannedDone > 120 ? overhead * plannedLeft / plannedDone : DEFAULT_OVERHEAD * plannedLeft;
    return plannedLeft + overheadLeft;
  }

  private void line(String phase, String what) {
    double elapsed = (clock.getAsLong() - start) / 1e9;
    out.printf("[%s elapsed, ~%s left] %-20s %s%n", format(elapsed), format(left()), phase, what);
    out.flush();
  }

  static String format(double seconds) {
    Duration d = Duration.ofSeconds((long) seconds);
    return String.format("%d:%02d", d.toMinutes(), d.toSecondsPart());
  }
}
