package org.searchlab.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The load generator against a real in-process HTTP server. */
class LoadGeneratorTest {
  private static final long SLOW_MS = 300;

  private HttpServer server;
  private final AtomicLong served = new AtomicLong();
  private final Set<String> connections = ConcurrentHashMap.newKeySet();

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/ok",
        ex -> {
          connections.add(ex.getRemoteAddress().toString());
          served.incrementAndGet();
          byte[] body = "{}".getBytes();
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.createContext(
        "/fail",
        ex -> {
          byte[] body = "{\"error\":\"too many requests\"}".getBytes();
          ex.sendResponseHeaders(429, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.createContext(
        "/slow",
        ex -> {
          try {
            Thread.sleep(SLOW_MS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          byte[] body = "{}".getBytes();
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.createContext(
        "/drop",
        ex -> {
          // Close the exchange without an answer: the server drops the connection.
          ex.close();
        });
    server.setExecutor(Executors.newFixedThreadPool(8));
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private HttpRequest get(String path) {
    return HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path))
        .build();
  }

  @Test
  void measuresSuccessfulRequestsOnKeepAliveConnections() throws Exception {
    ProcessCpu self = new ProcessCpu(ProcessHandle.current().pid());
    try (LoadGenerator load = new LoadGenerator()) {
      CellStats s =
          load.run(
              List.of(get("/ok"), get("/ok?b")),
              4,
              Duration.ofMillis(200),
              Duration.ofMillis(500),
              self);
      assertTrue(s.requests() > 0, "requests " + s.requests());
      assertEquals(0, s.errors());
      assertNull(s.firstError());
      assertEquals(0, s.clientRetries());
      assertTrue(served.get() >= s.requests(), "served " + served + " < recorded " + s.requests());
      assertEquals(s.requests() / s.seconds(), s.qps(), 1e-9);
      assertTrue(
          s.p50Ms() <= s.p95Ms() && s.p95Ms() <= s.p99Ms() && s.p99Ms() <= s.p999Ms(),
          s.toString());
      assertTrue(s.cpuCores() > 0, "this JVM did work in the window: " + s.cpuCores());
      // Closed loop with keep-alive: a few connections carry hundreds of requests.
      assertTrue(connections.size() <= 8, "connections " + connections.size());
      assertTrue(served.get() > connections.size() * 2L, "served " + served + " on " + connections);
    }
  }

  @Test
  void extendsAWindowInWhichNothingCompletedUntilSomethingDoes() throws Exception {
    // Every answer takes 15 windows: the window is extended until the first one lands in it, and
    // the cell's figures are over the longer window.
    ProcessCpu self = new ProcessCpu(ProcessHandle.current().pid());
    try (LoadGenerator load = new LoadGenerator()) {
      CellStats s = load.run(List.of(get("/slow")), 1, Duration.ZERO, Duration.ofMillis(20), self);
      assertTrue(s.requests() >= 1, s.toString());
      assertTrue(s.seconds() >= SLOW_MS / 1000.0, "the window was extended: " + s);
      assertTrue(s.seconds() <= (LoadGenerator.MAX_EXTENSIONS + 1) * 0.020 + 1e-9, s.toString());
      assertEquals(s.requests() / s.seconds(), s.qps(), 1e-9);
    }
  }

  @Test
  void countsRejectionsAsErrorsNotLatencies() throws Exception {
    ProcessCpu self = new ProcessCpu(ProcessHandle.current().pid());
    try (LoadGenerator load = new LoadGenerator()) {
      CellStats s =
          load.run(List.of(get("/fail")), 2, Duration.ofMillis(500), Duration.ofMillis(2000), self);
      assertEquals(0, s.requests());
      assertTrue(s.errors() > 0, s.toString());
      assertEquals(0, s.qps());
      assertEquals("HTTP 429: {\"error\":\"too many requests\"}", s.firstError());
    }
  }

  @Test
  void describesAFailedExchangeByItsException() throws Exception {
    ProcessCpu self = new ProcessCpu(ProcessHandle.current().pid());
    try (LoadGenerator load = new LoadGenerator()) {
      CellStats s = load.run(List.of(get("/drop")), 1, Duration.ZERO, Duration.ofMillis(500), self);
      assertEquals(0, s.requests());
      assertTrue(s.errors() > 0, s.toString());
      assertTrue(s.firstError().startsWith("java.io.IOException"), s.firstError());
    }
  }

  @Test
  void tellsTheClientsPoolRaceFromOtherFailures() {
    // The chain the JDK client (Temurin 25.0.3) threw when it lost an answer to its pool watcher.
    java.io.IOException race =
        new java.io.IOException(
            "HTTP/1.1 header parser received no bytes",
            new java.io.IOException(
                "connection closed locally",
                new java.io.IOException(
                    "Unexpected cleanup triggered for non pooled connection",
                    new java.io.IOException("Data received while in pool"))));
    assertTrue(LoadGenerator.isPoolRace(race));
    assertFalse(
        LoadGenerator.isPoolRace(
            new java.io.IOException(
                "HTTP/1.1 header parser received no bytes",
                new java.io.IOException("Connection reset"))));
    assertFalse(LoadGenerator.isPoolRace(new java.net.ConnectException("Connection refused")));
  }

  @Test
  void keepsOnlyTheStartOfALongDescription() {
    String d = LoadGenerator.describe(new java.io.IOException("x".repeat(1000)));
    assertTrue(d.length() < 300, d);
    assertTrue(d.startsWith("java.io.IOException: xxx"), d);
  }
}
