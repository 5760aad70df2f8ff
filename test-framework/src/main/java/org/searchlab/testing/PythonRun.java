package org.searchlab.testing;

import java.time.Duration;
import java.util.List;

/**
 * What one process run in a {@link PythonEnv} did: its exit code and what it printed. Immutable.
 *
 * @param command the command line that ran
 * @param exitCode the exit code, or -1 when the run timed out and was killed
 * @param stdout everything it printed on standard output (UTF-8)
 * @param stderr everything it printed on standard error (UTF-8)
 * @param elapsed wall time from start to exit (or to the kill)
 * @param timedOut whether the run outlived its timeout and was killed with its children
 */
public record PythonRun(
    List<String> command,
    int exitCode,
    String stdout,
    String stderr,
    Duration elapsed,
    boolean timedOut) {

  /** The number of trailing lines of each stream a failure message shows. */
  private static final int TAIL_LINES = 60;

  public PythonRun {
    command = List.copyOf(command);
  }

  /** Whether the process exited by itself with code 0. */
  public boolean ok() {
    return !timedOut && exitCode == 0;
  }

  /**
   * This run, when it {@link #ok() succeeded}; otherwise an {@link AssertionError} that shows the
   * command, how it ended and the tails of both streams (the Python traceback is on stderr).
   */
  public PythonRun requireSuccess() {
    if (!ok()) {
      throw new AssertionError(describe());
    }
    return this;
  }

  /** The command, how it ended, and the last lines of both streams. */
  public String describe() {
    return String.join(" ", command)
        + (timedOut
            ? "\n  was killed after " + elapsed.toMillis() + " ms (timeout)"
            : "\n  exited with " + exitCode + " after " + elapsed.toMillis() + " ms")
        + "\n--- stdout (tail) ---\n"
        + tail(stdout)
        + "\n--- stderr (tail) ---\n"
        + tail(stderr);
  }

  static String tail(String text) {
    String[] lines = text.split("\n", -1);
    if (lines.length <= TAIL_LINES) {
      return text;
    }
    return "[... "
        + (lines.length - TAIL_LINES)
        + " lines]\n"
        + String.join("\n", List.of(lines).subList(lines.length - TAIL_LINES, lines.length));
  }
}
