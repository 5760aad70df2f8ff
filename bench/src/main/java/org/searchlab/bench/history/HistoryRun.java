package org.searchlab.bench.history;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.searchlab.bench.experiment.ServerAdmin;
import org.searchlab.bench.experiment.ServerOptions;
import org.searchlab.bench.experiment.ServerProcess;
import org.searchlab.testing.history.DocInput;
import org.searchlab.testing.history.DocOutput;
import org.searchlab.testing.history.Op;

/**
 * Records one history: a {@code serve} child ({@link ServerProcess}, as {@code crashtest} starts
 * it) on a fresh data directory with one index ({@value DocCalls#INDEX}: keyword {@code token},
 * long {@code n}, keyword {@code tag}), {@code clients} threads making {@code ops} calls between
 * them on {@code ids} documents, SIGKILLs at seeded moments with a restart on the same directory,
 * and a quiet final read of every id after the last restart.
 *
 * <p>Each client picks its calls from its own seeded random: put 25%, create 10%, partial update
 * 20%, delete 10%, real-time get 35%, on an id drawn uniformly. A put or create writes {@code
 * {token, n, tag}}, an update {@code {token, n}} or {@code {token, tag}}; the token {@code
 * c<client>-<i>} is unique in the history. With probability {@code refreshRate} before a call, a
 * client also refreshes and searches every document ({@link RefreshVisibility}).
 *
 * <p>Kills: {@code kills} distinct call numbers are drawn from the seed; the client that takes one
 * of those numbers asks the controller (the thread in {@link #run()}) for a kill and goes on with
 * its call, so the kill lands among calls in flight. The controller closes the gate (new calls
 * wait), SIGKILLs the server, starts it again on the same directory (a new port) and opens the
 * gate. Calls that were in flight, or that reached the dead server before the gate closed, end in a
 * reset or refused connection: indeterminate. With {@code finalKill} the server is killed once more
 * after the last call, so the final read checks every acknowledged write across a crash.
 *
 * <p>Not thread-safe: one {@link #run()} per instance; the clients it starts share only the call
 * counter, the gate and concurrent queues.
 */
public final class HistoryRun {
  /**
   * The settings of one history.
   *
   * @param store {@code mutable} or {@code segmented}
   * @param clients client threads, at least 1 (more is more concurrency per document)
   * @param ops document calls in all, at least 2 (the final reads come on top)
   * @param ids documents, at least 1 (fewer is more contention per document)
   * @param kills SIGKILLs among the calls, 0 to {@code ops - 1}
   * @param finalKill whether the server is killed once more before the final read
   * @param refreshRate the chance of a refresh-then-search before a call, in [0, 1]
   * @param seed the seed of the calls and kill moments
   * @param dataDir a fresh data directory
   * @param heap the server's -Xmx, e.g. {@code 256m}
   */
  public record Settings(
      String store,
      int clients,
      int ops,
      int ids,
      int kills,
      boolean finalKill,
      double refreshRate,
      long seed,
      Path dataDir,
      String heap) {
    public Settings {
      Objects.requireNonNull(dataDir, "dataDir");
      if (!store.equals("mutable") && !store.equals("segmented")) {
        throw new IllegalArgumentException(
            "store [" + store + "] is neither mutable nor segmented");
      }
      if (clients < 1 || ops < 2 || ids < 1 || kills < 0 || kills > ops - 1) {
        throw new IllegalArgumentException(
            "need clients ≥ 1, ops ≥ 2, ids ≥ 1 and 0 ≤ kills ≤ ops - 1: " + this);
      }
      if (!(refreshRate >= 0 && refreshRate <= 1)) {
        throw new IllegalArgumentException("refreshRate [" + refreshRate + "] is not in [0, 1]");
      }
    }
  }

  private final Settings settings;

  public HistoryRun(Settings settings) {
    this.settings = settings;
  }

  /** Runs the history and returns it; the server is stopped (SIGTERM) at the end. */
  public RecordedHistory run() throws IOException, InterruptedException {
    SplittableRandom random = new SplittableRandom(settings.seed());
    int[] killAt = killPoints(random);
    ServerOptions options =
        ServerOptions.defaults(settings.store(), 2).toBuilder().defaultIndex(false).build();
    Path log = settings.dataDir().resolveSibling(settings.dataDir().getFileName() + "-server.log");
    List<RecordedHistory.Kill> kills = new ArrayList<>();
    List<Op<DocInput, DocOutput>> ops = new ArrayList<>();
    ConcurrentLinkedQueue<RefreshVisibility.Search> searches = new ConcurrentLinkedQueue<>();
    try (HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build()) {
      DocCalls calls = new DocCalls(http, Duration.ofSeconds(30));
      ServerProcess server = ServerProcess.start(options, settings.dataDir(), settings.heap(), log);
      List<Thread> threads = new ArrayList<>();
      try {
        createIndex(http, server.base());
        Gate gate = new Gate();
        gate.open(server.base());
        BlockingQueue<Integer> killRequests = new LinkedBlockingQueue<>();
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<List<Op<DocInput, DocOutput>>> perClient = new ArrayList<>();
        for (int c = 0; c < settings.clients(); c++) {
          int client = c;
          SplittableRandom r = random.split();
          List<Op<DocInput, DocOutput>> mine = new ArrayList<>();
          perClient.add(mine);
          Thread t =
              new Thread(
                  () -> {
                    try {
                      client(client, r, next, killAt, killRequests, gate, calls, mine, searches);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    } catch (RuntimeException | Error e) {
                      failure.compareAndSet(null, e);
                    }
                  },
                  "history-client-" + c);
          t.setDaemon(true);
          threads.add(t);
        }
        threads.forEach(Thread::start);
        int done = 0;
        while (done < killAt.length) {
          Integer at = killRequests.poll(100, TimeUnit.MILLISECONDS);
          if (at == null) {
            if (threads.stream().noneMatch(Thread::isAlive)) {
              break; // the clients ended without taking every kill point: a client failed
            }
            continue;
          }
          // A few milliseconds later, so that the kill lands among the calls just sent.
          Thread.sleep(random.nextInt(20));
          gate.close();
          server = restart(server, options, log, kills);
          gate.open(server.base());
          done++;
        }
        for (Thread t : threads) {
          t.join();
        }
        if (failure.get() != null) {
          throw new IllegalStateException("a history client failed", failure.get());
        }
        perClient.forEach(ops::addAll);
        if (settings.finalKill()) {
          server = restart(server, options, log, kills);
        }
        // The quiet final read: nothing else is in flight, so each get must show the latest state.
        for (int i = 0; i < settings.ids(); i++) {
          ops.add(
              calls.call(settings.clients(), server.base(), RecordedHistory.id(i), DocInput.get()));
        }
        return new RecordedHistory(
            settings.store(),
            settings.seed(),
            settings.clients(),
            settings.ids(),
            ops,
            new ArrayList<>(searches),
            kills,
            calls.unexpected(),
            calls.unexpectedSamples());
      } finally {
        // After a failed restart the clients wait at the closed gate: end them.
        threads.forEach(Thread::interrupt);
        server.close();
      }
    }
  }

  /** The call numbers that trigger a kill: distinct, sorted, in [1, ops - 1]. */
  private int[] killPoints(SplittableRandom random) {
    java.util.TreeSet<Integer> points = new java.util.TreeSet<>();
    while (points.size() < settings.kills()) {
      points.add(1 + random.nextInt(settings.ops() - 1));
    }
    return points.stream().mapToInt(Integer::intValue).toArray();
  }

  private ServerProcess restart(
      ServerProcess server, ServerOptions options, Path log, List<RecordedHistory.Kill> kills)
      throws IOException, InterruptedException {
    long at = System.nanoTime();
    server.kill();
    long t0 = System.nanoTime();
    ServerProcess restarted =
        ServerProcess.start(options, settings.dataDir(), settings.heap(), log);
    kills.add(new RecordedHistory.Kill(at, (System.nanoTime() - t0) / 1_000_000));
    return restarted;
  }

  private void client(
      int client,
      SplittableRandom r,
      AtomicInteger next,
      int[] killAt,
      BlockingQueue<Integer> killRequests,
      Gate gate,
      DocCalls calls,
      List<Op<DocInput, DocOutput>> out,
      ConcurrentLinkedQueue<RefreshVisibility.Search> searches)
      throws InterruptedException {
    int written = 0;
    while (true) {
      int i = next.getAndIncrement();
      if (i >= settings.ops()) {
        return;
      }
      if (Arrays.binarySearch(killAt, i) >= 0) {
        killRequests.add(i);
      }
      URI base = gate.await();
      if (r.nextDouble() < settings.refreshRate()) {
        RefreshVisibility.Search s = calls.refreshThenSearch(client, base, settings.ids() + 10);
        if (s != null) {
          searches.add(s);
        }
        base = gate.await();
      }
      String key = RecordedHistory.id(r.nextInt(settings.ids()));
      String token = "c" + client + "-" + written;
      double p = r.nextDouble();
      DocInput in;
      if (p < 0.25) {
        in = DocInput.put(document(token, r));
      } else if (p < 0.35) {
        in = DocInput.create(document(token, r));
      } else if (p < 0.55) {
        Map<String, Object> partial = new LinkedHashMap<>();
        partial.put("token", token);
        if (r.nextBoolean()) {
          partial.put("n", (long) r.nextInt(1000));
        } else {
          partial.put("tag", "t" + r.nextInt(5));
        }
        in = DocInput.update(partial);
      } else if (p < 0.65) {
        in = DocInput.delete();
      } else {
        in = DocInput.get();
      }
      if (in.writes()) {
        written++;
      }
      out.add(calls.call(client, base, key, in));
    }
  }

  private static Map<String, Object> document(String token, SplittableRandom r) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("token", token);
    d.put("n", (long) r.nextInt(1000));
    d.put("tag", "t" + r.nextInt(5));
    return d;
  }

  private void createIndex(HttpClient http, URI base) throws IOException, InterruptedException {
    String body =
        "{\"settings\":{\"index\":{\"number_of_shards\":1,\"number_of_replicas\":0,\"store\":\""
            + settings.store()
            + "\"}},\"mappings\":{\"properties\":{\"token\":{\"type\":\"keyword\"},"
            + "\"n\":{\"type\":\"long\"},\"tag\":{\"type\":\"keyword\"}}}}";
    ServerAdmin.putIndex(http, base, DocCalls.INDEX, body);
  }

  /**
   * The server's current address, and a barrier while it is down: clients wait here between calls
   * while the controller kills and restarts the server. Thread-safe (its monitor).
   */
  private static final class Gate {
    private URI base; // null while closed

    synchronized URI await() throws InterruptedException {
      while (base == null) {
        wait();
      }
      return base;
    }

    synchronized void close() {
      base = null;
    }

    synchronized void open(URI b) {
      base = b;
      notifyAll();
    }
  }
}
