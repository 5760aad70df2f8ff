package org.searchlab.server.es;

import io.netty.handler.codec.http.HttpMethod;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.searchlab.server.ApiException;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.Text;

/**
 * Query parameters of the cluster-level routes read as Elasticsearch reads them: booleans ({@code
 * true}, {@code false}, or empty for true), time values ({@code 30s}, {@code 500ms}, {@code 1m}),
 * comma-separated lists, and a refusal of any parameter the route does not know. A bad value is a
 * 400 {@code illegal_argument_exception} naming the parameter and quoting at most {@link
 * Text#MAX_QUOTE} characters of the value. Stateless and thread-safe.
 */
final class EsParams {
  /** Parameters every route accepts: output formatting Elasticsearch applies everywhere. */
  static final Set<String> GLOBAL = Set.of("pretty", "human", "error_trace", "filter_path");

  /** The most items a comma-separated parameter may list. */
  static final int MAX_LIST = 256;

  private static final Pattern TIME = Pattern.compile("(\\d{1,12})(nanos|micros|ms|s|m|h|d)");

  private EsParams() {}

  static ApiException bad(String reason) {
    return new ApiException(400, "illegal_argument_exception", reason);
  }

  /** Refuses a parameter outside {@code allowed} and {@link #GLOBAL}, as Elasticsearch does. */
  static void allowOnly(ApiRequest r, Set<String> allowed) {
    for (String p : r.params().keySet()) {
      if (!allowed.contains(p) && !GLOBAL.contains(p)) {
        throw bad(
            "request ["
                + Text.quote(r.path())
                + "] contains unrecognized parameter: ["
                + Text.quote(p)
                + "]");
      }
    }
  }

  /** A boolean: {@code true}, {@code false}, or present without a value (true). */
  static boolean bool(ApiRequest r, String name, boolean dflt) {
    String v = r.param(name);
    if (v == null) {
      return dflt;
    }
    return switch (v) {
      case "", "true" -> true;
      case "false" -> false;
      default ->
          throw bad(
              "failed to parse value ["
                  + Text.quote(v)
                  + "] of parameter ["
                  + name
                  + "]: only [true] or [false] are allowed");
    };
  }

  /**
   * A time value: digits and a unit ({@code nanos}, {@code micros}, {@code ms}, {@code s}, {@code
   * m}, {@code h}, {@code d}), or {@code 0}; at most {@code max}.
   */
  static Duration time(ApiRequest r, String name, Duration dflt, Duration max) {
    String v = r.param(name);
    if (v == null) {
      return dflt;
    }
    Duration d = parseTime(v, name);
    if (d.compareTo(max) > 0) {
      throw bad(
          "parameter ["
              + name
              + "] is ["
              + Text.quote(v)
              + "], more than this server waits: at most "
              + max.toSeconds()
              + "s");
    }
    return d;
  }

  static Duration parseTime(String v, String name) {
    String t = v.trim().toLowerCase(Locale.ROOT);
    if (t.equals("0")) {
      return Duration.ZERO;
    }
    Matcher m = TIME.matcher(t);
    if (!m.matches()) {
      throw bad(
          "failed to parse setting ["
              + name
              + "] with value ["
              + Text.quote(v)
              + "] as a time value: expected digits and a unit (nanos, micros, ms, s, m, h, d)");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "nanos" -> Duration.ofNanos(n);
      case "micros" -> Duration.ofNanos(n * 1000);
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
  }

  /** One of {@code allowed}, or {@code dflt} when absent. */
  static String oneOf(ApiRequest r, String name, String dflt, Set<String> allowed) {
    String v = r.param(name);
    if (v == null) {
      return dflt;
    }
    if (!allowed.contains(v)) {
      throw bad(
          "parameter ["
              + name
              + "] is ["
              + Text.quote(v)
              + "]; expected one of "
              + new java.util.TreeSet<>(allowed));
    }
    return v;
  }

  /** A comma-separated list, each item non-empty, at most {@link #MAX_LIST} items. */
  static Set<String> list(String value, String what) {
    Set<String> out = new LinkedHashSet<>();
    for (String part : value.split(",", -1)) {
      String p = part.trim();
      if (p.isEmpty()) {
        throw bad(what + " [" + Text.quote(value) + "] has an empty item");
      }
      out.add(p);
      if (out.size() > MAX_LIST) {
        throw bad(what + " lists more than " + MAX_LIST + " items");
      }
    }
    return out;
  }

  /**
   * The metrics a path names, checked against {@code known}; {@code _all} stands for all of them.
   */
  static Set<String> metrics(ApiRequest r, String value, Set<String> known) {
    Set<String> asked = list(value, "metric list");
    if (asked.contains("_all")) {
      if (asked.size() > 1) {
        throw bad(
            "request ["
                + Text.quote(r.path())
                + "] contains _all and individual metrics ["
                + Text.quote(value)
                + "]");
      }
      return known;
    }
    for (String m : asked) {
      if (!known.contains(m)) {
        throw bad(
            "request ["
                + Text.quote(r.path())
                + "] contains unrecognized metric: ["
                + Text.quote(m)
                + "]; known: "
                + new java.util.TreeSet<>(known));
      }
    }
    return asked;
  }

  /** Refuses a method outside {@code allowed}: 405 naming the allowed ones, as Elasticsearch. */
  static void method(ApiRequest r, HttpMethod... allowed) {
    for (HttpMethod m : allowed) {
      if (m.equals(r.method())) {
        return;
      }
    }
    StringBuilder sb = new StringBuilder();
    for (HttpMethod m : allowed) {
      sb.append(sb.isEmpty() ? "" : ", ").append(m);
    }
    throw new ApiException(
        405,
        "method_not_allowed",
        "incorrect HTTP method for uri ["
            + Text.quote(r.path())
            + "] and method ["
            + r.method()
            + "], allowed: ["
            + sb
            + "]");
  }

  /** A path no route answers: Elasticsearch's 400 {@code no handler found}. */
  static ApiException unknownEndpoint(ApiRequest r) {
    return new ApiException(
        400,
        "illegal_argument_exception",
        "no handler found for uri [" + Text.quote(r.path()) + "] and method [" + r.method() + "]");
  }
}
