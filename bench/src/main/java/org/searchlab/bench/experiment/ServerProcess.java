package org.searchlab.bench.experiment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.searchlab.bench.load.ProcessCpu;

/**
 * One {@code searchlab serve} child JVM on loopback: started on a free ephemeral port with the
 * runner's class path, waited for until {@code /health} answers, and always stopped by {@link
 * #close()} (SIGTERM, then SIGKILL after 15 s) — also from a shutdown hook if the runner dies.
 *
 * <p>The child runs without {@code -ea} (assertions are for tests, not for measurements) and with
 * the SIMD vector module. Not thread-safe: one owner starts and stops it.
 */
public final class ServerProcess implements AutoCloseable {
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(120);

  private final Process process;
  private final URI base;
  private final Path log;
  private final Thread shutdownHook;

  private ServerProcess(Process process, URI base, Path log) {
    this.process = process;
    this.base = base;
    this.log = log;
    this.shutdownHook = new Thread(process::destroyForcibly, "kill-server-" + process.pid());
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /**
   * Starts a server and waits until it is healthy.
   *
   * @param options the store and its settings
   * @param dataDir the server's data directory (kept across restarts of the same index)
   * @param heap the child's -Xmx, e.g. {@code 2g}
   * @param log file that receives the child's stdout and stderr (appended)
   */
  public static ServerProcess start(ServerOptions options, Path dataDir, String heap, Path log)
      throws IOException, InterruptedException {
    return start(options, dataDir, heap, log, List.of());
  }

  /**
   * {@link #start(ServerOptions, Path, String, Path)} with {@code jvmFlags} after the child's own
   * JVM flags, where the JVM lets the last of a flag win (the restart probe's {@code -Xms64m} and
   * heap-shrinking flags).
   */
  public static ServerProcess start(
      ServerOptions options, Path dataDir, String heap, Path log, List<String> jvmFlags)
      throws IOException, InterruptedException {
    return start(
        List.of(
            // The launcher passes the distribution's class path, so the server runs with what
            // ships and nothing of the benchmark's; tests run with their own class path.
            System.getProperty("searchlab.server.classpath", System.getProperty("java.class.path")),
            "org.searchlab.distribution.SearchlabCli",
            "serve"),
        options,
        dataDir,
        heap,
        log,
        jvmFlags);
  }

  /**
   * Starts {@code mainClass} instead of the distribution's {@code serve}, on this JVM's class path,
   * with {@code leadingArgs} before serve's flags: a server inside a test harness (the power-loss
   * child of {@code crashtest}, which then reads commands from {@link #tell}).
   */
  public static ServerProcess startWrapped(
      String mainClass,
      List<String> leadingArgs,
      ServerOptions options,
      Path dataDir,
      String heap,
      Path log)
      throws IOException, InterruptedException {
    List<String> launch = new ArrayList<>();
    launch.add(System.getProperty("java.class.path"));
    launch.add(mainClass);
    launch.addAll(leadingArgs);
    return start(launch, options, dataDir, heap, log, List.of());
  }

  /** {@code launch}: the class path, the main class and the arguments before serve's flags. */
  private static ServerProcess start(
      List<String> launch,
      ServerOptions options,
      Path dataDir,
      String heap,
      Path log,
      List<String> jvmFlags)
      throws IOException, InterruptedException {
    int port = freePort();
    Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBin.toString());
    cmd.addAll(
        List.of(
            "--add-modules",
            "jdk.incubator.vector",
            "--enable-native-access=ALL-UNNAMED",
            "-Xms" + heap,
            "-Xmx" + heap,
            "-XX:+UseG1GC",
            // As the launcher's serve: a server out of memory ends instead of limping on, and
            // what survives one young collection is promoted at once.
            "-XX:+ExitOnOutOfMemoryError",
            "-XX:MaxTenuringThreshold=1",
            gcLogFlag(log),
            // Compiler threads that live as long as the JVM, so that ProcessCpu can leave their
            // time out exactly (a thread that exits would take its CPU time with it).
            "-XX:-UseDynamicNumberOfCompilerThreads"));
    // The runner's huge-page setting, which the launcher chose as it does for serve.
    cmd.addAll(org.searchlab.bench.report.HugePages.childFlags());
    cmd.addAll(jvmFlags);
    cmd.add("-cp");
    cmd.addAll(launch);
    cmd.addAll(
        List.of(
            "--host",
            "127.0.0.1",
            "--port",
            Integer.toString(port),
            "--data-dir",
            dataDir.toString()));
    cmd.addAll(options.flags());
    Files.createDirectories(dataDir);
    Files.createDirectories(log.toAbsolutePath().getParent());
    Files.writeString(
        log,
        "# " + String.join(" ", cmd) + "\n",
        java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.APPEND);
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    ServerProcess server = new ServerProcess(p, URI.create("http://127.0.0.1:" + port), log);
    try {
      server.awaitHealthy(log);
    } catch (IOException | RuntimeException | InterruptedException e) {
      server.close();
      throw e;
    }
    return server;
  }

  private void awaitHealthy(Path log) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    try (HttpClient probe = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build()) {
      HttpRequest health =
          HttpRequest.newBuilder(base.resolve("/health")).timeout(Duration.ofSeconds(2)).build();
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IOException(
              "server exited with status "
                  + process.exitValue()
                  + " before it was healthy; "
                  + log
                  + " ends with:\n"
                  + tail(log, 15));
        }
        try {
          if (probe.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
            return;
          }
        } catch (IOException e) {
          // not listening yet
        }
        Thread.sleep(100);
      }
    }
    throw new IOException("server not healthy after " + STARTUP_TIMEOUT + "; see " + log);
  }

  /** The server's base address, e.g. {@code http://127.0.0.1:41234}. */
  public URI base() {
    return base;
  }

  /** The child JVM's pid. */
  public long pid() {
    return process.pid();
  }

  /** The child's CPU-time reader. */
  public ProcessCpu cpu() {
    return new ProcessCpu(process.pid());
  }

  /**
   * Writes {@code line} to the child's standard input (a command for a wrapped server, {@link
   * #startWrapped}).
   */
  public void tell(String line) throws IOException {
    var in = process.getOutputStream();
    in.write((line + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    in.flush();
  }

  /**
   * Waits until the child exits by itself, at most {@code timeout}; its exit status, or −1 if it
   * still runs.
   */
  public int awaitExit(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
  }

  /** Whether the child is still running. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * SIGKILL now, and wait until the child is gone (for crash tests); {@link #close()} after it is a
   * no-op.
   */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
    close();
  }

  /**
   * The flag that logs one line per GC pause beside a server's log, one file per JVM (the JVM puts
   * its pid in {@code %p}). The file name is quoted: unquoted, a colon in the output path (which
   * the user chooses) would split the option and the server would not start.
   */
  static String gcLogFlag(Path log) {
    String name = log.getFileName().toString().replaceFirst("\\.log$", "");
    Path file = log.toAbsolutePath().resolveSibling(name + "-gc-%p.log");
    return "-Xlog:gc:file=\"" + file + "\":uptime";
  }

  /**
   * The child's peak resident memory ({@code VmHWM} of {@code /proc/<pid>/status}) in bytes, or −1
   * where it cannot be read (not Linux, or the child is gone).
   */
  public long peakResidentBytes() {
    try {
      for (String line :
          Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not readable here
    }
    return -1;
  }

  /**
   * SIGTERM, then waits up to {@code timeout} for the child to exit (a mutable server writes its
   * snapshot on the way), and returns how long it took; {@link #close()} after it is a no-op.
   *
   * @throws IOException when the child still runs after {@code timeout} (it is then killed)
   */
  public Duration stop(Duration timeout) throws IOException, InterruptedException {
    // A profiled cell's JMX connection to this process would outlive it: its client then logs
    // "Failed to check connection" warnings into the run's log every few seconds.
    FlightRecorders.forget(process.pid());
    long t0 = System.nanoTime();
    process.destroy();
    boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    close();
    if (!exited) {
      throw new IOException(
          "server " + process.pid() + " still ran " + timeout + " after SIGTERM; killed");
    }
    return took;
  }

  @Override
  public void close() {
    long peak = process.isAlive() ? peakResidentBytes() : -1;
    if (peak > 0) {
      try {
        Files.writeString(
            log,
            String.format("# peak resident memory (VmHWM): %d MB%n", peak >> 20),
            java.nio.file.StandardOpenOption.APPEND);
      } catch (IOException e) {
        // the log is a record, not a result: the server stops either way
      }
    }
    FlightRecorders.forget(process.pid());
    try {
      if (process.isAlive()) {
        process.destroy();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          process.waitFor(15, TimeUnit.SECONDS);
        }
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // already shutting down: the hook runs anyway
      }
    }
  }

  private static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on loopback", e);
    }
  }
}
