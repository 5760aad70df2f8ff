package org.searchlab.server;

/**
 * Quoting client input into error bodies and log lines: at most a bounded prefix, with control
 * characters escaped, so a 200 KB query is not echoed back and a line break in a header cannot
 * forge a log line. Stateless and thread-safe.
 */
public final class Text {
  /** The most characters of one input quoted in an error or a log line. */
  public static final int MAX_QUOTE = 256;

  /** The most characters of a whole error reason or log line. */
  public static final int MAX_MESSAGE = 2048;

  private Text() {}

  /**
   * An error reason cut to {@link #MAX_MESSAGE} characters. Control characters stay: the body is
   * JSON, whose encoder escapes them, and a YQL error's caret pointer is laid out in lines.
   */
  public static String reason(String s) {
    if (s == null || s.length() <= MAX_MESSAGE) {
      return s;
    }
    return s.substring(0, MAX_MESSAGE) + "... (" + (s.length() - MAX_MESSAGE) + " more characters)";
  }

  /** {@code s} cut to {@link #MAX_QUOTE} characters, control characters escaped. */
  public static String quote(String s) {
    return bounded(s, MAX_QUOTE);
  }

  /**
   * {@code s} cut to {@code max} characters (saying how many were left out), with control
   * characters written as {@code \n}, {@code \r}, {@code \t} or {@code \\uXXXX}.
   */
  public static String bounded(String s, int max) {
    if (s == null) {
      return "null";
    }
    int n = Math.min(s.length(), max);
    StringBuilder sb = new StringBuilder(n + 32);
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    if (s.length() > max) {
      sb.append("... (").append(s.length() - max).append(" more characters)");
    }
    return sb.toString();
  }
}
