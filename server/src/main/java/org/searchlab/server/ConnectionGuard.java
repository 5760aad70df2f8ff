package org.searchlab.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The first handler of every connection, below HTTP: it enforces the connection count, the time a
 * request may take to arrive ({@link ServerLimits#requestReadTimeout()}, against clients that send
 * a byte now and then), the idle timeout, and, once the connection speaks HTTP/2, response
 * back-pressure (it stops reading while the socket's outbound buffer is above its high-water mark;
 * the HTTP/1.1 dispatcher does that itself). It sees raw bytes, so it counts half a request line
 * too.
 *
 * <p>Refusals it writes itself, as raw HTTP/1.1 bytes with {@code Connection: close}: 503 when over
 * the connection limit (before reading anything), 408 when a request is too slow to arrive.
 *
 * <p>Not sharable: one per connection. Everything runs on the connection's event loop, including
 * the periodic check.
 */
final class ConnectionGuard extends ChannelDuplexHandler {
  private final Routing routing;
  private final AtomicInteger open;
  private ScheduledFuture<?> timer;
  private boolean counted;

  ConnectionGuard(Routing routing, AtomicInteger open) {
    this.routing = routing;
    this.open = open;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    ServerLimits limits = routing.config().limits();
    counted = true;
    if (open.incrementAndGet() > limits.maxConnections()) {
      routing.metrics().refused("too_many_connections");
      ctx.channel().config().setAutoRead(false);
      refuse(
          ctx,
          503,
          "Service Unavailable",
          "too many open connections (the limit is " + limits.maxConnections() + ")");
      return;
    }
    long every =
        Math.max(
            10,
            Math.min(limits.requestReadTimeout().toMillis(), limits.idleTimeout().toMillis()) / 4);
    timer =
        ctx.executor().scheduleAtFixedRate(() -> check(ctx), every, every, TimeUnit.MILLISECONDS);
    super.channelActive(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (timer != null) {
      timer.cancel(false);
    }
    if (counted) {
      counted = false;
      open.decrementAndGet();
    }
    super.channelInactive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    ConnectionState s = ConnectionState.of(ctx.channel());
    long now = System.nanoTime();
    s.lastActivity = now;
    if (s.receivingSince < 0 && msg instanceof ByteBuf b && b.isReadable()) {
      s.receivingSince = now;
    }
    super.channelRead(ctx, msg);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    if (http2(ctx)) {
      ctx.channel().config().setAutoRead(ctx.channel().isWritable());
    }
    super.channelWritabilityChanged(ctx);
  }

  private static boolean http2(ChannelHandlerContext ctx) {
    return ctx.pipeline().get(Http2FrameCodec.class) != null;
  }

  private void check(ChannelHandlerContext ctx) {
    if (!ctx.channel().isActive()) {
      return;
    }
    ServerLimits limits = routing.config().limits();
    ConnectionState s = ConnectionState.of(ctx.channel());
    long now = System.nanoTime();
    boolean h2 = http2(ctx);
    if (s.receivingSince >= 0 && (s.inFlight > 0 || !ctx.channel().config().isAutoRead())) {
      // The server is answering or has paused reading (back-pressure): the next request is not
      // late by the client's fault, so its clock starts again once the server is ready for it.
      s.receivingSince = now;
    }
    if (!h2
        && s.receivingSince >= 0
        && now - s.receivingSince > limits.requestReadTimeout().toNanos()) {
      routing.metrics().refused("read_timeout");
      refuse(
          ctx,
          408,
          "Request Timeout",
          "the request did not arrive whole within "
              + limits.requestReadTimeout().toMillis()
              + " ms (the request read timeout)");
      return;
    }
    boolean quiet = s.inFlight == 0 && (h2 || s.receivingSince < 0);
    if (quiet && now - s.lastActivity > limits.idleTimeout().toNanos()) {
      routing.metrics().refused("idle_timeout");
      ctx.close();
    }
  }

  /** Writes a raw HTTP/1.1 error with an Elasticsearch-shaped body, then closes. */
  private static void refuse(ChannelHandlerContext ctx, int status, String phrase, String reason) {
    String body =
        "{\"error\":{\"type\":\"http_exception\",\"reason\":\""
            + reason.replace("\"", "'")
            + "\"},\"status\":"
            + status
            + "}";
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    String head =
        "HTTP/1.1 "
            + status
            + " "
            + phrase
            + "\r\nContent-Type: application/json\r\nContent-Length: "
            + b.length
            + "\r\nConnection: close\r\n\r\n";
    ctx.writeAndFlush(Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.US_ASCII), b))
        .addListener(ChannelFutureListener.CLOSE);
  }
}
