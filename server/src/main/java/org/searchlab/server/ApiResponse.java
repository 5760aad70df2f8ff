package org.searchlab.server;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One HTTP response from a dialect, with the labels the request timer uses. Immutable by convention
 * (the body array is not copied).
 *
 * @param status the HTTP status
 * @param contentType the {@code Content-Type}
 * @param body the body bytes
 * @param headers extra headers
 * @param endpoint the metrics label of the endpoint ({@code _search}, {@code document}, ...)
 * @param queryType the metrics label of the query type ({@code lexical}, {@code vector}, {@code
 *     hybrid}, {@code unranked}, or {@code none} for requests that are not searches)
 */
public record ApiResponse(
    int status,
    String contentType,
    byte[] body,
    Map<String, String> headers,
    String endpoint,
    String queryType) {

  public static final String JSON = "application/json";

  public ApiResponse {
    headers = Map.copyOf(headers);
  }

  public static ApiResponse json(int status, byte[] body) {
    return new ApiResponse(status, JSON, body, Map.of(), "unknown", "none");
  }

  public static ApiResponse text(int status, String contentType, byte[] body) {
    return new ApiResponse(status, contentType, body, Map.of(), "unknown", "none");
  }

  /** This response labelled for the request timer. */
  public ApiResponse tagged(String endpointLabel, String queryTypeLabel) {
    return new ApiResponse(status, contentType, body, headers, endpointLabel, queryTypeLabel);
  }

  /** This response with one more header. */
  public ApiResponse withHeader(String name, String value) {
    Map<String, String> h = new LinkedHashMap<>(headers);
    h.put(name, value);
    return new ApiResponse(status, contentType, body, h, endpoint, queryType);
  }
}
