package org.searchlab.bench.experiment;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.searchlab.bench.load.CellStats;
import org.searchlab.bench.load.LoadGenerator;

/**
 * One running server and the ways the runner talks to it: search requests in its dialect, hit ids
 * for quality, load cells, feeds and admin calls. Closing it stops the server. Not thread-safe
 * apart from what the load generator and feeder do internally.
 */
final class Session implements AutoCloseable {
  final ServerProcess server;
  final SearchDialect dialect;
  final ServerAdmin admin;
  private final LoadGenerator load;

  private Session(ServerProcess server, SearchDialect dialect, LoadGenerator load) {
    this.server = server;
    this.dialect = dialect;
    this.load = load;
    this.admin = new ServerAdmin(load.http(), server.base());
  }

  static Session start(
      ServerOptions options, Path dataDir, String heap, Path log, LoadGenerator load)
      throws IOException, InterruptedException {
    ServerProcess p = ServerProcess.start(options, dataDir, heap, log);
    return new Session(p, SearchDialect.ofStore(options.store()), load);
  }

  /** The benchmark's request for every query, for one query type and filter setting. */
  List<HttpRequest> requests(List<BenchQuery> queries, QueryType type, boolean filtered) {
    return requests(queries, type, filtered, Setting.BENCHMARK);
  }

  /** The request for every query with the vector part's setting. */
  List<HttpRequest> requests(
      List<BenchQuery> queries, QueryType type, boolean filtered, Setting setting) {
    List<HttpRequest> out = new ArrayList<>(queries.size());
    for (BenchQuery q : queries) {
      out.add(dialect.search(server.base(), q, type, filtered, setting));
    }
    return out;
  }

  /** Sends each request once, in order, and returns the hit ids of each answer. */
  List<List<String>> ids(List<HttpRequest> requests) throws IOException, InterruptedException {
    return ids(requests, dialect);
  }

  /** The same, for requests in a given dialect. */
  List<List<String>> ids(List<HttpRequest> requests, SearchDialect dialect)
      throws IOException, InterruptedException {
    List<List<String>> out = new ArrayList<>(requests.size());
    for (HttpRequest r : requests) {
      HttpResponse<byte[]> resp = load.http().send(r, HttpResponse.BodyHandlers.ofByteArray());
      if (resp.statusCode() != 200) {
        throw new IOException(
            "search answered "
                + resp.statusCode()
                + ": "
                + new String(resp.body(), java.nio.charset.StandardCharsets.UTF_8));
      }
      out.add(dialect.ids(resp.body()));
    }
    return out;
  }

  /** Runs one closed-loop cell against this server. */
  CellStats cell(
      List<HttpRequest> requests, int clients, java.time.Duration warmup, java.time.Duration window)
      throws InterruptedException {
    return load.run(requests, clients, warmup, window, server.cpu());
  }

  /**
   * Warms a freshly started server's JIT: for each query type (filtered and not mixed) it runs
   * 4-client rounds of {@code perRound} until two consecutive rounds agree on QPS within 10% (at
   * most {@link #MAX_WARMUP_ROUNDS}), results discarded. A fixed time is not enough when other
   * processes share the cores: the compiler threads get too little CPU, and the first cells would
   * measure the interpreter.
   */
  void warmUp(List<BenchQuery> queries, java.time.Duration perRound) throws InterruptedException {
    for (QueryType t : QueryType.values()) {
      List<HttpRequest> mixed = new ArrayList<>(requests(queries, t, false));
      mixed.addAll(requests(queries, t, true));
      double previous = -1;
      for (int round = 0; round < MAX_WARMUP_ROUNDS; round++) {
        double qps = load.run(mixed, 4, java.time.Duration.ZERO, perRound, server.cpu()).qps();
        if (previous > 0 && Math.abs(qps - previous) <= 0.1 * previous) {
          break;
        }
        previous = qps;
      }
    }
  }

  /** Upper bound on warm-up rounds per query type. */
  static final int MAX_WARMUP_ROUNDS = 8;

  /** A feeder in this server's dialect. */
  Feeder feeder(int batchSize) {
    return new Feeder(load.http(), server.base(), dialect instanceof EsDialect, batchSize);
  }

  @Override
  public void close() {
    server.close();
  }
}
