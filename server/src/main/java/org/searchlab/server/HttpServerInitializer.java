package org.searchlab.server;

import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpContentDecompressor;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.util.AsciiString;

/**
 * Builds a connection's pipeline, and nothing else. A connection starts as HTTP/1.1 and becomes
 * HTTP/2 when its first bytes are the HTTP/2 preface (h2c with prior knowledge, what the Vespa feed
 * client sends) or when it asks for {@code Upgrade: h2c}; Netty's {@link
 * CleartextHttp2ServerUpgradeHandler} decides.
 *
 * <pre>
 * HTTP/1.1: codec → gzip decoder → aggregator (body limit, 413) → dispatcher
 * HTTP/2:   frame codec → multiplexer → per stream: frame↔HTTP codec → gzip decoder → aggregator → dispatcher
 * </pre>
 *
 * <p>Sharable: holds only the immutable {@link Routing}; every handler it adds is new per channel.
 */
final class HttpServerInitializer extends ChannelInitializer<SocketChannel> {
  /**
   * Longest request line: a Vespa {@code GET /search/} carries a 384-d query vector in the URL,
   * about 8 KB once percent-encoded; Netty's default of 4 KB would refuse it.
   */
  static final int MAX_INITIAL_LINE = 64 * 1024;

  static final int MAX_HEADER_SIZE = 64 * 1024;

  private static final String GZIP = "gzip-decoder";
  private static final String AGGREGATOR = "aggregator";
  private static final String DISPATCHER = "dispatcher";

  private final Routing routing;

  HttpServerInitializer(Routing routing) {
    this.routing = routing;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    HttpServerCodec codec =
        new HttpServerCodec(
            new HttpDecoderConfig()
                .setMaxInitialLineLength(MAX_INITIAL_LINE)
                .setMaxHeaderSize(MAX_HEADER_SIZE));
    HttpServerUpgradeHandler upgrade =
        new HttpServerUpgradeHandler(
            codec,
            protocol ->
                AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol)
                    ? new Http2ServerUpgradeCodec(frameCodec(), multiplexer())
                    : null,
            MAX_HEADER_SIZE);
    ChannelPipeline p = ch.pipeline();
    p.addLast(new CleartextHttp2ServerUpgradeHandler(codec, upgrade, new PriorKnowledge()));
    p.addLast(GZIP, new HttpContentDecompressor(0));
    p.addLast(AGGREGATOR, new BodyLimitAggregator(routing));
    p.addLast(DISPATCHER, new RequestDispatcher(routing));
  }

  private static Http2FrameCodec frameCodec() {
    return Http2FrameCodecBuilder.forServer().build();
  }

  private Http2MultiplexHandler multiplexer() {
    ChannelInitializer<Http2StreamChannel> stream =
        new ChannelInitializer<>() {
          @Override
          protected void initChannel(Http2StreamChannel ch) {
            ch.pipeline()
                .addLast(new Http2StreamFrameToHttpObjectCodec(true))
                .addLast(GZIP, new HttpContentDecompressor(0))
                .addLast(AGGREGATOR, new BodyLimitAggregator(routing))
                .addLast(DISPATCHER, new RequestDispatcher(routing));
          }
        };
    return new Http2MultiplexHandler(stream, stream);
  }

  /**
   * Installed where the preface was seen: puts the HTTP/2 frame codec and the stream multiplexer in
   * its place and drops the HTTP/1.1 handlers, which would see nothing.
   */
  private final class PriorKnowledge extends ChannelHandlerAdapter {
    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      ChannelPipeline p = ctx.pipeline();
      // The multiplexer checks on being added that the frame codec is already before it.
      p.addAfter(ctx.name(), "h2-frame-codec", frameCodec());
      p.addAfter("h2-frame-codec", "h2-multiplexer", multiplexer());
      p.remove(GZIP);
      p.remove(AGGREGATOR);
      p.remove(DISPATCHER);
      p.remove(this);
    }
  }
}
