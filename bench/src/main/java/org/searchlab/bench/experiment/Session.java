package org.searchlab.bench.experiment;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.searchlab.bench.load.CellStats;
import org.searchlab.bench.load.CpuMeter;
import org.searchlab.bench.load.LoadGenerator;
import org.searchlab.bench.load.ProcessCpu;
import org.searchlab.opensearch.OpenSearchCluster;

/**
 * One running engine and the ways the runner talks to it: search requests in its dialect, hit ids
 * for quality, load cells, feeds and admin calls, and the reader of its CPU. The engine is a
 * searchlab server, a local OpenSearch cluster (both children of the runner, stopped by {@link
 * #close()}) or an external target (left running). Not thread-safe apart from what the load
 * generator and feeder do internally.
 */
final class Session implements AutoCloseable {
  /** The engine's base address, such as {@code http://127.0.0.1:41234}. */
  final URI base;

  /** The engine's CPU reader; its {@link CpuMeter#source()} goes into every row. */
  final CpuMeter cpu;

  final SearchDialect dialect;
  final ServerAdmin admin;
  private final LoadGenerator load;
  private final AutoCloseable owner;
  private final BenchMapping mapping;

  private Session(
      URI base,
      CpuMeter cpu,
      SearchDialect dialect,
      ServerAdmin admin,
      LoadGenerator load,
      AutoCloseable owner,
      BenchMapping mapping) {
    this.base = base;
    this.cpu = cpu;
    this.dialect = dialect;
    this.admin = admin;
    this.load = load;
    this.owner = owner;
    this.mapping = mapping;
  }

  /** Starts a searchlab server; its CPU is its JVM's, from {@code /proc}. */
  static Session start(
      ServerOptions options, Path dataDir, String heap, Path log, LoadGenerator load)
      throws IOException, InterruptedException {
    return start(options, dataDir, heap, log, load, BenchMapping.PRODUCT);
  }

  /**
   * Starts a searchlab server for an index of {@code mapping}: over another mapping than the
   * product's, the server starts without its product index ({@code --no-default-index}), the run
   * creates the index with {@code index.store} = the server's store, and speaks the Elasticsearch
   * dialect.
   */
  static Session start(
      ServerOptions options,
      Path dataDir,
      String heap,
      Path log,
      LoadGenerator load,
      BenchMapping mapping)
      throws IOException, InterruptedException {
    return start(options, dataDir, heap, log, load, mapping, List.of());
  }

  /**
   * {@link #start(ServerOptions, Path, String, Path, LoadGenerator, BenchMapping)} with extra JVM
   * flags for the child ({@link ServerProcess#start(ServerOptions, Path, String, Path, List)}).
   */
  static Session start(
      ServerOptions options,
      Path dataDir,
      String heap,
      Path log,
      LoadGenerator load,
      BenchMapping mapping,
      List<String> jvmFlags)
      throws IOException, InterruptedException {
    ServerOptions o = mapping.product() ? options : options.toBuilder().defaultIndex(false).build();
    ServerProcess p = ServerProcess.start(o, dataDir, heap, log, jvmFlags);
    boolean quantized = o.quantization() != org.searchlab.core.VectorQuantization.NONE;
    return new Session(
        p.base(),
        p.cpu(),
        SearchDialect.ofStore(o.store(), quantized, mapping),
        new ServerAdmin(
            load.http(),
            p.base(),
            ServerAdmin.Kind.ELASTICSEARCH,
            0,
            mapping,
            mapping.product() ? null : o.store()),
        load,
        p,
        mapping);
  }

  /**
   * A session on a local OpenSearch cluster, which it then owns: requests go to node 1; CPU is the
   * sum over every node's JVM from {@code /proc} (JIT compiler threads left out, as for searchlab's
   * servers), with the cluster's own {@code _nodes/stats} as the second source.
   *
   * @param replicas copies of the benchmark index's one shard
   */
  static Session openSearch(OpenSearchCluster cluster, int replicas, LoadGenerator load) {
    URI base = cluster.httpUri();
    CpuMeter cpu =
        CpuMeter.sum(
            cluster.pids().stream().map(ProcessCpu::new).toList(),
            Optional.of(new NodesStatsCpu(load.http(), base)));
    return new Session(
        base,
        cpu,
        new OsDialect(),
        new ServerAdmin(load.http(), base, ServerAdmin.Kind.OPENSEARCH, replicas),
        load,
        cluster,
        BenchMapping.PRODUCT);
  }

  /**
   * A session on an external endpoint (not stopped on close). The {@code es} dialect asks the root
   * ({@code GET /}) whether it is OpenSearch and then speaks OpenSearch's query language. CPU comes
   * from the engine's {@code _nodes/stats} where it answers; a Vespa application's metrics average
   * over the minute before each request, longer than a cell, so Vespa targets (and
   * Elasticsearch-dialect targets without {@code _nodes/stats}) report no CPU ({@link
   * CpuMeter#NONE}).
   */
  static Session target(Variant.Target target, LoadGenerator load)
      throws IOException, InterruptedException {
    return target(target, load, BenchMapping.PRODUCT);
  }

  /**
   * {@link #target(Variant.Target, LoadGenerator)} for an index of {@code mapping}: another mapping
   * than the product's is created on an Elasticsearch-dialect target with the mapping's body
   * (without {@code index.store}); Vespa and OpenSearch targets take the product mapping only.
   */
  static Session target(Variant.Target target, LoadGenerator load, BenchMapping mapping)
      throws IOException, InterruptedException {
    URI base = target.uri();
    if (!mapping.product()) {
      if (!target.dialect().equals("es") || isOpenSearch(load, base)) {
        throw new IllegalArgumentException(
            "target "
                + base
                + ": a run on another mapping than the product's needs an Elasticsearch-dialect"
                + " target (the Vespa and OpenSearch requests are the product's)");
      }
      NodesStatsCpu stats = new NodesStatsCpu(load.http(), base);
      return new Session(
          base,
          stats.readable() ? stats : CpuMeter.NONE,
          new EsDialect(mapping, false),
          new ServerAdmin(load.http(), base, ServerAdmin.Kind.ELASTICSEARCH, 0, mapping, null),
          load,
          () -> {},
          mapping);
    }
    if (target.dialect().equals("vespa")) {
      return new Session(
          base,
          CpuMeter.NONE,
          new VespaDialect(),
          new ServerAdmin(load.http(), base, ServerAdmin.Kind.VESPA, 0),
          load,
          () -> {},
          mapping);
    }
    boolean openSearch = target.dialect().equals("opensearch") || isOpenSearch(load, base);
    NodesStatsCpu stats = new NodesStatsCpu(load.http(), base);
    return new Session(
        base,
        stats.readable() ? stats : CpuMeter.NONE,
        openSearch ? new OsDialect() : new EsDialect(),
        new ServerAdmin(
            load.http(),
            base,
            openSearch ? ServerAdmin.Kind.OPENSEARCH : ServerAdmin.Kind.ELASTICSEARCH,
            0),
        load,
        () -> {},
        mapping);
  }

  /** Whether {@code GET /} names OpenSearch as its distribution (false when it does not answer). */
  private static boolean isOpenSearch(LoadGenerator load, URI base)
      throws IOException, InterruptedException {
    HttpResponse<byte[]> r =
        load.http()
            .send(
                HttpRequest.newBuilder(base.resolve("/"))
                    .timeout(java.time.Duration.ofSeconds(30))
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      return false;
    }
    try {
      return "opensearch"
          .equals(Json.MAPPER.readTree(r.body()).path("version").path("distribution").asText());
    } catch (com.fasterxml.jackson.core.JacksonException e) {
      return false; // not JSON: not an OpenSearch root
    }
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
      out.add(dialect.search(base, q, type, filtered, setting));
    }
    return out;
  }

  /**
   * Sends each request once and returns the hit ids of each answer, in the order of the requests.
   * Up to {@link #CHECK_IN_FLIGHT} requests are in flight at once: a quality check is not timed,
   * and one request at a time left a 2-core server half idle (the checks, one request at a time,
   * took roughly 12 of a 35-minute standard run on 2026-11-28, going by its progress log).
   */
  List<List<String>> ids(List<HttpRequest> requests) throws IOException, InterruptedException {
    return ids(requests, dialect);
  }

  /** Requests a quality check keeps in flight. */
  static final int CHECK_IN_FLIGHT = 4;

  /** The same, for requests in a given dialect. */
  List<List<String>> ids(List<HttpRequest> requests, SearchDialect dialect)
      throws IOException, InterruptedException {
    List<List<String>> out = new ArrayList<>(requests.size());
    for (HttpResponse<byte[]> resp : responses(requests)) {
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

  /**
   * Sends each request once, up to {@link #CHECK_IN_FLIGHT} at a time, and returns the answers
   * whatever their status, in the order of the requests.
   */
  List<HttpResponse<byte[]>> responses(List<HttpRequest> requests)
      throws IOException, InterruptedException {
    java.util.concurrent.Semaphore slots = new java.util.concurrent.Semaphore(CHECK_IN_FLIGHT);
    List<java.util.concurrent.CompletableFuture<HttpResponse<byte[]>>> sent =
        new ArrayList<>(requests.size());
    try {
      for (HttpRequest r : requests) {
        slots.acquire();
        sent.add(
            load.http()
                .sendAsync(r, HttpResponse.BodyHandlers.ofByteArray())
                .whenComplete((x, e) -> slots.release()));
      }
      List<HttpResponse<byte[]>> out = new ArrayList<>(requests.size());
      for (int i = 0; i < sent.size(); i++) {
        HttpResponse<byte[]> resp;
        try {
          resp = sent.get(i).get();
        } catch (java.util.concurrent.ExecutionException e) {
          if (!LoadGenerator.isPoolRace(e.getCause())) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
          }
          // The server answered and the JDK client lost it: ask again, once.
          resp = load.http().send(requests.get(i), HttpResponse.BodyHandlers.ofByteArray());
        }
        out.add(resp);
      }
      return out;
    } finally {
      // On a failure, wait for what is still in flight rather than leave it to the next check.
      for (java.util.concurrent.CompletableFuture<HttpResponse<byte[]>> f : sent) {
        try {
          f.get();
        } catch (java.util.concurrent.ExecutionException
            | java.util.concurrent.CancellationException e) {
          // reported above, or the first failure already was
        }
      }
    }
  }

  /** The pid of the server's JVM when it is a searchlab server this session started, else empty. */
  java.util.OptionalLong serverPid() {
    return owner instanceof ServerProcess p
        ? java.util.OptionalLong.of(p.pid())
        : java.util.OptionalLong.empty();
  }

  /**
   * Stops the searchlab server this session started with SIGTERM and returns how long it took to
   * exit ({@link ServerProcess#stop}).
   *
   * @throws IllegalStateException when this session did not start its server
   */
  java.time.Duration stop(java.time.Duration timeout) throws IOException, InterruptedException {
    if (!(owner instanceof ServerProcess p)) {
      throw new IllegalStateException(base + " is not a server this run started");
    }
    return p.stop(timeout);
  }

  /** The mapping of this session's index. */
  BenchMapping mapping() {
    return mapping;
  }

  /** Runs one closed-loop cell against this server. */
  CellStats cell(
      List<HttpRequest> requests, int clients, java.time.Duration warmup, java.time.Duration window)
      throws InterruptedException {
    return load.run(requests, clients, warmup, window, cpu);
  }

  /** {@link #cell}, adding the cell's latencies to {@code pooled} too. */
  CellStats cell(
      List<HttpRequest> requests,
      int clients,
      java.time.Duration warmup,
      java.time.Duration window,
      org.HdrHistogram.Histogram pooled)
      throws InterruptedException {
    return load.run(requests, clients, warmup, window, cpu, pooled);
  }

  /**
   * Warms a freshly started server's JIT: for each query type (filtered and not mixed) it runs
   * 4-client rounds of {@code perRound} until two consecutive rounds agree on QPS within 10% (at
   * most {@link #MAX_WARMUP_ROUNDS}), results discarded. A fixed time is not enough when other
   * processes share the cores: the compiler threads get too little CPU, and the first cells would
   * measure the interpreter.
   */
  void warmUp(List<BenchQuery> queries, java.time.Duration perRound) throws InterruptedException {
    warmUp(queries, List.of(QueryType.values()), perRound);
  }

  /**
   * {@link #warmUp} of the query types a run measures only: a type it does not measure would cost
   * up to {@link #MAX_WARMUP_ROUNDS} rounds of {@code perRound} for nothing.
   */
  void warmUp(List<BenchQuery> queries, List<QueryType> types, java.time.Duration perRound)
      throws InterruptedException {
    for (QueryType t : types) {
      List<HttpRequest> mixed = new ArrayList<>(requests(queries, t, false));
      mixed.addAll(requests(queries, t, true));
      warmUntilSteady(mixed, perRound);
    }
  }

  /**
   * {@link #warmUp}'s rounds for any requests (the sweep's faceted ones): 4-client rounds of {@code
   * perRound} until two in a row agree on QPS within 10%, at most {@link #MAX_WARMUP_ROUNDS}.
   */
  void warmUntilSteady(List<HttpRequest> requests, java.time.Duration perRound)
      throws InterruptedException {
    double previous = -1;
    for (int round = 0; round < MAX_WARMUP_ROUNDS; round++) {
      double qps = load.run(requests, 4, java.time.Duration.ZERO, perRound, cpu).qps();
      if (previous > 0 && Math.abs(qps - previous) <= 0.1 * previous) {
        break;
      }
      previous = qps;
    }
  }

  /**
   * Warms this server's JIT on {@code requests} until {@code rule} finds it steady: {@code
   * clients}-client rounds of {@code perRound}, results discarded. Returns the rounds, the
   * warm-up's curve.
   */
  List<WarmupRule.Round> warmUntil(
      List<HttpRequest> requests, int clients, java.time.Duration perRound, WarmupRule rule)
      throws InterruptedException {
    List<WarmupRule.Round> rounds = new ArrayList<>();
    ProcessCpu process = cpu instanceof ProcessCpu p ? p : null;
    while (!rule.done(rounds)) {
      long compilers = process == null ? 0 : process.compilerCpuNanos();
      CellStats c = load.run(requests, clients, java.time.Duration.ZERO, perRound, cpu);
      double share = Double.NaN;
      if (process != null) {
        double compiled = process.compilerCpuNanos() - compilers;
        double rest = c.cpuCores() * c.seconds() * 1e9;
        share = compiled + rest > 0 ? compiled / (compiled + rest) : 0;
      }
      rounds.add(new WarmupRule.Round(cpuMsPerQuery(c, clients), share));
    }
    return rounds;
  }

  /**
   * A warm-up round's server CPU ms per query; where no CPU was read (a server this session did not
   * start), the clients' wall ms per query instead, which falls with it.
   */
  private static double cpuMsPerQuery(CellStats c, int clients) {
    if (c.requests() == 0) {
      return Double.POSITIVE_INFINITY;
    }
    double cores = c.cpuCores() > 0 ? c.cpuCores() : clients;
    return cores * c.seconds() * 1000.0 / c.requests();
  }

  /** Upper bound on warm-up rounds per query type. */
  static final int MAX_WARMUP_ROUNDS = 8;

  /** A feeder in this server's dialect. */
  Feeder feeder(int batchSize) {
    return new Feeder(load.http(), base, !(dialect instanceof VespaDialect), batchSize, mapping);
  }

  /**
   * A feeder of {@code _bulk} requests whatever this server's dialect (searchlab's servers answer
   * both): the Elasticsearch-dialect variants' client, for {@link Phases#FEED_SAME_CLIENT}.
   */
  Feeder bulkFeeder(int batchSize) {
    return new Feeder(load.http(), base, true, batchSize, mapping);
  }

  @Override
  public void close() {
    try {
      owner.close();
    } catch (Exception e) {
      throw new IllegalStateException("stopping " + base + " failed", e);
    }
  }
}
