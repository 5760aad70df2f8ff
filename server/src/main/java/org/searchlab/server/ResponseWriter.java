package org.searchlab.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http2.Http2StreamChannel;
import java.util.Map;

/**
 * Turns an {@link ApiResponse} into a Netty response and writes it, with HTTP/1.1 keep-alive
 * handling (HTTP/2 streams carry no connection headers). Stateless; call from any thread (Netty's
 * {@code writeAndFlush} hands the write to the channel's event loop).
 */
final class ResponseWriter {
  private ResponseWriter() {}

  /**
   * Writes {@code response} to the request's channel.
   *
   * @param close whether to close the connection after the response even if the client asked to
   *     keep it alive
   * @return the write's future
   */
  static ChannelFuture write(
      ChannelHandlerContext ctx, HttpRequest request, ApiResponse response, boolean close) {
    boolean head = request.method().equals(HttpMethod.HEAD);
    FullHttpResponse r =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(response.status()),
            head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(response.body()));
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, response.contentType());
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.body().length);
    for (Map.Entry<String, String> h : response.headers().entrySet()) {
      r.headers().set(h.getKey(), h.getValue());
    }
    boolean h2 = ctx.channel() instanceof Http2StreamChannel;
    boolean keepAlive = !close && HttpUtil.isKeepAlive(request);
    if (!h2) {
      if (!keepAlive) {
        r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      } else if (request.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
        r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
      }
    }
    ChannelFuture f = ctx.writeAndFlush(r);
    if (!keepAlive) {
      f.addListener(ChannelFutureListener.CLOSE);
    }
    return f;
  }

  /**
   * Answers an oversized request with a 413 in the dialect's shape. With {@code closeNow} the
   * connection closes once the answer is written (the body already arrived whole); otherwise the
   * answer says {@code Connection: close} and the caller closes after the rest of the body has been
   * read and discarded, so a client still uploading reads the 413 instead of a broken pipe.
   */
  static void tooLarge(
      ChannelHandlerContext ctx, HttpRequest request, Routing routing, boolean closeNow) {
    long t0 = System.nanoTime();
    String path = pathOf(request.uri());
    Dialect dialect = routing.dialectFor(path);
    ApiRequest api =
        new ApiRequest(
            request.method(),
            path,
            Map.of(),
            new DefaultHttpHeaders().add(request.headers()),
            Unpooled.EMPTY_BUFFER);
    long declared = HttpUtil.getContentLength(request, -1L);
    ApiResponse resp =
        dialect.error(
            api,
            413,
            "content_too_long_exception",
            "request body "
                + (declared >= 0 ? "of " + declared + " bytes " : "")
                + "is larger than the limit of "
                + routing.config().maxContentLength()
                + " bytes (--max-content-length)");
    ServerLog.warn(
        "413 "
            + request.method()
            + " "
            + path
            + ": body above "
            + routing.config().maxContentLength());
    routing.metrics().request(dialect.name(), "oversized", "none", 413, System.nanoTime() - t0);
    if (ctx.channel() instanceof Http2StreamChannel) {
      write(ctx, request, resp, false); // the stream ends with the answer; no reset
    } else if (closeNow) {
      write(ctx, request, resp, true);
    } else {
      write(ctx, request, resp.withHeader(HttpHeaderNames.CONNECTION.toString(), "close"), false);
    }
  }

  /** The decoded path of a URI, or the raw URI if it cannot be decoded. */
  static String pathOf(String uri) {
    try {
      return new QueryStringDecoder(uri).path();
    } catch (IllegalArgumentException e) {
      return uri;
    }
  }
}
