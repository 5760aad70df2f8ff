package org.searchlab.server;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import java.net.URI;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;

/**
 * The checks every request passes before a dialect sees it, in the order Elasticsearch's security
 * applies its own: the {@code Host} header, the credential, the media types, and the browser's
 * cross-site markers. It exists because a server on {@code localhost} is reachable from every web
 * page the operator opens: a page may send "simple" requests (form-encoded, {@code text/plain} or
 * typeless bodies, no preflight), and with DNS rebinding a hostile name may resolve to {@code
 * 127.0.0.1}. Stateless and thread-safe; cheap enough for the event loop.
 *
 * <ol>
 *   <li>{@code Host} (HTTP/2: {@code :authority}) must be {@code localhost} or a {@code
 *       *.localhost} name, an IP literal, the bound host, or a configured name: 403 otherwise. An
 *       IP literal cannot be rebound, so it is always safe.
 *   <li>With credentials configured, every path but {@code /health} needs {@code Authorization:
 *       ApiKey|Basic base64(id:secret)}: 401 with {@code WWW-Authenticate} otherwise.
 *   <li>A body must be declared {@code application/json} (or {@code
 *       application/vnd.elasticsearch+json}; {@code application/x-ndjson} for {@code _bulk} and
 *       {@code _msearch}): 415 otherwise, so no form or text body a web page can send is read as
 *       JSON. A body-less request that names a form or text type (an empty HTML form: the types a
 *       page sends without a CORS preflight) is refused the same way; one naming another type has
 *       nothing to read and could only come from a page after a preflight this server never grants,
 *       so it is answered (Rally's HTTP client, aiohttp, sends {@code application/octet-stream} on
 *       every body-less POST, such as {@code _refresh} and {@code _forcemerge}).
 *   <li>{@code Accept} must allow a type the dialect answers ({@link Dialect#mediaTypes()}: JSON,
 *       and CBOR for Vespa's routes), with the qualities and order {@link AcceptHeader} reads: 406
 *       otherwise.
 *   <li>A state-changing method ({@code POST}, {@code PUT}, {@code DELETE}, {@code PATCH}) marked
 *       cross-site by the browser ({@code Sec-Fetch-Site: cross-site|same-site}, or an {@code
 *       Origin} whose host fails rule 1) is 403.
 * </ol>
 */
final class RequestGuard {
  /** The challenge of a 401: both schemes this server accepts. */
  static final String CHALLENGE = "ApiKey, Basic realm=\"searchlab\", charset=\"UTF-8\"";

  private final ServerSecurity security;
  private final String boundHost;

  RequestGuard(ServerConfig config) {
    this.security = config.security();
    this.boundHost = stripBrackets(config.host().toLowerCase(Locale.ROOT));
  }

  /** The refusal of {@code r} in {@code dialect}'s shape, or empty when it may proceed. */
  Optional<ApiResponse> check(ApiRequest r, Dialect dialect) {
    String host = r.headers().get(HttpHeaderNames.HOST);
    if (host != null && !hostAllowed(hostOf(host))) {
      return Optional.of(
          dialect.error(
              r,
              403,
              "security_exception",
              "Host ["
                  + Text.quote(host)
                  + "] is not allowed; the server answers localhost, IP addresses, "
                  + boundHost
                  + " and the names given with --allowed-host"));
    }
    if (security.authenticates() && !isHealth(r.path()) && !authenticated(r)) {
      return Optional.of(
          dialect
              .error(
                  r,
                  401,
                  "security_exception",
                  "missing or wrong credentials for ["
                      + Text.quote(r.path())
                      + "]; send"
                      + " Authorization: ApiKey base64(id:secret) or Basic")
              .withHeader(HttpHeaderNames.WWW_AUTHENTICATE.toString(), CHALLENGE));
    }
    String contentType = r.headers().get(HttpHeaderNames.CONTENT_TYPE);
    boolean readsNothing = r.method().equals(HttpMethod.GET) || r.method().equals(HttpMethod.HEAD);
    if ((r.hasBody() || contentType != null && !readsNothing && corsSafelisted(contentType))
        && !jsonContent(contentType, ndjson(r.path()))) {
      return Optional.of(
          dialect.error(
              r,
              415,
              "media_type_header_exception",
              (contentType == null
                      ? "a request body needs a Content-Type"
                      : "Content-Type [" + Text.quote(contentType) + "] is not supported")
                  + "; use application/json"
                  + (ndjson(r.path()) ? " or application/x-ndjson" : "")));
    }
    String accept = r.headers().get(HttpHeaderNames.ACCEPT);
    if (accept != null && AcceptHeader.choose(accept, dialect.mediaTypes()).isEmpty()) {
      return Optional.of(
          dialect.error(
              r,
              406,
              "media_type_header_exception",
              "Accept ["
                  + Text.quote(accept)
                  + "] allows no type this server answers here; accept "
                  + String.join(" or ", dialect.mediaTypes())));
    }
    if (!readsNothing && crossSite(r)) {
      return Optional.of(
          dialect.error(
              r,
              403,
              "security_exception",
              "a cross-site browser request may not change anything (Origin ["
                  + Text.quote(String.valueOf(r.headers().get(HttpHeaderNames.ORIGIN)))
                  + "])"));
    }
    return Optional.empty();
  }

  private static boolean isHealth(String path) {
    return path.equals("/health") || path.equals("/health/");
  }

  private boolean authenticated(ApiRequest r) {
    String auth = r.headers().get(HttpHeaderNames.AUTHORIZATION);
    if (auth == null) {
      return false;
    }
    int space = auth.indexOf(' ');
    if (space < 0) {
      return false;
    }
    String scheme = auth.substring(0, space);
    if (!scheme.equalsIgnoreCase("ApiKey") && !scheme.equalsIgnoreCase("Basic")) {
      return false;
    }
    byte[] decoded;
    try {
      decoded = Base64.getDecoder().decode(auth.substring(space + 1).trim());
    } catch (IllegalArgumentException e) {
      return false;
    }
    return security.accepts(decoded);
  }

  /**
   * Whether a page may send {@code contentType} without a CORS preflight (the Fetch standard's
   * safelisted request {@code Content-Type}s: a form or plain text).
   */
  private static boolean corsSafelisted(String contentType) {
    String type = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return type.equals("application/x-www-form-urlencoded")
        || type.equals("multipart/form-data")
        || type.equals("text/plain");
  }

  /** Whether the path takes NDJSON: {@code _bulk} and {@code _msearch}, at the root or an index. */
  private static boolean ndjson(String path) {
    return path.endsWith("/_bulk") || path.endsWith("/_msearch");
  }

  private static boolean jsonContent(String contentType, boolean bulk) {
    if (contentType == null) {
      return false;
    }
    String type = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return switch (type) {
      case "application/json", "application/vnd.elasticsearch+json" -> true;
      case "application/x-ndjson", "application/vnd.elasticsearch+x-ndjson" -> bulk;
      default -> false;
    };
  }

  private boolean crossSite(ApiRequest r) {
    String site = r.headers().get("Sec-Fetch-Site");
    if (site != null) {
      String s = site.trim().toLowerCase(Locale.ROOT);
      if (s.equals("cross-site") || s.equals("same-site")) {
        return true;
      }
    }
    String origin = r.headers().get(HttpHeaderNames.ORIGIN);
    if (origin == null) {
      return false;
    }
    try {
      String h = new URI(origin.trim()).getHost();
      return h == null || !hostAllowed(stripBrackets(h.toLowerCase(Locale.ROOT)));
    } catch (java.net.URISyntaxException e) {
      return true; // "null" (sandboxed pages, file:) and garbage are foreign
    }
  }

  /** The host part of a {@code Host} header, lower-case, without port or IPv6 brackets. */
  static String hostOf(String hostHeader) {
    String h = hostHeader.trim().toLowerCase(Locale.ROOT);
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      return end < 0 ? h : h.substring(1, end);
    }
    int colon = h.indexOf(':');
    return colon >= 0 && h.indexOf(':', colon + 1) < 0 ? h.substring(0, colon) : h;
  }

  private boolean hostAllowed(String h) {
    if (h.equals("localhost") || h.endsWith(".localhost") || h.equals(boundHost)) {
      return true;
    }
    if (security.allowedHosts().contains("*") || security.allowedHosts().contains(h)) {
      return true;
    }
    return isIpLiteral(h);
  }

  private static String stripBrackets(String h) {
    return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
  }

  /** A dotted IPv4 quad or an IPv6 literal; never resolves a name. */
  static boolean isIpLiteral(String h) {
    if (h.indexOf(':') >= 0) {
      return h.chars().allMatch(c -> c == ':' || c == '.' || Character.digit(c, 16) >= 0);
    }
    String[] parts = h.split("\\.", -1);
    if (parts.length != 4) {
      return false;
    }
    for (String p : parts) {
      if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
        return false;
      }
      if (Integer.parseInt(p) > 255) {
        return false;
      }
    }
    return true;
  }
}
