package org.searchlab.opensearch;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * {@link OpenSearchCluster} as child JVMs running {@code NodeMain} from {@code opensearch-node}.
 * Thread-safe: the node list is fixed at start; {@link #close()} is synchronized and idempotent.
 */
final class ChildOpenSearchCluster implements OpenSearchCluster {
  private static final int START_ATTEMPTS = 3;
  private static final Duration POLL = Duration.ofMillis(250);
  private static final Duration GRACEFUL_STOP = Duration.ofSeconds(30);
  private static final Duration TERM_STOP = Duration.ofSeconds(15);
  private static final AtomicInteger STARTS = new AtomicInteger();

  /**
   * JVM options of OpenSearch's distribution ({@code config/jvm.options} and the launcher's system
   * options) that change how the engine runs: G1 as tuned there, Netty without Unsafe, the locale
   * providers its date parsing expects, and the SIMD module Lucene's vector code needs. Heap-dump
   * and GC-log paths are left out.
   */
  private static final List<String> JVM_OPTIONS =
      List.of(
          "-XX:+UseG1GC",
          "-XX:G1ReservePercent=25",
          "-XX:InitiatingHeapOccupancyPercent=30",
          "-Xss1m",
          "-XX:+AlwaysPreTouch",
          "-XX:-OmitStackTraceInFastThrow",
          "-XX:+ShowCodeDetailsInExceptionMessages",
          "-Djava.awt.headless=true",
          "-Dfile.encoding=UTF-8",
          "-Djna.nosys=true",
          "-Dio.netty.noUnsafe=true",
          "-Dio.netty.noKeySetOptimization=true",
          "-Dio.netty.recycler.maxCapacityPerThread=0",
          "-Dlog4j.shutdownHookEnabled=false",
          "-Dlog4j2.disable.jmx=true",
          "-Dlog4j2.formatMsgNoLookups=true",
          "-Djava.locale.providers=SPI,CLDR",
          "--add-modules=jdk.incubator.vector",
          "--enable-native-access=ALL-UNNAMED",
          // Compiler threads that live as long as the JVM, so that a /proc CPU reader can leave
          // their time out exactly, as for searchlab's own servers.
          "-XX:-UseDynamicNumberOfCompilerThreads");

  /** One child JVM. */
  private record Node(String name, Process process, URI http, Path log) {}

  private final OpenSearchConfig config;
  private final String clusterName;
  private final List<Node> nodes;
  private final Thread shutdownHook;
  private boolean closed;

  private ChildOpenSearchCluster(OpenSearchConfig config, String clusterName, List<Node> nodes) {
    this.config = config;
    this.clusterName = clusterName;
    this.nodes = List.copyOf(nodes);
    this.shutdownHook =
        new Thread(
            () -> this.nodes.forEach(n -> n.process().destroyForcibly()),
            "kill-opensearch-" + clusterName);
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  static OpenSearchCluster start(OpenSearchConfig config, Path directory, NodeClasspath classpath)
      throws IOException, InterruptedException {
    Files.createDirectories(directory);
    String clusterName =
        "searchlab-" + ProcessHandle.current().pid() + "-" + STARTS.incrementAndGet();
    List<Path> created = new ArrayList<>();
    for (int i = 1; i <= config.nodes(); i++) {
      if (!Files.exists(nodeDirectory(directory, i))) {
        created.add(nodeDirectory(directory, i));
      }
    }
    for (int attempt = 1; ; attempt++) {
      int[] ports = freePorts(2 * config.nodes());
      ChildOpenSearchCluster cluster = launch(config, directory, classpath, clusterName, ports);
      try {
        cluster.awaitGreen();
        return cluster;
      } catch (PortTakenException e) {
        cluster.close();
        if (attempt == START_ATTEMPTS) {
          throw new IOException(
              "OpenSearch lost its ports to other processes " + START_ATTEMPTS + " times", e);
        }
        // A node that bootstrapped before another lost its port has written cluster state
        // that the next attempt's nodes would not accept: start from the empty directories.
        for (Path dir : created) {
          deleteRecursively(dir);
        }
      } catch (IOException | RuntimeException | InterruptedException | Error e) {
        cluster.close();
        throw e;
      }
    }
  }

  private static ChildOpenSearchCluster launch(
      OpenSearchConfig config,
      Path directory,
      NodeClasspath classpath,
      String clusterName,
      int[] ports)
      throws IOException {
    int n = config.nodes();
    List<String> names = new ArrayList<>();
    List<String> seeds = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      names.add("node-" + (i + 1));
      seeds.add("127.0.0.1:" + ports[n + i]);
    }
    List<Node> started = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("cluster.name", clusterName);
        settings.put("node.name", names.get(i));
        settings.put("network.host", "127.0.0.1");
        settings.put("http.port", Integer.toString(ports[i]));
        settings.put("transport.port", Integer.toString(ports[n + i]));
        if (n == 1) {
          settings.put("discovery.type", "single-node");
        } else {
          settings.put("discovery.type", "zen");
          settings.put("discovery.seed_hosts", "[" + String.join(",", seeds) + "]");
          settings.put(
              "cluster.initial_cluster_manager_nodes", "[" + String.join(",", names) + "]");
        }
        // A shared development disk above 85 % full must not stop shards from being allocated.
        settings.put("cluster.routing.allocation.disk.threshold_enabled", "false");
        settings.put(
            "search.concurrent_segment_search.mode",
            config.concurrentSegmentSearch() ? "all" : "none");
        // 0: Lucene's own slicing, as the segmented store's default (OpenSearch's default is 1).
        settings.put("search.concurrent.max_slice_count", "0");
        if (config.processors() > 0) {
          settings.put("node.processors", Integer.toString(config.processors()));
        }
        settings.putAll(config.settings());
        started.add(
            startNode(
                config,
                classpath,
                nodeDirectory(directory, i + 1),
                directory.resolve(names.get(i) + ".log"),
                names.get(i),
                URI.create("http://127.0.0.1:" + ports[i]),
                settings));
      }
    } catch (IOException | RuntimeException e) {
      started.forEach(node -> node.process().destroyForcibly());
      throw e;
    }
    return new ChildOpenSearchCluster(config, clusterName, started);
  }

  private static Node startNode(
      OpenSearchConfig config,
      NodeClasspath classpath,
      Path nodeDir,
      Path log,
      String name,
      URI http,
      Map<String, String> settings)
      throws IOException {
    Files.createDirectories(nodeDir);
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xms" + config.heap());
    cmd.add("-Xmx" + config.heap());
    cmd.addAll(JVM_OPTIONS);
    if (config.processors() > 0) {
      cmd.add("-XX:ActiveProcessorCount=" + config.processors());
    }
    Path tmp = nodeDir.resolve("tmp");
    Files.createDirectories(tmp);
    cmd.add("-Djava.io.tmpdir=" + tmp);
    cmd.add("-cp");
    cmd.add(classpath.asClasspath());
    cmd.add(NodeClasspath.MAIN_CLASS);
    cmd.add(nodeDir.toString());
    settings.forEach((k, v) -> cmd.add(k + "=" + v));
    Files.writeString(
        log,
        "# " + String.join(" ", cmd) + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    // stdin stays a pipe the parent never writes to: its end of stream tells the child to stop.
    Process p =
        new ProcessBuilder(cmd)
            .directory(nodeDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    return new Node(name, p, http, log);
  }

  /** Waits until node 1 reports green health with every node joined and every node answers HTTP. */
  private void awaitGreen() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + config.startupTimeout().toNanos();
    String health =
        "/_cluster/health?wait_for_status=green&wait_for_nodes=" + nodes.size() + "&timeout=2s";
    try (OpenSearchHttp http = new OpenSearchHttp(Duration.ofSeconds(10))) {
      while (System.nanoTime() < deadline) {
        for (Node node : nodes) {
          if (!node.process().isAlive()) {
            String tail = tail(node.log(), 30);
            String what =
                node.name()
                    + " exited with status "
                    + node.process().exitValue()
                    + " while starting; "
                    + node.log()
                    + " ends with:\n"
                    + tail;
            if (tail.contains("BindException") || tail.contains("Address already in use")) {
              throw new PortTakenException(what);
            }
            throw new IOException(what);
          }
        }
        if (isGreen(http, health) && allAnswer(http)) {
          primeKnnParser(http);
          return;
        }
        Thread.sleep(POLL.toMillis());
      }
    }
    throw new IOException(
        "OpenSearch not green with "
            + nodes.size()
            + " node(s) after "
            + config.startupTimeout()
            + "; see "
            + logs());
  }

  /**
   * Sends every node one {@code knn} query with {@code method_parameters} before anything else
   * queries it. The k-NN plugin (3.5.0.0) fills its table of method parameter names lazily, on the
   * first such query, without a lock ({@code MethodParameter.enumOf}: the static map is published
   * empty, then filled), so concurrent first queries can find it empty and answer 400 "unknown
   * method parameter found [ef_search]", as the runner's sixteen clients once did in CI. One query
   * from one thread fills it. The query names no index that exists, so it only parses.
   */
  private void primeKnnParser(OpenSearchHttp http) throws IOException, InterruptedException {
    String body =
        "{\"size\":0,\"query\":{\"knn\":{\"v\":{\"vector\":[0],\"k\":1,"
            + "\"method_parameters\":{\"ef_search\":1}}}}}";
    for (Node node : nodes) {
      http.expectOk(
          "POST",
          node.http().resolve("/searchlab-knn-prime-*/_search?allow_no_indices=true"),
          body);
    }
  }

  private boolean isGreen(OpenSearchHttp http, String health) throws InterruptedException {
    try {
      OpenSearchHttp.Response r = http.send("GET", httpUri().resolve(health), null);
      JsonNode body = r.json();
      return r.status() == 200
          && "green".equals(body.path("status").asText())
          && body.path("number_of_nodes").asInt() == nodes.size();
    } catch (IOException e) {
      return false; // not listening yet
    }
  }

  private boolean allAnswer(OpenSearchHttp http) throws InterruptedException {
    for (Node node : nodes) {
      try {
        if (http.send("GET", node.http().resolve("/"), null).status() != 200) {
          return false;
        }
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }

  @Override
  public OpenSearchConfig config() {
    return config;
  }

  @Override
  public String clusterName() {
    return clusterName;
  }

  @Override
  public List<URI> httpUris() {
    return nodes.stream().map(Node::http).toList();
  }

  @Override
  public List<Long> pids() {
    return nodes.stream().map(n -> n.process().pid()).toList();
  }

  @Override
  public List<Path> logs() {
    return nodes.stream().map(Node::log).toList();
  }

  @Override
  public boolean isAlive() {
    return nodes.stream().allMatch(n -> n.process().isAlive());
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      // 1. End of stream on every stdin: each node closes itself (flushes, releases locks).
      for (Node node : nodes) {
        try {
          node.process().getOutputStream().close();
        } catch (IOException e) {
          // the pipe is already broken: the child is gone or going
        }
      }
      // 2. Give them GRACEFUL_STOP in total, then SIGTERM (its shutdown hook closes the node),
      //    then SIGKILL.
      awaitExit(GRACEFUL_STOP);
      nodes.forEach(n -> n.process().destroy());
      awaitExit(TERM_STOP);
      nodes.forEach(n -> n.process().destroyForcibly());
      awaitExit(TERM_STOP);
    } catch (InterruptedException e) {
      nodes.forEach(n -> n.process().destroyForcibly());
      Thread.currentThread().interrupt();
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // already shutting down: the hook runs anyway
      }
    }
  }

  private void awaitExit(Duration total) throws InterruptedException {
    long deadline = System.nanoTime() + total.toNanos();
    for (Node node : nodes) {
      long left = deadline - System.nanoTime();
      if (left > 0) {
        node.process().waitFor(left, TimeUnit.NANOSECONDS);
      }
    }
  }

  private static Path nodeDirectory(Path directory, int index) {
    return directory.resolve("node-" + index);
  }

  /**
   * {@code count} distinct free ports on loopback: all are held open together so none repeats, then
   * released for the children to bind (another process may take one in between, which {@link
   * PortTakenException} handles).
   */
  private static int[] freePorts(int count) throws IOException {
    List<ServerSocket> held = new ArrayList<>();
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        held.add(s);
        ports[i] = s.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : held) {
        s.close();
      }
    }
  }

  private static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** A node died because another process bound one of its ports first. */
  private static final class PortTakenException extends IOException {
    PortTakenException(String message) {
      super(message);
    }
  }
}
