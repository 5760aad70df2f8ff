package org.searchlab.server;

import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.util.AsciiString;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Builds a connection's pipeline, and nothing else. A connection starts as HTTP/1.1 and becomes
 * HTTP/2 when its first bytes are the HTTP/2 preface (h2c with prior knowledge, what the Vespa feed
 * client sends) or when it asks for {@code Upgrade: h2c}; Netty's {@link
 * CleartextHttp2ServerUpgradeHandler} decides.
 *
 * <pre>
 * HTTP/1.1: guard → codec → aggregator (body limit, 413) → dispatcher
 * HTTP/2:   guard → frame codec → multiplexer → per stream: frame↔HTTP codec → aggregator → dispatcher
 * </pre>
 *
 * <p>The guard ({@link ConnectionGuard}) holds the connection limit and the timeouts. Compressed
 * bodies are inflated by the dispatcher's executor thread ({@link BodyDecoder}), not here on the
 * event loop; the body limit applies to the compressed size here and to the inflated size there.
 *
 * <p>Sharable: holds the immutable {@link Routing} and the atomic connection count; every handler
 * it adds is new per channel.
 */
final class HttpServerInitializer extends ChannelInitializer<SocketChannel> {
  private static final String GUARD = "connection-guard";

  /** Netty's own bound on decoded, unanswered HTTP/1.1 requests; see {@link #initChannel}. */
  private static final int CODEC_PIPELINE_DEPTH = 1 << 20;

  private static final String AGGREGATOR = "aggregator";
  private static final String DISPATCHER = "dispatcher";

  private final Routing routing;
  private final ServerLimits limits;

  /** Open connections, for {@link ServerLimits#maxConnections()}. */
  private final AtomicInteger open = new AtomicInteger();

  HttpServerInitializer(Routing routing) {
    this.routing = routing;
    this.limits = routing.config().limits();
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    // Netty's codec fails a connection with more than its pipeline depth of requests decoded but
    // unanswered. The dispatcher already bounds that by pausing reads at maxPipelinedRequests; one
    // socket read of tiny requests may still decode more than that at once, so the codec's bound
    // is set far above what one read can carry rather than turning that into a reset.
    HttpServerCodec codec =
        new HttpServerCodec(
            new HttpDecoderConfig()
                .setMaxInitialLineLength(limits.maxInitialLineLength())
                .setMaxHeaderSize(limits.maxHeaderSize()),
            CODEC_PIPELINE_DEPTH);
    HttpServerUpgradeHandler upgrade =
        new HttpServerUpgradeHandler(
            codec,
            protocol ->
                AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol)
                    ? new Http2ServerUpgradeCodec(frameCodec(), multiplexer())
                    : null,
            limits.maxHeaderSize());
    ChannelPipeline p = ch.pipeline();
    p.addLast(GUARD, new ConnectionGuard(routing, open));
    p.addLast(new CleartextHttp2ServerUpgradeHandler(codec, upgrade, new PriorKnowledge()));
    p.addLast(AGGREGATOR, new BodyLimitAggregator(routing));
    p.addLast(DISPATCHER, new RequestDispatcher(routing));
  }

  /**
   * The HTTP/2 codec with the stream limit, and a header list limit equal to HTTP/1.1's request
   * line plus headers (the path travels as a header), so both versions take the same requests.
   */
  private Http2FrameCodec frameCodec() {
    Http2Settings settings =
        Http2Settings.defaultSettings()
            .maxConcurrentStreams(limits.maxConcurrentStreams())
            .maxHeaderListSize(limits.maxHeaderListSize());
    return Http2FrameCodecBuilder.forServer().initialSettings(settings).build();
  }

  private Http2MultiplexHandler multiplexer() {
    ChannelInitializer<Http2StreamChannel> stream =
        new ChannelInitializer<>() {
          @Override
          protected void initChannel(Http2StreamChannel ch) {
            ch.pipeline()
                .addLast(new Http2StreamFrameToHttpObjectCodec(true))
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
      p.remove(AGGREGATOR);
      p.remove(DISPATCHER);
      p.remove(this);
    }
  }
}
