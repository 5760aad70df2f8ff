package org.searchlab.server;

import java.time.Duration;
import org.searchlab.core.InvalidRequestException;

/**
 * The named bounds a {@link SearchServer} holds every connection and request to, so that no input
 * can make it buffer, parse or wait without limit. Immutable; build one with {@link #builder()} or
 * {@link #toBuilder()}. Each limit's refusal names it and its value, in the dialect's error shape.
 *
 * @param maxInitialLineLength longest HTTP/1.1 request line in bytes, 1 KB to 1 MB; longer is 414.
 *     A Vespa {@code GET /search/} carries a 384-d query vector in the URL, about 8 KB encoded
 * @param maxHeaderSize largest HTTP/1.1 header block in bytes, 1 KB to 1 MB; larger is 431
 * @param maxConcurrentStreams HTTP/2 streams a connection may have open at once, 1 to 65,536
 *     ({@code SETTINGS_MAX_CONCURRENT_STREAMS}); the feed client opens up to 128 per connection
 * @param maxPipelinedRequests HTTP/1.1 requests read ahead of the one being answered on a
 *     connection, 1 to 65,536; at the limit the server stops reading that connection until it has
 *     answered (back-pressure, not an error)
 * @param maxConnections open client connections, 1 to 1,000,000; one more is answered 503 and
 *     closed
 * @param requestReadTimeout how long a request may take to arrive whole once its first byte came
 *     (slow clients), 1 ms to 1 h; then 408 and the connection closes
 * @param idleTimeout how long a connection may sit with no request arriving or running, 1 ms to 1
 *     day; then it closes
 * @param requestTimeout how long a request may wait in an executor's queue, 1 ms to 1 h; one that
 *     waited longer is answered 503 without running (nothing applied). A running request is never
 *     cut short: a write's answer must say what was applied
 * @param responseBufferBytes bytes of answers a connection may have queued unread before the server
 *     stops reading its requests, 64 KB to 1 GB (Netty's write-buffer high-water mark)
 * @param maxYqlLength longest YQL statement in characters, 1 to 1 MB
 * @param maxQueryDepth deepest nesting of a YQL expression or of Elasticsearch compound queries
 *     ({@code bool}, {@code constant_score}, {@code dis_max}, {@code script_score}), 1 to 1,000
 *     (Elasticsearch's {@code indices.query.bool.max_nested_depth} is 30)
 */
public record ServerLimits(
    int maxInitialLineLength,
    int maxHeaderSize,
    int maxConcurrentStreams,
    int maxPipelinedRequests,
    int maxConnections,
    Duration requestReadTimeout,
    Duration idleTimeout,
    Duration requestTimeout,
    int responseBufferBytes,
    int maxYqlLength,
    int maxQueryDepth) {

  public static final ServerLimits DEFAULT =
      new ServerLimits(
          64 * 1024,
          64 * 1024,
          256,
          128,
          10_000,
          Duration.ofSeconds(60),
          Duration.ofMinutes(5),
          Duration.ofSeconds(60),
          4 * 1024 * 1024,
          64 * 1024,
          30);

  public ServerLimits {
    check("max initial line length", maxInitialLineLength, 1024, 1 << 20);
    check("max header size", maxHeaderSize, 1024, 1 << 20);
    check("max concurrent streams", maxConcurrentStreams, 1, 65_536);
    check("max pipelined requests", maxPipelinedRequests, 1, 65_536);
    check("max connections", maxConnections, 1, 1_000_000);
    check("request read timeout", requestReadTimeout, Duration.ofHours(1));
    check("idle timeout", idleTimeout, Duration.ofDays(1));
    check("request timeout", requestTimeout, Duration.ofHours(1));
    check("response buffer bytes", responseBufferBytes, 64 * 1024, 1 << 30);
    check("max yql length", maxYqlLength, 1, 1 << 20);
    check("max query depth", maxQueryDepth, 1, 1000);
  }

  /**
   * The HTTP/2 header list size that matches HTTP/1.1: the request line travels as the {@code
   * :path} pseudo-header, so both limits together.
   */
  public int maxHeaderListSize() {
    return maxInitialLineLength + maxHeaderSize;
  }

  private static void check(String what, int v, int min, int max) {
    if (v < min || v > max) {
      throw new InvalidRequestException(what + " " + v + " is outside [" + min + ", " + max + "]");
    }
  }

  private static void check(String what, Duration d, Duration max) {
    if (d == null || d.toMillis() < 1 || d.compareTo(max) > 0) {
      throw new InvalidRequestException(what + " " + d + " is outside [1 ms, " + max + "]");
    }
  }

  /** A builder starting from {@link #DEFAULT}. */
  public static Builder builder() {
    return DEFAULT.toBuilder();
  }

  /** A builder preloaded with these limits. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.maxInitialLineLength = maxInitialLineLength;
    b.maxHeaderSize = maxHeaderSize;
    b.maxConcurrentStreams = maxConcurrentStreams;
    b.maxPipelinedRequests = maxPipelinedRequests;
    b.maxConnections = maxConnections;
    b.requestReadTimeout = requestReadTimeout;
    b.idleTimeout = idleTimeout;
    b.requestTimeout = requestTimeout;
    b.responseBufferBytes = responseBufferBytes;
    b.maxYqlLength = maxYqlLength;
    b.maxQueryDepth = maxQueryDepth;
    return b;
  }

  /** Builds {@link ServerLimits}; {@link #build()} validates. Not thread-safe. */
  public static final class Builder {
    private int maxInitialLineLength;
    private int maxHeaderSize;
    private int maxConcurrentStreams;
    private int maxPipelinedRequests;
    private int maxConnections;
    private Duration requestReadTimeout;
    private Duration idleTimeout;
    private Duration requestTimeout;
    private int responseBufferBytes;
    private int maxYqlLength;
    private int maxQueryDepth;

    private Builder() {}

    public Builder maxInitialLineLength(int v) {
      maxInitialLineLength = v;
      return this;
    }

    public Builder maxHeaderSize(int v) {
      maxHeaderSize = v;
      return this;
    }

    public Builder maxConcurrentStreams(int v) {
      maxConcurrentStreams = v;
      return this;
    }

    public Builder maxPipelinedRequests(int v) {
      maxPipelinedRequests = v;
      return this;
    }

    public Builder maxConnections(int v) {
      maxConnections = v;
      return this;
    }

    public Builder requestReadTimeout(Duration v) {
      requestReadTimeout = v;
      return this;
    }

    public Builder idleTimeout(Duration v) {
      idleTimeout = v;
      return this;
    }

    public Builder requestTimeout(Duration v) {
      requestTimeout = v;
      return this;
    }

    public Builder responseBufferBytes(int v) {
      responseBufferBytes = v;
      return this;
    }

    public Builder maxYqlLength(int v) {
      maxYqlLength = v;
      return this;
    }

    public Builder maxQueryDepth(int v) {
      maxQueryDepth = v;
      return this;
    }

    public ServerLimits build() {
      return new ServerLimits(
          maxInitialLineLength,
          maxHeaderSize,
          maxConcurrentStreams,
          maxPipelinedRequests,
          maxConnections,
          requestReadTimeout,
          idleTimeout,
          requestTimeout,
          responseBufferBytes,
          maxYqlLength,
          maxQueryDepth);
    }
  }
}
