package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The segment sweep's servers: starting one segment count's servers (one per {@link SweepSetting})
 * side by side on their copies of its index, and warming their JIT on each query type's measured
 * requests just before that type's cells, until {@link WarmupRule} finds every server's CPU per
 * query steady. Keeps each warm-up's curve for {@code sweep.json}. Used from the sweep's thread;
 * not thread-safe.
 */
final class SweepServers {
  private final RunContext ctx;
  private final SweepIndexes.Built built;
  private final List<SweepSetting> settings;
  private final int dimension;
  private final List<Warmup> warmups = Collections.synchronizedList(new ArrayList<>());

  /**
   * One warm-up of one server on one query type.
   *
   * @param round the sweep's round (1 …)
   * @param count the segment count
   * @param setting the server's setting
   * @param type the query type's label
   * @param seconds how long it took
   * @param steady whether it ended steady rather than at the limit
   * @param rounds each round's server CPU ms per query and compilers' share
   */
  record Warmup(
      int round,
      int count,
      String setting,
      String type,
      double seconds,
      boolean steady,
      List<WarmupRule.Round> rounds) {}

  SweepServers(
      RunContext ctx, SweepIndexes.Built built, List<SweepSetting> settings, int dimension) {
    this.ctx = ctx;
    this.built = built;
    this.settings = settings;
    this.dimension = dimension;
  }

  /** Starts the servers of one count's settings on their copies of its index. */
  Map<SweepSetting, Session> start(int count, int round) throws IOException, InterruptedException {
    ServerOptions base =
        ServerOptions.defaults(SegmentSweep.VARIANT, dimension).toBuilder()
            // nothing merges or refreshes on its own: the index stays as it was copied
            .mergePolicyNone(true)
            .refreshIntervalMs(-1)
            .build();
    // The servers of a count start side by side: a JVM's start waits on I/O and its own threads
    // as much as on the cores, and the sweep starts one per count, setting and round.
    Map<SweepSetting, Future<Session>> starting = new LinkedHashMap<>();
    // close() waits for every start to end, also when interrupted, so none is left running.
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (SweepSetting setting : settings) {
        String log = "sweep-" + count + "-" + setting.label() + (round == 0 ? "-calibration" : "");
        starting.put(
            setting,
            pool.submit(
                () ->
                    Session.start(
                        setting.options(base),
                        built.dirs().get(count).get(setting),
                        ctx.profile.serverHeap(),
                        ctx.serverLog(log),
                        ctx.load)));
      }
    }
    Map<SweepSetting, Session> servers = new LinkedHashMap<>();
    Throwable failed = null;
    for (Map.Entry<SweepSetting, Future<Session>> e : starting.entrySet()) {
      Future<Session> f = e.getValue();
      switch (f.state()) {
        case SUCCESS -> servers.put(e.getKey(), f.resultNow());
        case FAILED -> failed = failed == null ? f.exceptionNow() : failed;
        default -> failed = failed == null ? new InterruptedException("server start") : failed;
      }
    }
    if (failed != null) {
      closeAll(servers);
      if (failed instanceof IOException io) {
        throw io;
      }
      if (failed instanceof InterruptedException ie) {
        throw ie;
      }
      throw new IOException("sweep: a server of " + count + " segments did not start", failed);
    }
    if (Thread.currentThread().isInterrupted()) {
      closeAll(servers);
      throw new InterruptedException("while the sweep's servers started");
    }
    return servers;
  }

  /**
   * Warms a count's servers side by side on one query type's measured requests (nothing is
   * measured): 4-client rounds as long as a sweep cell (at most 1 s) until each server's CPU per
   * query is steady, for at most the profile's {@link Profile#sweepWarmupLimit} per server. Warming
   * each type just before its cells, on exactly the requests they send, leaves no other type's
   * profile in the JIT's compiled code when they are measured.
   */
  void warm(
      Map<SweepSetting, Session> servers,
      Map<SweepSetting, List<HttpRequest>> requests,
      int count,
      int round,
      String type)
      throws InterruptedException {
    Profile p = ctx.profile;
    Duration perRound =
        p.sweepDuration().compareTo(Duration.ofSeconds(1)) < 0
            ? p.sweepDuration()
            : Duration.ofSeconds(1);
    if (perRound.isZero() || p.sweepWarmupLimit().isZero()) {
      return;
    }
    WarmupRule rule =
        WarmupRule.upTo((int) (p.sweepWarmupLimit().toMillis() / Math.max(1, perRound.toMillis())));
    List<Future<Void>> warming = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (Map.Entry<SweepSetting, Session> e : servers.entrySet()) {
        Session s = e.getValue();
        List<HttpRequest> r = requests.get(e.getKey());
        warming.add(
            pool.submit(
                () -> {
                  long t0 = System.nanoTime();
                  List<WarmupRule.Round> curve = s.warmUntil(r, 4, perRound, rule);
                  warmups.add(
                      new Warmup(
                          round,
                          count,
                          e.getKey().label(),
                          type,
                          (System.nanoTime() - t0) / 1e9,
                          rule.steady(curve),
                          curve));
                  return null;
                }));
      }
    }
    for (Future<Void> f : warming) {
      if (f.state() == Future.State.FAILED) {
        throw new IllegalStateException("sweep: a warm-up failed", f.exceptionNow());
      }
    }
  }

  /** Every warm-up so far, in the order they ended. */
  List<Warmup> warmups() {
    synchronized (warmups) {
      return List.copyOf(warmups);
    }
  }

  /** The warm-ups as {@code sweep.json}'s {@code warmup} array, CPU ms rounded to 0.01. */
  ArrayNode warmupsJson() {
    ArrayNode a = Json.MAPPER.createArrayNode();
    for (Warmup w : warmups()) {
      ObjectNode n = a.addObject();
      n.put("round", w.round());
      n.put("segments", w.count());
      n.put("setting", w.setting());
      n.put("type", w.type());
      n.put("seconds", Math.round(w.seconds() * 10) / 10.0);
      n.put("steady", w.steady());
      ArrayNode c = n.putArray("cpu_ms_per_query");
      ArrayNode j = n.putArray("compiler_share");
      for (WarmupRule.Round r : w.rounds()) {
        double v = r.cpuMsPerQuery();
        if (Double.isFinite(v)) {
          c.add(Math.round(v * 100) / 100.0);
        } else {
          c.addNull();
        }
        if (Double.isNaN(r.compilerShare())) {
          j.addNull();
        } else {
          j.add(Math.round(r.compilerShare() * 100) / 100.0);
        }
      }
    }
    return a;
  }

  /** One line on the warm-ups of a round and count, for the run's log. */
  String describe(int round, int count) {
    StringBuilder line = new StringBuilder();
    for (Warmup w : warmups()) {
      if (w.round() != round || w.count() != count) {
        continue;
      }
      List<WarmupRule.Round> c = w.rounds();
      line.append(
          String.format(
              Locale.ROOT,
              "%n  %s %s: %d rounds in %.1f s, CPU ms/query %.2f → %.2f%s",
              w.setting(),
              w.type(),
              c.size(),
              w.seconds(),
              c.getFirst().cpuMsPerQuery(),
              c.getLast().cpuMsPerQuery(),
              w.steady() ? "" : " (not steady at the limit)"));
    }
    return line.toString();
  }

  static void closeAll(Map<SweepSetting, Session> servers) {
    for (Session s : servers.values()) {
      s.close();
    }
  }
}
