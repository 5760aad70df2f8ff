package org.searchlab.bench.data;

import java.io.PrintStream;
import java.time.Duration;

/**
 * A text progress bar with rate and time remaining, for long steps such as embedding. On a terminal
 * it redraws one line; otherwise (a log file) it prints a line every 10 seconds. Not thread-safe:
 * one thread reports progress.
 */
final class Progress {
  private static final int WIDTH = 30;

  private final String label;
  private final long total;
  private final PrintStream out;
  private final boolean terminal;
  private final long startNanos = System.nanoTime();
  private long lastPrintNanos;
  private long done;
  private boolean finished;

  Progress(String label, long total, PrintStream out) {
    this.label = label;
    this.total = total;
    this.out = out;
    this.terminal = System.console() != null;
  }

  /** Adds {@code n} completed items and redraws when due. */
  void advance(long n) {
    done += n;
    long now = System.nanoTime();
    long interval = terminal ? 200_000_000L : 10_000_000_000L;
    if (now - lastPrintNanos >= interval || done >= total) {
      lastPrintNanos = now;
      print(now, done >= total);
    }
  }

  /** Ends the bar with a final line (unless the last {@link #advance} drew it). */
  void finish() {
    if (!finished) {
      print(System.nanoTime(), true);
    }
  }

  double elapsedSeconds() {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private void print(long now, boolean last) {
    finished = last;
    double seconds = Math.max((now - startNanos) / 1e9, 1e-9);
    double rate = done / seconds;
    double fraction = total == 0 ? 1 : Math.min(1.0, (double) done / total);
    int filled = (int) Math.round(fraction * WIDTH);
    String eta =
        rate > 0 && done < total ? format(Duration.ofSeconds((long) ((total - done) / rate))) : "-";
    String line =
        String.format(
            "%s [%s%s] %d/%d (%.0f%%) %.1f/s elapsed %s ETA %s",
            label,
            "#".repeat(filled),
            " ".repeat(WIDTH - filled),
            done,
            total,
            fraction * 100,
            rate,
            format(Duration.ofSeconds((long) seconds)),
            eta);
    if (terminal) {
      out.print("\r" + line + (last ? "\n" : ""));
    } else {
      out.println(line);
    }
    out.flush();
  }

  private static String format(Duration d) {
    return String.format("%d:%02d:%02d", d.toHours(), d.toMinutesPart(), d.toSecondsPart());
  }
}
