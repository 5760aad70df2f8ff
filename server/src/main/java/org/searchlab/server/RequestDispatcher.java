package org.searchlab.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.codec.http2.Http2StreamChannel;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.searchlab.core.DocumentExistsException;
import org.searchlab.core.Handoffs;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.StoreStoppedException;

/**
 * The last handler of a pipeline: it checks a request ({@link RequestGuard}), picks the dialect,
 * runs it on the bounded executor the dialect asks for (never blocking the event loop), and writes
 * the answer. A full queue is answered at once with 429 and {@code Retry-After}; a request that
 * waited in the queue longer than {@link ServerLimits#requestTimeout()} with 503, unrun.
 *
 * <p>HTTP/1.1 allows pipelining, and responses must come back in request order, so a connection has
 * at most one request in flight: the others wait in {@link #pending}. Back-pressure: when {@link
 * ServerLimits#maxPipelinedRequests()} wait, or the socket's outbound buffer is above its
 * high-water mark (the client does not read its answers), the dispatcher stops reading the
 * connection, and it starts no new request while the socket is not writable. The queue is drained
 * by a loop, not by recursion, so any number of pipelined requests costs no stack. An HTTP/2 stream
 * has its own dispatcher and carries one request.
 *
 * <p>A malformed request (the decoder failed) is answered, then the connection closes: the decoder
 * cannot find the next request's start. A write to a store that stopped after a failure ({@link
 * StoreStoppedException}) is a 503. Every other {@link Throwable} a dialect throws becomes one 500,
 * counted and logged once; the executor thread lives on.
 *
 * <p>Thread safety: one instance per channel. {@link #pending}, {@link #busy} and {@link #closing}
 * are touched only on the channel's event loop; an executor thread hands its response back to that
 * loop through {@link Handoffs#execute}, which groups the answers of a store writer's batch into
 * one task per loop.
 */
final class RequestDispatcher extends SimpleChannelInboundHandler<FullHttpRequest> {
  private final Routing routing;
  private final RequestGuard guard;
  private final ArrayDeque<FullHttpRequest> pending = new ArrayDeque<>();
  private boolean busy;
  private boolean draining;
  private boolean closing;

  RequestDispatcher(Routing routing) {
    super(false); // the request is released after its response is written
    this.routing = routing;
    this.guard = new RequestGuard(routing.config());
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (closing) {
      request.release(); // after a malformed request nothing more is read
      return;
    }
    ConnectionState.of(ctx.channel()).requestArrived();
    pending.add(request);
    drain(ctx);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    drain(ctx);
    super.channelWritabilityChanged(ctx);
  }

  /** Starts queued requests one at a time while the socket takes answers; never recursive. */
  private void drain(ChannelHandlerContext ctx) {
    if (draining) {
      return;
    }
    draining = true;
    try {
      while (!busy && !closing && !pending.isEmpty() && ctx.channel().isWritable()) {
        start(ctx, pending.poll());
      }
    } finally {
      draining = false;
    }
    if (!(ctx.channel() instanceof Http2StreamChannel)) {
      boolean read =
          !closing
              && ctx.channel().isWritable()
              && pending.size() < routing.config().limits().maxPipelinedRequests();
      if (ctx.channel().config().isAutoRead() != read) {
        ctx.channel().config().setAutoRead(read);
      }
    }
  }

  private void start(ChannelHandlerContext ctx, FullHttpRequest request) {
    busy = true;
    long t0 = System.nanoTime();
    if (!request.decoderResult().isSuccess()) {
      malformed(ctx, request, t0);
      return;
    }
    String path;
    ApiRequest api;
    try {
      QueryStringDecoder qs = new QueryStringDecoder(request.uri());
      path = qs.path();
      api =
          new ApiRequest(
              request.method(),
              path,
              qs.parameters(),
              request.headers(),
              request.content(),
              qs.rawPath());
    } catch (IllegalArgumentException e) {
      path = ResponseWriter.pathOf(request.uri());
      ApiRequest bad =
          new ApiRequest(request.method(), path, Map.of(), request.headers(), request.content());
      Dialect d = routing.dialectFor(path);
      finish(ctx, request, d, error(d, bad, 400, "illegal_argument_exception", e.getMessage()), t0);
      return;
    }
    Dialect dialect = routing.dialectFor(path);
    Optional<ApiResponse> refused = guard.check(api, dialect);
    if (refused.isPresent()) {
      finish(ctx, request, dialect, refused.get().tagged("refused", "none"), t0);
      return;
    }
    Dialect.Work work;
    try {
      work = dialect.work(api);
    } catch (RuntimeException e) {
      finish(ctx, request, dialect, execute(dialect, api), t0);
      return;
    }
    if (work == Dialect.Work.INLINE) {
      // Inline routes read no body, so a compressed one is never inflated on the event loop.
      finish(ctx, request, dialect, execute(dialect, api), t0);
      return;
    }
    ExecutorService pool = work == Dialect.Work.SEARCH ? routing.searchPool() : routing.writePool();
    boolean slot = work == Dialect.Work.WRITE;
    try {
      if (slot && !routing.writeSlots().tryAcquire()) {
        slot = false;
        throw new RejectedExecutionException("no write slot");
      }
      boolean held = slot;
      pool.execute(() -> runQueued(ctx, request, dialect, api, t0, held));
    } catch (RejectedExecutionException e) {
      if (slot) {
        routing.writeSlots().release();
      }
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

  /**
   * The executor side of a request: inflates its body, runs it, and hands the answer back once it
   * is there (an asynchronous write's when the store acknowledges it, after this thread has moved
   * on), releasing the request's write slot if it holds one.
   */
  private void runQueued(
      ChannelHandlerContext ctx,
      FullHttpRequest request,
      Dialect dialect,
      ApiRequest api,
      long t0,
      boolean slot) {
    long waited = System.nanoTime() - t0;
    if (waited > routing.config().limits().requestTimeout().toNanos()) {
      routing.metrics().refused("queue_timeout");
      ApiResponse response =
          error(
                  dialect,
                  api,
                  503,
                  "es_rejected_execution_exception",
                  "the request waited "
                      + waited / 1_000_000
                      + " ms for a thread, more than the request timeout of "
                      + routing.config().limits().requestTimeout().toMillis()
                      + " ms; it was not run")
              .withHeader("Retry-After", Integer.toString(routing.config().retryAfterSeconds()));
      respond(ctx, request, dialect, response, t0, slot);
    } else {
      executeDecoded(dialect, api)
          .whenComplete(
              (r, e) ->
                  respond(
                      ctx,
                      request,
                      dialect,
                      e == null ? r : failure(dialect, api, unwrap(e)),
                      t0,
                      slot));
    }
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof java.util.concurrent.CompletionException && e.getCause() != null
        ? e.getCause()
        : e;
  }

  /** Releases the write slot and hands the answer to the channel's event loop. */
  private void respond(
      ChannelHandlerContext ctx,
      FullHttpRequest request,
      Dialect dialect,
      ApiResponse r,
      long t0,
      boolean slot) {
    if (slot) {
      routing.writeSlots().release();
    }
    // Through Handoffs: a store's writer acknowledging a batch hands the event loop all of its
    // answers at once, one wake-up instead of one per document.
    Handoffs.execute(
        ctx.executor(),
        () -> finish(ctx, request, dialect, r, t0),
        request::release); // refused: the event loop is shutting down; the connection is gone
  }

  /**
   * Runs the dialect on the request with its body inflated if it was compressed; the future never
   * fails (every failure is an answer). The inflated body is released when the dialect returns: it
   * reads the body before that ({@link Dialect#handleAsync}).
   */
  private CompletableFuture<ApiResponse> executeDecoded(Dialect dialect, ApiRequest api) {
    String encoding = api.headers().get(HttpHeaderNames.CONTENT_ENCODING);
    if (!BodyDecoder.encoded(encoding)) {
      return executeAsync(dialect, api);
    }
    ByteBuf decoded;
    try {
      decoded = BodyDecoder.decode(api.body(), encoding, routing.config().maxContentLength());
    } catch (ApiException e) {
      ServerLog.warn(e.status() + " " + api.method() + " " + Text.quote(api.path()) + ": " + e);
      return CompletableFuture.completedFuture(
          error(dialect, api, e.status(), e.type(), e.getMessage()));
    }
    try {
      return executeAsync(
          dialect, new ApiRequest(api.method(), api.path(), api.params(), api.headers(), decoded));
    } finally {
      decoded.release();
    }
  }

  /** Runs the dialect and maps every {@link Throwable} to an answer; never throws. */
  private ApiResponse execute(Dialect dialect, ApiRequest api) {
    try {
      return dialect.handle(api);
    } catch (Throwable e) {
      return failure(dialect, api, e);
    }
  }

  /** {@link #execute} through {@link Dialect#handleAsync}: a future that never fails. */
  private CompletableFuture<ApiResponse> executeAsync(Dialect dialect, ApiRequest api) {
    try {
      return dialect.handleAsync(api);
    } catch (Throwable e) {
      return CompletableFuture.completedFuture(failure(dialect, api, e));
    }
  }

  /** The answer to a request that failed with {@code failure}: the dialect's error shape. */
  private ApiResponse failure(Dialect dialect, ApiRequest api, Throwable failure) {
    try {
      throw failure;
    } catch (ApiException e) {
      return error(dialect, api, e.status(), e.type(), e.getMessage());
    } catch (DocumentExistsException e) {
      return error(dialect, api, 409, "version_conflict_engine_exception", e.getMessage());
    } catch (InvalidRequestException e) {
      ServerLog.warn(
          "400 " + api.method() + " " + Text.quote(api.path()) + ": " + Text.quote(e.getMessage()));
      return error(dialect, api, 400, e.type(), e.getMessage());
    } catch (StoreStoppedException e) {
      // The store's log or writer failed (a full disk, an I/O error): it refuses writes until it
      // is restarted. Not a bug of this request, so not a 500; 503 with Elasticsearch's type for a
      // write to a failed shard, the reason naming the failure. /health says the same.
      routing.metrics().refused("store_stopped");
      ServerLog.warn(
          "503 " + api.method() + " " + Text.quote(api.path()) + ": " + Text.quote(e.getMessage()));
      return error(dialect, api, 503, "unavailable_shards_exception", e.getMessage());
    } catch (Throwable e) {
      // The task boundary: a StackOverflowError or a bug answers 500 once, and the thread lives.
      routing.metrics().refused("internal_error");
      ServerLog.error("500 " + api.method() + " " + Text.quote(api.path()), e);
      try {
        return error(
            dialect,
            api,
            500,
            "internal_server_error",
            "internal error while serving "
                + api.path()
                + ": "
                + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + e.getMessage()));
      } catch (Throwable again) {
        return ApiResponse.json(
            500, "{\"status\":500}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
    }
  }

  /** The dialect's error with the reason bounded ({@link Text#reason}). */
  private static ApiResponse error(
      Dialect dialect, ApiRequest api, int status, String type, String reason) {
    return dialect.error(api, status, type, Text.reason(reason));
  }

  /** Answers a request the decoder could not parse, then closes the connection. */
  private void malformed(ChannelHandlerContext ctx, FullHttpRequest request, long t0) {
    Throwable cause = request.decoderResult().cause();
    int status;
    String reason;
    if (cause instanceof TooLongHttpLineException) {
      status = 414;
      reason =
          "the request line is longer than the limit of "
              + routing.config().limits().maxInitialLineLength()
              + " bytes";
    } else if (cause instanceof TooLongHttpHeaderException) {
      status = 431;
      reason =
          "the request headers are larger than the limit of "
              + routing.config().limits().maxHeaderSize()
              + " bytes";
    } else if (cause instanceof TooLongFrameException) {
      status = 413;
      reason = "a request part is too large: " + cause.getMessage();
    } else {
      status = 400;
      reason = "malformed HTTP request: " + cause;
    }
    routing.metrics().refused("malformed");
    closing = true;
    String path = ResponseWriter.pathOf(request.uri());
    ApiRequest bad =
        new ApiRequest(
            request.method(),
            path,
            Map.of(),
            request.headers(),
            io.netty.buffer.Unpooled.EMPTY_BUFFER);
    Dialect d = routing.dialectFor(path);
    finish(ctx, request, d, error(d, bad, status, "http_exception", reason), t0);
  }

  private void finish(
      ChannelHandlerContext ctx,
      FullHttpRequest request,
      Dialect dialect,
      ApiResponse response,
      long t0) {
    try {
      ResponseWriter.write(ctx, request, response, closing);
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
      ConnectionState.of(ctx.channel()).answered();
    }
    if (closing) {
      releasePending();
    } else {
      drain(ctx);
    }
  }

  private void releasePending() {
    FullHttpRequest r;
    while ((r = pending.poll()) != null) {
      r.release();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    releasePending();
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
