package org.searchlab.server;

import java.time.Instant;

/**
 * The server's log: one line on stdout per start, stop and error, with a UTC timestamp and a level.
 * Never prints stack traces (an error line names the exception class and message); a line is at
 * most {@link Text#MAX_MESSAGE} characters with control characters escaped. Thread-safe ({@link
 * System#out} is synchronized per line).
 */
public final class ServerLog {
  private ServerLog() {}

  public static void info(String message) {
    line("INFO", message);
  }

  public static void warn(String message) {
    line("WARN", message);
  }

  public static void error(String message, Throwable t) {
    line("ERROR", message + ": " + t.getClass().getName() + ": " + Text.quote(t.getMessage()));
  }

  private static void line(String level, String message) {
    // Bounded and escaped: a message may quote client input, which must not forge lines.
    System.out.println(
        Instant.now()
            + " "
            + level
            + " searchlab-server "
            + Text.bounded(message, Text.MAX_MESSAGE));
  }
}
