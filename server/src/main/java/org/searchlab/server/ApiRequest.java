package org.searchlab.server;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.List;
import java.util.Map;
import org.searchlab.core.InvalidRequestException;

/**
 * One HTTP request as the dialects see it: method, decoded path, query parameters, headers and the
 * whole (already gzip-decoded) body. The body buffer belongs to the dispatcher, which releases it
 * after the dialect returns; a dialect must not keep it. Not thread-safe; used by one thread.
 *
 * @param method the HTTP method
 * @param path the decoded path without the query string
 * @param params the decoded query parameters
 * @param headers the request headers
 * @param body the request body, possibly empty
 * @param rawPath the path as sent, still percent-encoded, which {@link #segments} splits before it
 *     decodes each segment (so {@code /a%2Fb} is one segment {@code a/b}, as Elasticsearch reads an
 *     index name)
 */
public record ApiRequest(
    HttpMethod method,
    String path,
    Map<String, List<String>> params,
    HttpHeaders headers,
    ByteBuf body,
    String rawPath) {

  /** A request whose path was sent without percent-encoding. */
  public ApiRequest(
      HttpMethod method,
      String path,
      Map<String, List<String>> params,
      HttpHeaders headers,
      ByteBuf body) {
    this(method, path, params, headers, body, path);
  }

  /** The last value of a query parameter, or {@code null}. */
  public String param(String name) {
    List<String> values = params.get(name);
    return values == null || values.isEmpty() ? null : values.get(values.size() - 1);
  }

  /** An integer query parameter, or {@code dflt} when absent; 400 when not an integer. */
  public int intParam(String name, int dflt) {
    String v = param(name);
    if (v == null) {
      return dflt;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new InvalidRequestException(
          "parameter [" + name + "] is '" + v + "'; expected an integer");
    }
  }

  /** Whether the request carries a non-empty body. */
  public boolean hasBody() {
    return body.isReadable();
  }

  /** The path split on '/', without empty segments, each segment decoded. */
  public String[] segments() {
    if (rawPath.chars().allMatch(c -> c == '/')) {
      return new String[0];
    }
    String[] parts = rawPath.replaceAll("^/+", "").split("/+");
    for (int i = 0; i < parts.length; i++) {
      if (parts[i].indexOf('%') >= 0) {
        // A path's '+' is a plus, not a space (that is only in query strings and forms).
        parts[i] =
            io.netty.handler.codec.http.QueryStringDecoder.decodeComponent(
                parts[i].replace("+", "%2B"));
      }
    }
    return parts;
  }
}
