package org.searchlab.bench.load;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * A closed-loop load generator: {@code clients} threads each send a request, wait for the answer,
 * and send the next one at once, over HTTP/1.1 keep-alive connections from one {@link HttpClient}
 * (its pool holds one connection per concurrently active client). A cell runs a warm-up, then a
 * measured window; requests that complete inside the window are recorded, in one {@link Histogram}
 * per client merged into one per cell. A request that fails inside the window is counted, and the
 * first one is described (its status and the start of its body, or its exception) so that a report
 * can say what went wrong. A request lost to the JDK client's own pool race ({@link #isPoolRace})
 * is sent once more and counted as a retry, its latency including both attempts.
 *
 * <p>A window in which nothing completes is extended by its own length until something does (at
 * most {@link #MAX_EXTENSIONS} times), and its figures are over the longer window: with windows of
 * a fraction of a second (the end-to-end tests') on a machine loaded far beyond its cores, one
 * answer can take longer than the window, and a cell of no answers measures nothing (no latency, a
 * throughput of 0 that says only that the window was too short). Runs whose windows hold thousands
 * of answers never extend.
 *
 * <p>Client {@code t} walks the request list from offset {@code t · n / clients}, so concurrent
 * clients send different queries. Thread-safe for sequential use: run one cell at a time.
 */
public final class LoadGenerator implements AutoCloseable {
  /** Longest latency the histograms track (1 minute, in microseconds); longer ones are clamped. */
  private static final long MAX_MICROS = TimeUnit.MINUTES.toMicros(1);

  /** How many times a window in which nothing completed is extended by its own length. */
  static final int MAX_EXTENSIONS = 100;

  /** An empty latency histogram (microseconds) of the range and precision of a cell's. */
  public static Histogram newHistogram() {
    return new Histogram(MAX_MICROS, 3);
  }

  private final HttpClient http;

  public LoadGenerator() {
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
  }

  /** The shared client, for callers that send single requests on the same connections. */
  public HttpClient http() {
    return http;
  }

  /**
   * Runs one cell.
   *
   * @param requests the requests to cycle through; at least one
   * @param clients concurrent closed-loop clients, at least 1
   * @param warmup unrecorded load before the window
   * @param window the measured window
   * @param cpu the server's CPU, read at the window's edges
   */
  public CellStats run(
      List<HttpRequest> requests, int clients, Duration warmup, Duration window, CpuMeter cpu)
      throws InterruptedException {
    return run(requests, clients, warmup, window, cpu, null);
  }

  /**
   * Runs one cell as {@link #run(List, int, Duration, Duration, CpuMeter)} does, and adds its
   * latencies to {@code pooled} as well, for a caller that summarises several cells as one.
   *
   * @param pooled a histogram of {@link #newHistogram()}'s range, or null
   */
  public CellStats run(
      List<HttpRequest> requests,
      int clients,
      Duration warmup,
      Duration window,
      CpuMeter cpu,
      Histogram pooled)
      throws InterruptedException {
    if (requests.isEmpty() || clients < 1) {
      throw new IllegalArgumentException(
          "need at least one request and one client, got " + requests.size() + ", " + clients);
    }
    long start = System.nanoTime();
    long windowStart = start + warmup.toNanos();
    // Read by the clients at every request: extended while nothing has completed (class javadoc).
    AtomicLong windowEnd = new AtomicLong(windowStart + window.toNanos());
    AtomicLong completed = new AtomicLong();
    AtomicBoolean over = new AtomicBoolean();
    AtomicLong errors = new AtomicLong();
    AtomicReference<String> firstError = new AtomicReference<>();
    AtomicLong retries = new AtomicLong();
    List<Histogram> histograms = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < clients; t++) {
      Histogram h = new Histogram(MAX_MICROS, 3);
      histograms.add(h);
      int offset = (int) ((long) t * requests.size() / clients);
      threads.add(
          Thread.ofPlatform()
              .name("load-client-" + t)
              .daemon(true)
              .start(
                  () ->
                      clientLoop(
                          requests,
                          offset,
                          windowStart,
                          windowEnd,
                          over,
                          completed,
                          h,
                          errors,
                          firstError,
                          retries)));
    }
    sleepUntil(windowStart);
    long faultsBefore = cpu.majorFaults();
    long cpuBefore = cpu.cpuNanos();
    long wallBefore = System.nanoTime();
    sleepUntil(windowEnd.get());
    for (int e = 0; completed.get() == 0 && e < MAX_EXTENSIONS; e++) {
      sleepUntil(windowEnd.addAndGet(window.toNanos()));
    }
    long cpuAfter = cpu.cpuNanos();
    long faultsAfter = cpu.majorFaults();
    long wallAfter = System.nanoTime();
    over.set(true);
    for (Thread t : threads) {
      t.join();
    }
    Histogram cell = new Histogram(MAX_MICROS, 3);
    for (Histogram h : histograms) {
      cell.add(h);
    }
    if (pooled != null) {
      pooled.add(cell);
    }
    double seconds = (windowEnd.get() - windowStart) / 1e9;
    return CellStats.of(
        cell,
        errors.get(),
        firstError.get(),
        retries.get(),
        seconds,
        ProcessCpu.cores(cpuBefore, cpuAfter, wallAfter - wallBefore),
        faultsBefore < 0 || faultsAfter < 0 ? -1 : faultsAfter - faultsBefore);
  }

  private void clientLoop(
      List<HttpRequest> requests,
      int offset,
      long windowStart,
      AtomicLong windowEnd,
      AtomicBoolean over,
      AtomicLong completed,
      Histogram histogram,
      AtomicLong errors,
      AtomicReference<String> firstError,
      AtomicLong retries) {
    int i = offset;
    while (true) {
      long t0 = System.nanoTime();
      // Past the window, a client stops once the cell is over: until then the window may still be
      // extended, and its answers are wanted.
      if (t0 >= windowEnd.get() && over.get()) {
        return;
      }
      HttpRequest request = requests.get(i);
      i = i + 1 == requests.size() ? 0 : i + 1;
      String failure;
      boolean retried = false;
      try {
        HttpResponse<byte[]> r;
        try {
          r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
          if (!isPoolRace(e)) {
            throw e;
          }
          // The server answered; the client lost the answer. Send it again, once, and time both.
          retried = true;
          r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        }
        failure = r.statusCode() / 100 == 2 ? null : describe(r);
      } catch (IOException e) {
        failure = describe(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      long t1 = System.nanoTime();
      // Throughput of a closed loop is completions per second: count what completes inside the
      // window (the load is steady after the warm-up, so a request that started just before the
      // window is as representative as one that ends just after it).
      if (t1 >= windowStart && t1 <= windowEnd.get()) {
        completed.incrementAndGet();
        if (retried) {
          retries.incrementAndGet();
        }
        if (failure == null) {
          histogram.recordValue(Math.min(MAX_MICROS, Math.max(1, (t1 - t0) / 1000)));
        } else {
          errors.incrementAndGet();
          firstError.compareAndSet(null, failure);
        }
      }
    }
  }

  /**
   * Whether a failed exchange is the JDK HttpClient's own race on a reused HTTP/1.1 connection: the
   * server's answer reached the watcher the client keeps on an idle pooled connection after the
   * connection had been taken for this request, so the client closed it and reported "HTTP/1.1
   * header parser received no bytes" (JDK-8338569 and JDK-8357639; still seen on Temurin 25.0.3,
   * about once in 25 short runs of the integration test's profile). The server answered correctly,
   * so a search may be sent again.
   */
  public static boolean isPoolRace(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException && "Data received while in pool".equals(t.getMessage())) {
        return true;
      }
    }
    return false;
  }

  /** Longest part of a failed answer's body or an exception's message kept in a description. */
  static final int DESCRIPTION_CHARS = 200;

  /** A failed answer: its status and the start of its body. */
  static String describe(HttpResponse<byte[]> r) {
    String body = new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
    return "HTTP " + r.statusCode() + ": " + prefix(body);
  }

  /** A failed exchange: the exception and its causes, each with the start of its message. */
  static String describe(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null && b.length() < 4 * DESCRIPTION_CHARS; t = t.getCause()) {
      if (!b.isEmpty()) {
        b.append(" <- ");
      }
      b.append(t.getClass().getName());
      if (t.getMessage() != null) {
        b.append(": ").append(prefix(t.getMessage()));
      }
    }
    return b.toString();
  }

  private static String prefix(String s) {
    return s.length() <= DESCRIPTION_CHARS ? s : s.substring(0, DESCRIPTION_CHARS) + "…";
  }

  private static void sleepUntil(long nanoTime) throws InterruptedException {
    long left;
    while ((left = nanoTime - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
  }

  @Override
  public void close() {
    http.close();
  }
}
