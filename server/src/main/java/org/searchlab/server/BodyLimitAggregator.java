package org.searchlab.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2StreamChannel;

/**
 * Netty's {@link HttpObjectAggregator} with the server's body limit, answering a body above it with
 * a 413 in the dialect's error shape (Netty's own answer has no body). Over HTTP/1.1 the rest of
 * the body is read and discarded (the aggregator does not buffer it) and the connection closes
 * after its last chunk: closing earlier makes a client that is still uploading fail with a broken
 * pipe before it can read the 413. One instance per channel; not {@code Sharable}.
 */
final class BodyLimitAggregator extends HttpObjectAggregator {
  private final Routing routing;

  BodyLimitAggregator(Routing routing) {
    super(routing.config().maxContentLength());
    this.routing = routing;
  }

  /** Set after a 413 whose request body is still arriving; the connection closes after it. */
  private boolean closeAfterBody;

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    if (oversized instanceof HttpRequest request) {
      boolean whole = oversized instanceof FullHttpMessage;
      boolean h2 = ctx.channel() instanceof Http2StreamChannel;
      ResponseWriter.tooLarge(ctx, request, routing, whole);
      // An HTTP/2 stream is not closed: closing one the client still sends on resets it, and the
      // client never reads the 413. The aggregator discards the rest of its body.
      closeAfterBody = !whole && !h2;
    } else {
      ctx.close();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    boolean lastOfDiscarded = closeAfterBody && msg instanceof LastHttpContent;
    super.channelRead(ctx, msg);
    if (lastOfDiscarded) {
      closeAfterBody = false;
      ctx.close();
    }
  }
}
