package org.searchlab.server;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Content negotiation: which of the media types a route can answer an {@code Accept} header
 * prefers. Stateless and thread-safe; cheap enough for the event loop.
 *
 * <p>The rules, after RFC 9110 section 12.5.1:
 *
 * <ol>
 *   <li>Each offered type takes the quality ({@code q}, 0 to 1, default 1) of the most specific
 *       range that matches it: {@code type/subtype} over {@code type/*} over {@code *}{@code /*}.
 *       {@code q=0} means "not this one". An unreadable {@code q} counts as 1, as before the server
 *       read qualities at all.
 *   <li>The highest quality wins; between equals, the type whose range the client listed first
 *       ({@code application/cbor, application/json} asks for CBOR); then the route's own order,
 *       JSON first ({@code *}{@code /*} gets JSON).
 *   <li>No offered type with a quality above 0: the caller answers 406.
 * </ol>
 *
 * <p>JSON keeps the leniency the server always had: besides {@code application/json} it answers
 * ranges of the Elasticsearch vendor types ({@code application/vnd.elasticsearch+*}), {@code
 * application/x-ndjson} and any {@code text/*} type (Prometheus scrapers ask for {@code
 * text/plain}, and a JSON body is text), each one step less specific than {@code application/json}
 * itself.
 */
public final class AcceptHeader {
  /** The CBOR media type (RFC 8949), which Vespa answers queries in when asked. */
  public static final String CBOR = "application/cbor";

  private AcceptHeader() {}

  /**
   * The type of {@code offered} that {@code accept} prefers, or empty when it allows none.
   *
   * @param accept the {@code Accept} header, or {@code null} (anything goes)
   * @param offered the types the route answers, most preferred first; not empty
   */
  public static Optional<String> choose(String accept, List<String> offered) {
    assert !offered.isEmpty() : "a route answers at least one media type";
    if (accept == null || accept.isBlank()) {
      return Optional.of(offered.get(0));
    }
    String[] ranges = accept.split(",");
    String best = null;
    double bestQ = 0;
    int bestPosition = Integer.MAX_VALUE;
    for (String type : offered) {
      int specificity = -1;
      double q = 0;
      int position = Integer.MAX_VALUE;
      for (int i = 0; i < ranges.length; i++) {
        String[] parts = ranges[i].split(";");
        String range = parts[0].trim().toLowerCase(Locale.ROOT);
        int s = specificity(range, type);
        if (s > specificity) {
          specificity = s;
          q = quality(parts);
          position = i;
        }
      }
      // Rule 2: strictly better quality, or equal quality listed earlier; the offer order breaks
      // the remaining ties because earlier offers are seen first.
      if (q > 0 && (q > bestQ || q == bestQ && position < bestPosition)) {
        best = type;
        bestQ = q;
        bestPosition = position;
      }
    }
    return Optional.ofNullable(best);
  }

  /**
   * How specifically {@code range} names {@code type}: 3 exact ... 0 {@code *}{@code /*}; -1 no.
   */
  private static int specificity(String range, String type) {
    if (range.equals(type)) {
      return 3;
    }
    if (type.equals(ApiResponse.JSON)
        && (range.equals("application/x-ndjson")
            || range.startsWith("application/vnd.elasticsearch+")
            || range.startsWith("text/") && !range.equals("text/*"))) {
      return 2;
    }
    int slash = type.indexOf('/');
    if (range.equals(type.substring(0, slash) + "/*")
        || type.equals(ApiResponse.JSON) && range.equals("text/*")) {
      return 1;
    }
    if (range.equals("*/*") || range.equals("*")) {
      return 0;
    }
    return -1;
  }

  /** The {@code q} parameter among a range's parameters, clamped to [0, 1]; 1 when absent. */
  private static double quality(String[] parts) {
    for (int i = 1; i < parts.length; i++) {
      String p = parts[i].trim();
      if (p.length() > 1 && (p.charAt(0) == 'q' || p.charAt(0) == 'Q')) {
        String rest = p.substring(1).trim();
        if (rest.startsWith("=")) {
          try {
            double q = Double.parseDouble(rest.substring(1).trim());
            return Double.isNaN(q) ? 1 : Math.max(0, Math.min(1, q));
          } catch (NumberFormatException e) {
            return 1; // rule 1: unreadable counts as 1
          }
        }
      }
    }
    return 1;
  }
}
