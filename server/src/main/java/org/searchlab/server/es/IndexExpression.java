package org.searchlab.server.es;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.searchlab.server.ApiException;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.Text;

/**
 * An Elasticsearch index expression resolved against the names a server holds: a comma-separated
 * list of concrete names and {@code *} wildcards, {@code _all} (or nothing) for every index, and
 * {@code -pattern} after a wildcard to take names out. As in Elasticsearch: a concrete name that
 * does not exist is 404 {@code index_not_found_exception} unless {@code ignore_unavailable}; a
 * wildcard that matches nothing is no error; an expression that resolves to no index at all is 404
 * only when {@code allow_no_indices} is false. A wildcard matches names that start with a dot only
 * when it starts with one itself. Stateless and thread-safe.
 */
final class IndexExpression {
  /** The parameters that tune resolution. */
  static final Set<String> PARAMS =
      Set.of("ignore_unavailable", "allow_no_indices", "expand_wildcards");

  private static final Set<String> EXPAND = Set.of("open", "closed", "hidden", "none", "all");

  /**
   * How to resolve.
   *
   * @param ignoreUnavailable whether a missing concrete name is skipped instead of a 404
   * @param allowNoIndices whether resolving to nothing is allowed
   * @param expandWildcards whether wildcards match anything ({@code expand_wildcards=none} makes
   *     them match nothing)
   */
  record Options(boolean ignoreUnavailable, boolean allowNoIndices, boolean expandWildcards) {
    /** Elasticsearch's defaults for searches and stats. */
    static final Options LENIENT_WILDCARDS = new Options(false, true, true);

    /** The options a request's {@link #PARAMS} set, starting from {@code dflt}. */
    static Options of(ApiRequest r, Options dflt) {
      boolean expand = dflt.expandWildcards;
      String ew = r.param("expand_wildcards");
      if (ew != null) {
        Set<String> values = EsParams.list(ew, "expand_wildcards");
        for (String v : values) {
          if (!EXPAND.contains(v)) {
            throw EsParams.bad(
                "expand_wildcards [" + Text.quote(v) + "] is not one of " + new TreeSet<>(EXPAND));
          }
        }
        expand = !values.equals(Set.of("none")) && !values.equals(Set.of("closed"));
      }
      return new Options(
          EsParams.bool(r, "ignore_unavailable", dflt.ignoreUnavailable),
          EsParams.bool(r, "allow_no_indices", dflt.allowNoIndices),
          expand);
    }
  }

  private IndexExpression() {}

  /** Whether {@code expression} names indexes by pattern or list rather than one name. */
  static boolean isMulti(String expression) {
    return expression.equals("_all")
        || expression.indexOf('*') >= 0
        || expression.indexOf(',') >= 0;
  }

  /**
   * The names {@code expression} stands for, sorted.
   *
   * @param expression the path's index part; {@code _all}, {@code *} or empty for all
   * @param names the indexes the server holds
   * @throws ApiException 404 {@code index_not_found_exception} as the class comment says
   */
  static List<String> resolve(String expression, List<String> names, Options options) {
    TreeSet<String> out = new TreeSet<>();
    if (expression.isEmpty() || expression.equals("_all")) {
      out.addAll(names);
      return noneCheck(new ArrayList<>(out), expression, options);
    }
    boolean sawWildcard = false;
    for (String part : EsParams.list(expression, "index expression")) {
      if (part.startsWith("-") && sawWildcard) {
        String pattern = part.substring(1);
        out.removeIf(n -> matches(pattern, n));
      } else if (part.indexOf('*') >= 0) {
        sawWildcard = true;
        if (options.expandWildcards()) {
          for (String n : names) {
            if (matches(part, n)) {
              out.add(n);
            }
          }
        }
      } else if (names.contains(part)) {
        out.add(part);
      } else if (!options.ignoreUnavailable()) {
        throw notFound(part);
      }
    }
    return noneCheck(new ArrayList<>(out), expression, options);
  }

  private static List<String> noneCheck(List<String> out, String expression, Options options) {
    if (out.isEmpty() && !options.allowNoIndices()) {
      throw notFound(expression.isEmpty() ? "_all" : expression);
    }
    return out;
  }

  static ApiException notFound(String name) {
    return new ApiException(
        404, "index_not_found_exception", "no such index [" + Text.quote(name) + "]");
  }

  /**
   * Whether {@code name} matches the glob {@code pattern}, whose only special character is {@code
   * *} (any run of characters). A pattern without a leading dot does not match a name with one, as
   * Elasticsearch hides dot-prefixed indexes from {@code *}. The two-pointer walk that backtracks
   * only to the last {@code *}: no recursion and at most the product of the two lengths in steps,
   * both bounded by the request line.
   */
  static boolean matches(String pattern, String name) {
    return (pattern.startsWith(".") || !name.startsWith(".")) && glob(pattern, name);
  }

  /** Whether {@code name} matches the glob {@code pattern}, {@code *} matching any run. */
  static boolean glob(String pattern, String name) {
    int p = 0;
    int n = 0;
    int star = -1;
    int mark = 0;
    while (n < name.length()) {
      if (p < pattern.length() && pattern.charAt(p) == '*') {
        star = p++;
        mark = n;
      } else if (p < pattern.length() && pattern.charAt(p) == name.charAt(n)) {
        p++;
        n++;
      } else if (star >= 0) {
        p = star + 1;
        n = ++mark;
      } else {
        return false;
      }
    }
    while (p < pattern.length() && pattern.charAt(p) == '*') {
      p++;
    }
    return p == pattern.length();
  }
}
