package org.searchlab.server;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * An HTTP API in front of the one service layer: it translates requests into core records, calls
 * {@link org.searchlab.server.service.SearchService}, and renders the answer in its own shapes. It
 * holds no search logic. Implementations are thread-safe and stateless apart from the service.
 */
public interface Dialect {
  /** The executor a request runs on. */
  enum Work {
    /** Trivial and non-blocking: answered on the event loop. */
    INLINE,
    /** Searches, gets and stats: the search executor. */
    SEARCH,
    /** Writes and admin calls: the write executor. */
    WRITE
  }

  /** The dialect's metrics label ({@code es}, {@code vespa}, {@code ops}). */
  String name();

  /** Whether this dialect answers requests to {@code path}. */
  boolean owns(String path);

  /**
   * The media types this dialect's answers come in, most preferred first; a request whose {@code
   * Accept} allows none of them is refused with 406 ({@link AcceptHeader}). By default JSON only.
   */
  default List<String> mediaTypes() {
    return List.of(ApiResponse.JSON);
  }

  /** Which executor should run the request; must be cheap (called on the event loop). */
  Work work(ApiRequest request);

  /**
   * Answers the request. Bad input throws {@link org.searchlab.core.InvalidRequestException}; the
   * dispatcher turns it into a 400 through {@link #error}.
   */
  ApiResponse handle(ApiRequest request) throws IOException;

  /**
   * {@link #handle} for a dispatcher that need not wait: the future completes with the answer, or
   * fails with what {@code handle} would throw. Everything read from the request (its body) is read
   * before this returns. By default the synchronous answer.
   */
  default CompletableFuture<ApiResponse> handleAsync(ApiRequest request) throws IOException {
    return CompletableFuture.completedFuture(handle(request));
  }

  /**
   * An error in this dialect's shape.
   *
   * @param request the request, whose path may shape the error
   * @param status the HTTP status, 4xx or 5xx
   * @param type a short machine-readable error type
   * @param reason a human-readable message naming the bad value and the limit
   */
  ApiResponse error(ApiRequest request, int status, String type, String reason);
}
