package org.searchlab.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.ArrayDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.searchlab.core.DocumentExistsException;
import org.searchlab.core.InvalidRequestException;

/**
 * The last handler of a pipeline: it picks the dialect for a request, runs it on the bounded
 * executor the dialect asks for (never blocking the event loop), and writes the answer. A full
 * queue is answered at once with 429 and {@code Retry-After}.
 *
 * <p>HTTP/1.1 allows pipelining, and responses must come back in request order, so a connection has
 * at most one request in flight: the others wait in {@link #pending} (bounded by what a client can
 * pipeline into the socket buffers). An HTTP/2 stream has its own dispatcher and carries one
 * request.
 *
 * <p>Thread safety: one instance per channel. {@link #pending} and {@link #busy} are touched only
 * on the channel's event loop; an executor thread hands its response back with {@code
 * ctx.executor().execute}.
 */
final class RequestDispatcher extends SimpleChannelInboundHandler<FullHttpRequest> {
  private final Routing routing;
  private final ArrayDeque<FullHttpRequest> pending = new ArrayDeque<>();
  private boolean busy;

  RequestDispatcher(Routing routing) {
    super(false); // the request is released after its response is written
    this.routing = routing;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (busy) {
      pending.add(request);
    } else {
      start(ctx, request);
    }
  }

  private void start(ChannelHandlerContext ctx, FullHttpRequest request) {
    busy = true;
    long t0 = System.nanoTime();
    String path;
    ApiRequest api;
    try {
      if (!request.decoderResult().isSuccess()) {
        throw new InvalidRequestException(
            "malformed HTTP request: " + request.decoderResult().cause().getMessage());
      }
      QueryStringDecoder qs = new QueryStringDecoder(request.uri());
      path = qs.path();
      api =
          new ApiRequest(
              request.method(), path, qs.parameters(), request.headers(), request.content());
    } catch (IllegalArgumentException e) {
      path = ResponseWriter.pathOf(request.uri());
      ApiRequest bad =
          new ApiRequest(
              request.method(), path, java.util.Map.of(), request.headers(), request.content());
      Dialect d = routing.dialectFor(path);
      finish(ctx, request, d, d.error(bad, 400, "illegal_argument_exception", e.getMessage()), t0);
      return;
    }
    Dialect dialect = routing.dialectFor(path);
    Dialect.Work work;
    try {
      work = dialect.work(api);
    } catch (RuntimeException e) {
      finish(ctx, request, dialect, execute(dialect, api), t0);
      return;
    }
    if (work == Dialect.Work.INLINE) {
      finish(ctx, request, dialect, execute(dialect, api), t0);
      return;
    }
    ExecutorService pool = work == Dialect.Work.SEARCH ? routing.searchPool() : routing.writePool();
    try {
      pool.execute(
          () -> {
            ApiResponse response = execute(dialect, api);
            ctx.executor().execute(() -> finish(ctx, request, dialect, response, t0));
          });
    } catch (RejectedExecutionException e) {
      String poolName = work == Dialect.Work.SEARCH ? "search" : "write";
      routing.metrics().rejected(poolName);
      ApiResponse busyResponse =
          dialect
              .error(
                  api,
                  429,
                  "es_rejected_execution_exception",
                  "the "
                      + poolName
                      + " queue is full ("
                      + (work == Dialect.Work.SEARCH
                          ? routing.config().searchQueue()
                          : routing.config().writeQueue())
                      + " waiting); retry after "
                      + routing.config().retryAfterSeconds()
                      + " s")
              .withHeader("Retry-After", Integer.toString(routing.config().retryAfterSeconds()));
      finish(ctx, request, dialect, busyResponse.tagged("rejected", "none"), t0);
    }
  }

  /** Runs the dialect and maps every exception to an answer; never throws. */
  private static ApiResponse execute(Dialect dialect, ApiRequest api) {
    try {
      return dialect.handle(api);
    } catch (ApiException e) {
      return dialect.error(api, e.status(), e.type(), e.getMessage());
    } catch (DocumentExistsException e) {
      return dialect.error(api, 409, "version_conflict_engine_exception", e.getMessage());
    } catch (InvalidRequestException e) {
      ServerLog.warn("400 " + api.method() + " " + api.path() + ": " + e.getMessage());
      return dialect.error(api, 400, "illegal_argument_exception", e.getMessage());
    } catch (Exception | AssertionError e) {
      ServerLog.error("500 " + api.method() + " " + api.path(), e);
      return dialect.error(
          api,
          500,
          "internal_server_error",
          "internal error while serving "
              + api.path()
              + ": "
              + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }
  }

  private void finish(
      ChannelHandlerContext ctx,
      FullHttpRequest request,
      Dialect dialect,
      ApiResponse response,
      long t0) {
    try {
      ResponseWriter.write(ctx, request, response, false);
      routing
          .metrics()
          .request(
              dialect.name(),
              response.endpoint(),
              response.queryType(),
              response.status(),
              System.nanoTime() - t0);
    } finally {
      request.release();
      busy = false;
    }
    FullHttpRequest next = pending.poll();
    if (next != null) {
      start(ctx, next);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    FullHttpRequest r;
    while ((r = pending.poll()) != null) {
      r.release();
    }
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A reset connection is routine; anything else is one log line, never a stack trace.
    if (!(cause instanceof java.io.IOException)) {
      ServerLog.error("connection " + ctx.channel().remoteAddress() + " failed", cause);
    }
    ctx.close();
  }
}
