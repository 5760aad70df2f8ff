// Single-file program (java OverloadCheck.java ...), run by overload-check.sh; JDK classes only.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The overload check of issue 17: CLIENTS closed-loop clients (each its own keep-alive
 * connection) send a seeded mix of lexical searches (90 %) and one-document bulks (10 %) for
 * SECONDS to a running server, then print the count of every status, transport failures, and the
 * p50/p99/max latency of the admitted (200) requests. Expected: only 200 and 429, no failures.
 *
 * <p>Usage: java OverloadCheck.java PORT CLIENTS SECONDS SEED
 */
public class OverloadCheck {
  static final String[] WORDS = {
    "linux", "kernel", "library", "python", "tools", "server", "network", "data", "graphics",
    "audio", "game", "font", "perl", "java", "documentation", "development", "utility", "shell"
  };

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    int clients = Integer.parseInt(args[1]);
    long seconds = Long.parseLong(args[2]);
    long seed = Long.parseLong(args[3]);
    URI search = URI.create("http://127.0.0.1:" + port + "/product/_search");
    URI bulk = URI.create("http://127.0.0.1:" + port + "/product/_bulk");
    Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
    LongAdder failures = new LongAdder();
    long[][] latencies = new long[clients][];
    int[] counts = new int[clients];
    long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    AtomicLong firstFailure = new AtomicLong();
    String[] firstFailureText = new String[1];
    Thread[] threads = new Thread[clients];
    for (int c = 0; c < clients; c++) {
      int id = c;
      latencies[c] = new long[1 << 16];
      threads[c] =
          Thread.ofPlatform()
              .start(
                  () -> {
                    HttpClient http =
                        HttpClient.newBuilder()
                            .version(HttpClient.Version.HTTP_1_1)
                            .connectTimeout(Duration.ofSeconds(10))
                            .build();
                    SplittableRandom r = new SplittableRandom(seed * 1_000_003L + id);
                    int n = 0;
                    while (System.nanoTime() < end) {
                      HttpRequest req;
                      if (r.nextInt(10) == 0) {
                        String doc = "load-" + id + "-" + r.nextInt(1000);
                        String body =
                            "{\"index\":{\"_id\":\"" + doc + "\"}}\n{\"title\":\""
                                + WORDS[r.nextInt(WORDS.length)] + " " + WORDS[r.nextInt(WORDS.length)]
                                + "\",\"price\":" + r.nextInt(10_000) + "}\n";
                        req =
                            HttpRequest.newBuilder(bulk)
                                .timeout(Duration.ofSeconds(60))
                                .header("Content-Type", "application/x-ndjson")
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build();
                      } else {
                        String q = WORDS[r.nextInt(WORDS.length)] + " " + WORDS[r.nextInt(WORDS.length)];
                        String body = "{\"size\":10,\"query\":{\"multi_match\":{\"query\":\"" + q
                            + "\",\"fields\":[\"title\",\"description\"]}}}";
                        req =
                            HttpRequest.newBuilder(search)
                                .timeout(Duration.ofSeconds(60))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build();
                      }
                      long t0 = System.nanoTime();
                      try {
                        HttpResponse<byte[]> resp = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
                        long micros = (System.nanoTime() - t0) / 1000;
                        statuses.computeIfAbsent(resp.statusCode(), k -> new LongAdder()).increment();
                        if (resp.statusCode() == 200) {
                          if (n == latencies[id].length) {
                            latencies[id] = Arrays.copyOf(latencies[id], n * 2);
                          }
                          latencies[id][n++] = micros;
                        } else if (resp.statusCode() == 429) {
                          Thread.sleep(10); // a client that honours back-pressure a little
                        }
                      } catch (Exception e) {
                        failures.increment();
                        if (firstFailure.compareAndSet(0, 1)) {
                          firstFailureText[0] = e.toString();
                        }
                      }
                    }
                    counts[id] = n;
                  });
    }
    for (Thread t : threads) {
      t.join();
    }
    int total = 0;
    for (int c : counts) {
      total += c;
    }
    long[] all = new long[total];
    int k = 0;
    for (int c = 0; c < clients; c++) {
      System.arraycopy(latencies[c], 0, all, k, counts[c]);
      k += counts[c];
    }
    Arrays.sort(all);
    Map<Integer, Long> sorted = new TreeMap<>();
    statuses.forEach((s, a) -> sorted.put(s, a.sum()));
    System.out.println("clients=" + clients + " seconds=" + seconds + " seed=" + seed);
    System.out.println("statuses=" + sorted + " transport_failures=" + failures.sum()
        + (firstFailureText[0] == null ? "" : " first=" + firstFailureText[0]));
    if (total > 0) {
      System.out.printf(
          "admitted=%d p50_ms=%.1f p99_ms=%.1f max_ms=%.1f%n",
          total, all[total / 2] / 1000.0, all[(int) Math.min(total - 1, (long) (total * 0.99))] / 1000.0,
          all[total - 1] / 1000.0);
    }
    boolean ok = failures.sum() == 0 && sorted.keySet().stream().allMatch(s -> s == 200 || s == 429);
    System.out.println(ok ? "RESULT ok: only 200 and 429" : "RESULT FAILED");
    System.exit(ok ? 0 : 1);
  }
}
