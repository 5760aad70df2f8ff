package org.searchlab.server;

import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.AttributeKey;

/**
 * What the {@link ConnectionGuard} of a connection knows about its requests: since when the next
 * request has been arriving, when the connection last did anything, and how many requests are being
 * answered. The dispatchers of the connection (one for HTTP/1.1, one per HTTP/2 stream) report to
 * it. Not thread-safe: touched only on the connection's event loop, which its HTTP/2 streams share.
 */
final class ConnectionState {
  private static final AttributeKey<ConnectionState> KEY =
      AttributeKey.valueOf(ConnectionState.class, "state");

  /** When the first byte of a request not yet complete arrived; -1 when none is arriving. */
  long receivingSince = -1;

  /** The last read or answer, in {@link System#nanoTime()}. */
  long lastActivity = System.nanoTime();

  /** Requests received whose answers are not yet written. */
  int inFlight;

  /** The state of the connection {@code ch} belongs to (its parent for an HTTP/2 stream). */
  static ConnectionState of(Channel ch) {
    Channel c = ch instanceof Http2StreamChannel ? ch.parent() : ch;
    ConnectionState s = c.attr(KEY).get();
    if (s == null) {
      s = new ConnectionState();
      c.attr(KEY).set(s);
    }
    return s;
  }

  /** A whole request arrived and will be answered. */
  void requestArrived() {
    receivingSince = -1;
    inFlight++;
    lastActivity = System.nanoTime();
  }

  /** A request's answer was written. */
  void answered() {
    inFlight--;
    lastActivity = System.nanoTime();
  }
}
