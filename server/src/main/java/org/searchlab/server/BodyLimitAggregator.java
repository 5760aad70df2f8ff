package org.searchlab.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;

/**
 * Netty's {@link HttpObjectAggregator} with the server's body limit, answering a body above it with
 * a 413 in the dialect's error shape (Netty's own answer has no body) and closing the connection or
 * stream, since the rest of the body is not worth reading. One instance per channel; not {@code
 * Sharable}.
 */
final class BodyLimitAggregator extends HttpObjectAggregator {
  private final Routing routing;

  BodyLimitAggregator(Routing routing) {
    super(routing.config().maxContentLength());
    this.routing = routing;
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    if (oversized instanceof HttpRequest request) {
      ResponseWriter.tooLarge(ctx, request, routing);
    } else {
      ctx.close();
    }
  }
}
