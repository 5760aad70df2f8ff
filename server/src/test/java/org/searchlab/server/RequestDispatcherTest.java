package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.searchlab.server.es.EsResponses;
import org.searchlab.server.metrics.ServerMetrics;

/**
 * The dispatcher's task boundary, on Netty's {@link EmbeddedChannel}: a dialect that throws an
 * {@link Error} (here the {@link StackOverflowError} a deep recursion gives) is answered 500 once,
 * counted, and the next pipelined request on the connection is still served; a request that waited
 * in the queue past the request timeout is answered 503 without running.
 */
class RequestDispatcherTest {
  /** A dialect whose {@code /boom} throws the given error and whose other paths answer 200. */
  private static final class Throwing implements Dialect {
    int runs;

    @Override
    public String name() {
      return "test";
    }

    @Override
    public boolean owns(String path) {
      return true;
    }

    @Override
    public Work work(ApiRequest request) {
      return Work.SEARCH;
    }

    @Override
    public ApiResponse handle(ApiRequest r) {
      runs++;
      if (r.path().equals("/boom")) {
        throw new StackOverflowError("deep");
      }
      return ApiResponse.json(200, "{}".getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public ApiResponse error(ApiRequest request, int status, String type, String reason) {
      return EsResponses.error(status, type, reason);
    }
  }

  private static DefaultFullHttpRequest get(String path) {
    DefaultFullHttpRequest r =
        new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path, Unpooled.buffer(0));
    r.headers().set("Host", "localhost");
    return r;
  }

  private static FullHttpResponse next(EmbeddedChannel ch) throws InterruptedException {
    for (int i = 0; i < 2000; i++) {
      ch.runPendingTasks();
      FullHttpResponse r = ch.readOutbound();
      if (r != null) {
        return r;
      }
      Thread.sleep(5);
    }
    return null;
  }

  @Test
  void aThrowableIsOne500AndTheConnectionGoesOn() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    ServerMetrics metrics = new ServerMetrics();
    Throwing dialect = new Throwing();
    try {
      Routing routing =
          new Routing(List.of(dialect), pool, pool, metrics, ServerConfig.builder().build());
      EmbeddedChannel ch = new EmbeddedChannel(new RequestDispatcher(routing));
      ch.writeInbound(get("/boom"));
      ch.writeInbound(get("/fine"));
      FullHttpResponse first = next(ch);
      assertNotNull(first);
      assertEquals(500, first.status().code());
      assertTrue(
          first.content().toString(StandardCharsets.UTF_8).contains("StackOverflowError"),
          first.content().toString(StandardCharsets.UTF_8));
      first.release();
      FullHttpResponse second = next(ch);
      assertNotNull(second, "the pipelined request after the failure is answered");
      assertEquals(200, second.status().code());
      second.release();
      assertTrue(
          metrics
              .scrape()
              .matches(
                  "(?s).*searchlab_server_refused_total\\{[^}]*reason=\"internal_error\"[^}]*} 1\\.0.*"),
          "counted once");
      ch.finishAndReleaseAll();
    } finally {
      pool.shutdownNow();
      metrics.close();
    }
  }

  @Test
  void aRequestQueuedPastTheTimeoutIsNotRun() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    ServerMetrics metrics = new ServerMetrics();
    Throwing dialect = new Throwing();
    CountDownLatch release = new CountDownLatch(1);
    try {
      ServerConfig config =
          ServerConfig.builder()
              .limits(ServerLimits.builder().requestTimeout(Duration.ofMillis(50)).build())
              .build();
      Routing routing = new Routing(List.of(dialect), pool, pool, metrics, config);
      pool.execute(
          () -> {
            try {
              release.await(30, TimeUnit.SECONDS); // the only thread is busy
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      EmbeddedChannel ch = new EmbeddedChannel(new RequestDispatcher(routing));
      ch.writeInbound(get("/fine"));
      Thread.sleep(200);
      release.countDown();
      FullHttpResponse r = next(ch);
      assertNotNull(r);
      assertEquals(503, r.status().code());
      assertTrue(r.content().toString(StandardCharsets.UTF_8).contains("not run"));
      // Retry-After tells a client that it may send the request again (the bench's feeder does).
      assertNotNull(r.headers().get("Retry-After"), "Retry-After");
      assertEquals(0, dialect.runs, "the request did not run");
      r.release();
      ch.finishAndReleaseAll();
    } finally {
      pool.shutdownNow();
      metrics.close();
    }
  }
}
