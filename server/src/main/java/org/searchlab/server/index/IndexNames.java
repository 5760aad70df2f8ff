package org.searchlab.server.index;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.searchlab.server.ApiException;

/**
 * Elasticsearch's rules for an index name, checked before a name is used for anything: lower case,
 * none of {@code \ / * ? " < > | , #} or a space, not beginning with {@code _}, {@code -} or {@code
 * +}, not {@code .} and not holding {@code ..}, at most {@value #MAX_BYTES} UTF-8 bytes. A name is
 * never a file name here (an index's directory is named by its uuid), so these rules keep names
 * what Elasticsearch users expect, not the file system safe. Stateless and thread-safe.
 */
public final class IndexNames {
  /** Elasticsearch's limit on an index name. */
  public static final int MAX_BYTES = 255;

  private static final String FORBIDDEN = "\\/*?\"<>| ,#";

  private IndexNames() {}

  /**
   * Returns {@code name} when it is a valid index name.
   *
   * @throws ApiException 400 {@code invalid_index_name_exception} naming the rule it breaks
   */
  public static String check(String name) {
    if (name == null || name.isEmpty()) {
      throw invalid("", "must not be empty");
    }
    int bytes = name.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_BYTES) {
      throw invalid(
          name.substring(0, 40) + "...",
          "index name is too long, (" + bytes + " > " + MAX_BYTES + ")");
    }
    if (!name.toLowerCase(Locale.ROOT).equals(name)) {
      throw invalid(name, "must be lowercase");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (FORBIDDEN.indexOf(c) >= 0 || Character.isISOControl(c)) {
        throw invalid(
            name, "must not contain the following characters [ , \", *, \\, <, |, ,, >, /, ?, #]");
      }
    }
    if (name.charAt(0) == '_' || name.charAt(0) == '-' || name.charAt(0) == '+') {
      throw invalid(name, "must not start with '_', '-', or '+'");
    }
    if (name.equals(".") || name.contains("..")) {
      throw invalid(name, "must not be '.' or contain '..'");
    }
    return name;
  }

  private static ApiException invalid(String name, String why) {
    String shown = name.length() > 60 ? name.substring(0, 57) + "..." : name;
    return new ApiException(
        400, "invalid_index_name_exception", "Invalid index name [" + shown + "], " + why);
  }

  /** Whether {@code expression} names indexes by pattern ({@code *}) rather than exactly. */
  public static boolean isPattern(String expression) {
    return expression.indexOf('*') >= 0;
  }

  /** Whether {@code name} matches a pattern with {@code *} wildcards. */
  public static boolean matches(String pattern, String name) {
    if (pattern.equals("*") || pattern.equals("_all")) {
      return true;
    }
    String[] parts = pattern.split("\\*", -1);
    int at = 0;
    for (int i = 0; i < parts.length; i++) {
      String p = parts[i];
      if (i == 0) {
        if (!name.startsWith(p)) {
          return false;
        }
        at = p.length();
      } else if (i == parts.length - 1) {
        return name.length() - at >= p.length() && name.endsWith(p);
      } else {
        int found = name.indexOf(p, at);
        if (found < 0) {
          return false;
        }
        at = found + p.length();
      }
    }
    return at == name.length();
  }
}
