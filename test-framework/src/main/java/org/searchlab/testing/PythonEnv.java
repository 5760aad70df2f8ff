package org.searchlab.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * A Python virtual environment made from one pinned requirements file, for the tests that prove
 * compatibility with real Python tools (pyvespa, LangChain's Elasticsearch store, Rally). The
 * project's files are the only recipe: {@code python3 -m venv} and {@code pip install -r} on first
 * use, so a fresh clone on a machine with only a JDK and {@code python3} (and PyPI) can run them.
 *
 * <p>Where it lives: {@code ~/.cache/searchlab/python/<name>-<key>} ({@code $XDG_CACHE_HOME} is
 * honoured; {@code -Dsearchlab.python.cache} or {@code SEARCHLAB_PYTHON_CACHE} moves it), outside
 * {@code target/} so {@code mvn clean} does not cost another install. The key is a SHA-256 of the
 * requirements file and the interpreter's version, so changing a pin or the Python makes a new
 * environment and never mutates one a concurrent run is using. Old environments are never deleted
 * automatically (another branch may still use them); delete the folder to reclaim the space.
 *
 * <p>Which Python: {@code -Dsearchlab.python} or {@code SEARCHLAB_PYTHON}, else {@code python3} on
 * the {@code PATH}; 3.10 or newer with {@code venv} and {@code ensurepip}. A missing or unusable
 * interpreter is an {@link IllegalStateException} that says what to install: the tests that need
 * Python fail, they never skip (CI has Python, so a skip would hide a broken environment).
 *
 * <p>Thread-safety: thread-safe, and safe across processes. Creation, in order:
 *
 * <ol>
 *   <li>A ready environment (its marker file exists) is used without locking: the marker is the
 *       last thing creation writes, so its presence means everything before it is on disk.
 *   <li>Otherwise a {@link ReentrantLock} per folder orders this JVM's threads (a JVM's {@link
 *       FileLock}s do not exclude its own threads: a second {@code lock()} throws), then an
 *       exclusive {@link FileLock} on {@code <name>-<key>.lock} orders the JVMs.
 *   <li>Under both, the marker is checked again (another JVM may just have finished); a folder
 *       without a marker is what a killed creation left, and is deleted before creating anew.
 * </ol>
 *
 * <p>Runs ({@link #run}, {@link #exec}) are independent processes and may be concurrent.
 */
public final class PythonEnv {
  /**
   * System property naming the Python interpreter; environment variable {@code SEARCHLAB_PYTHON}.
   */
  public static final String PYTHON_PROPERTY = "searchlab.python";

  /** System property of the cache folder; environment variable {@code SEARCHLAB_PYTHON_CACHE}. */
  public static final String CACHE_PROPERTY = "searchlab.python.cache";

  /** System property of the project's root folder (the build sets it for every test). */
  public static final String ROOT_PROPERTY = "searchlab.root";

  /** The oldest Python the pinned tools install on (langchain-core 1.x needs 3.10). */
  static final int MIN_MINOR = 10;

  /** The file whose presence means the environment is complete; it holds {@code pip freeze}. */
  static final String READY_MARKER = ".searchlab-ready";

  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration VENV_TIMEOUT = Duration.ofMinutes(3);

  /** pip resolving and downloading a few dozen wheels, or building one from source; 20 minutes. */
  private static final Duration PIP_TIMEOUT = Duration.ofMinutes(20);

  private static final Map<Path, ReentrantLock> LOCAL_LOCKS = new ConcurrentHashMap<>();

  private final String name;
  private final Path dir;

  private PythonEnv(String name, Path dir) {
    this.name = name;
    this.dir = dir;
  }

  /**
   * The environment of one of the project's tools: {@code qa/python/<tool>/requirements.txt} under
   * the {@link #projectRoot() project root}, created on first use.
   */
  public static PythonEnv forTool(String tool) {
    Path requirements =
        projectRoot().resolve("qa/python").resolve(tool).resolve("requirements.txt");
    if (!Files.isRegularFile(requirements)) {
      throw new IllegalArgumentException(
          "no requirements file for Python tool '" + tool + "' at " + requirements);
    }
    return of(tool, requirements);
  }

  /**
   * The environment of {@code requirements}, created on first use (which may take minutes: pip
   * downloads from PyPI).
   *
   * @param name the folder name's prefix, letters, digits, {@code .}, {@code _} and {@code -}
   * @param requirements a pip requirements file
   * @throws IllegalStateException when no usable Python is found or the installation fails; the
   *     message names the interpreter, the command and the tail of pip's log
   */
  public static PythonEnv of(String name, Path requirements) {
    return of(name, requirements, cacheRoot());
  }

  /** {@link #of(String, Path)} with environments under {@code cacheRoot}. */
  static PythonEnv of(String name, Path requirements, Path cacheRoot) {
    if (!name.matches("[A-Za-z0-9._-]{1,64}")) {
      throw new IllegalArgumentException(
          "environment name '" + name + "' must be 1 to 64 of [A-Za-z0-9._-]");
    }
    Interpreter python = Interpreter.find();
    byte[] content;
    try {
      content = Files.readAllBytes(requirements);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + requirements, e);
    }
    Path dir = cacheRoot.resolve(name + "-" + key(content, python.version()));
    PythonEnv env = new PythonEnv(name, dir);
    env.ensureCreated(python, requirements.toAbsolutePath());
    return env;
  }

  /** The environment's folder. */
  public Path dir() {
    return dir;
  }

  /** The environment's interpreter. */
  public Path python() {
    return dir.resolve("bin/python");
  }

  /** A console script the environment installed, such as {@code esrally}. */
  public Path bin(String script) {
    return dir.resolve("bin").resolve(script);
  }

  /**
   * Runs the environment's Python with {@code args} (a script and its arguments, or {@code -c}).
   */
  public PythonRun run(Duration timeout, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(python().toString());
    cmd.addAll(List.of(args));
    return exec(timeout, Map.of(), null, cmd);
  }

  /**
   * Runs {@code command} inside the environment (its {@code bin} first on the {@code PATH}, {@code
   * VIRTUAL_ENV} set, {@code PYTHONPATH} and {@code PYTHONHOME} removed), killing it and its
   * children after {@code timeout}.
   *
   * @param env extra environment variables (they win over the inherited ones)
   * @param workDir the working folder, or {@code null} for this JVM's
   */
  public PythonRun exec(
      Duration timeout, Map<String, String> env, Path workDir, List<String> command) {
    ProcessBuilder pb = new ProcessBuilder(command);
    isolate(pb.environment(), dir);
    pb.environment().putAll(env);
    if (workDir != null) {
      pb.directory(workDir.toFile());
    }
    return Processes.run(pb, timeout);
  }

  @Override
  public String toString() {
    return "PythonEnv[" + name + " at " + dir + "]";
  }

  private void ensureCreated(Interpreter python, Path requirements) {
    if (Files.isRegularFile(dir.resolve(READY_MARKER))) {
      System.err.println("[python] " + name + ": reusing " + dir);
      return;
    }
    ReentrantLock local = LOCAL_LOCKS.computeIfAbsent(dir, d -> new ReentrantLock());
    local.lock();
    try {
      Files.createDirectories(dir.getParent());
      Path lockFile = dir.resolveSibling(dir.getFileName() + ".lock");
      try (FileChannel ch =
              FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = ch.lock()) {
        if (Files.isRegularFile(dir.resolve(READY_MARKER))) {
          System.err.println("[python] " + name + ": another process created " + dir);
          return;
        }
        create(python, requirements);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the Python environment " + dir, e);
    } finally {
      local.unlock();
    }
  }

  /** Creates the environment; the caller holds both locks. */
  private void create(Interpreter python, Path requirements) throws IOException {
    long t0 = System.nanoTime();
    deleteTree(dir); // what a killed creation left
    Path log = dir.resolveSibling(dir.getFileName() + ".log");
    Files.deleteIfExists(log); // the log tells of the latest creation only
    System.err.println(
        "[python] "
            + name
            + ": creating "
            + dir
            + " with "
            + python.path()
            + " "
            + python.version()
            + " from "
            + requirements
            + " (log: "
            + log
            + ")");
    ProcessBuilder venv = new ProcessBuilder(python.path(), "-m", "venv", dir.toString());
    isolate(venv.environment(), null);
    step(Processes.run(venv, VENV_TIMEOUT), log, python, "python3 -m venv");
    ProcessBuilder pip =
        new ProcessBuilder(
            python().toString(),
            "-m",
            "pip",
            "install",
            "--no-input",
            "--disable-pip-version-check",
            "--require-virtualenv",
            "-r",
            requirements.toString());
    isolate(pip.environment(), dir);
    step(Processes.run(pip, PIP_TIMEOUT), log, python, "pip install -r " + requirements);
    ProcessBuilder freeze =
        new ProcessBuilder(
            python().toString(), "-m", "pip", "freeze", "--disable-pip-version-check");
    isolate(freeze.environment(), dir);
    PythonRun frozen = step(Processes.run(freeze, PROBE_TIMEOUT), log, python, "pip freeze");
    // Last: the marker makes the environment visible to lock-free readers (rule 1).
    Files.writeString(dir.resolve(READY_MARKER), frozen.stdout(), StandardCharsets.UTF_8);
    System.err.printf(
        Locale.ROOT,
        "[python] %s: created %s in %.1f s%n",
        name,
        dir,
        (System.nanoTime() - t0) / 1e9);
  }

  /** Appends a step's output to the log; a failed step deletes the half-made folder and throws. */
  private PythonRun step(PythonRun r, Path log, Interpreter python, String what)
      throws IOException {
    Files.writeString(
        log,
        "$ " + String.join(" ", r.command()) + "\n" + r.stdout() + r.stderr() + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    if (!r.ok()) {
      deleteTree(dir);
      throw new IllegalStateException(
          "creating the Python environment '"
              + name
              + "' failed at "
              + what
              + " (Python "
              + python.version()
              + " at "
              + python.path()
              + "; full log "
              + log
              + "):\n"
              + r.describe());
    }
    return r;
  }

  /** Clears what would leak a user's Python set-up into a run, and enters {@code venv}. */
  private static void isolate(Map<String, String> env, Path venv) {
    env.remove("PYTHONPATH");
    env.remove("PYTHONHOME");
    env.remove("PYTHONSTARTUP");
    env.remove("VIRTUAL_ENV");
    env.remove("PIP_REQUIRE_VIRTUALENV");
    env.put("PYTHONNOUSERSITE", "1");
    env.put("PYTHONUNBUFFERED", "1");
    env.put("PYTHONIOENCODING", "utf-8");
    if (venv != null) {
      env.put("VIRTUAL_ENV", venv.toString());
      String path = env.getOrDefault("PATH", "/usr/bin:/bin");
      env.put("PATH", venv.resolve("bin") + java.io.File.pathSeparator + path);
    }
  }

  static String key(byte[] requirements, String pythonVersion) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(requirements);
      sha.update((byte) 0);
      sha.update(pythonVersion.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(sha.digest()).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every JDK has SHA-256", e);
    }
  }

  /** Where environments are created: the property, the variable, or the user's cache folder. */
  static Path cacheRoot() {
    String configured = System.getProperty(CACHE_PROPERTY, System.getenv("SEARCHLAB_PYTHON_CACHE"));
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath();
    }
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base =
        xdg != null && !xdg.isBlank()
            ? Path.of(xdg)
            : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("searchlab/python").toAbsolutePath();
  }

  /**
   * The project's root folder: {@code -Dsearchlab.root} (the build passes Maven's multi-module
   * directory), else the nearest folder at or above the working directory that has {@code mvnw} and
   * {@code qa/python}.
   */
  public static Path projectRoot() {
    String configured = System.getProperty(ROOT_PROPERTY);
    if (configured != null && !configured.isBlank() && !configured.contains("${")) {
      return Path.of(configured).toAbsolutePath().normalize();
    }
    Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    for (Path p = start; p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("mvnw")) && Files.isDirectory(p.resolve("qa/python"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "cannot find the project root (a folder with mvnw and qa/python) at or above "
            + start
            + "; pass -D"
            + ROOT_PROPERTY
            + "=<folder>");
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** The base interpreter that makes environments, with its version ({@code 3.11.7}). */
  record Interpreter(String path, String version) {
    private static final String PROBE =
        "import sys, venv, ensurepip; print('%d.%d.%d' % sys.version_info[:3])";

    static Interpreter find() {
      return find(System.getProperty(PYTHON_PROPERTY, System.getenv("SEARCHLAB_PYTHON")));
    }

    /** The interpreter at {@code configured}, or {@code python3} on the PATH when it is null. */
    static Interpreter find(String configured) {
      String python = configured != null && !configured.isBlank() ? configured : onPath("python3");
      String how =
          "These tests run real Python clients and need Python 3."
              + MIN_MINOR
              + "+ with venv and pip (Debian/Ubuntu: apt-get install python3 python3-venv);"
              + " name another interpreter with -D"
              + PYTHON_PROPERTY
              + "=PATH or SEARCHLAB_PYTHON=PATH.";
      if (python == null) {
        throw new IllegalStateException("no python3 on the PATH. " + how);
      }
      PythonRun probe;
      try {
        ProcessBuilder pb = new ProcessBuilder(python, "-c", PROBE);
        isolate(pb.environment(), null);
        probe = Processes.run(pb, PROBE_TIMEOUT);
      } catch (UncheckedIOException e) {
        throw new IllegalStateException(
            "cannot run " + python + ": " + e.getMessage() + ". " + how);
      }
      if (!probe.ok()) {
        throw new IllegalStateException(
            python + " cannot make virtual environments. " + how + "\n" + probe.describe());
      }
      String version = probe.stdout().trim();
      String[] parts = version.split("\\.");
      if (parts.length != 3 || !parts[0].equals("3") || Integer.parseInt(parts[1]) < MIN_MINOR) {
        throw new IllegalStateException(python + " is Python " + version + ". " + how);
      }
      return new Interpreter(python, version);
    }

    private static String onPath(String exe) {
      String path = System.getenv("PATH");
      if (path == null) {
        return null;
      }
      for (String d : path.split(java.io.File.pathSeparator)) {
        Path p = Path.of(d.isEmpty() ? "." : d, exe);
        if (Files.isRegularFile(p) && Files.isExecutable(p)) {
          return p.toString();
        }
      }
      return null;
    }
  }

  /** Runs processes with their output in temporary files, so a chatty child never blocks. */
  static final class Processes {
    private Processes() {}

    static PythonRun run(ProcessBuilder pb, Duration timeout) {
      long t0 = System.nanoTime();
      Path out = null;
      Path err = null;
      try {
        out = Files.createTempFile("searchlab-python", ".out");
        err = Files.createTempFile("searchlab-python", ".err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process p = pb.start();
        boolean done;
        try {
          done = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          kill(p);
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while running " + pb.command(), e);
        }
        if (!done) {
          kill(p);
        }
        return new PythonRun(
            pb.command(),
            done ? p.exitValue() : -1,
            new String(Files.readAllBytes(out), StandardCharsets.UTF_8),
            new String(Files.readAllBytes(err), StandardCharsets.UTF_8),
            Duration.ofNanos(System.nanoTime() - t0),
            !done);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot run " + String.join(" ", pb.command()), e);
      } finally {
        deleteQuietly(out);
        deleteQuietly(err);
      }
    }

    /** Kills {@code p} and its children, children first: orphans would be re-parented and live. */
    private static void kill(Process p) {
      p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      p.toHandle().destroyForcibly();
      try {
        p.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private static void deleteQuietly(Path p) {
      if (p != null) {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // a temporary file; the OS cleans /tmp
        }
      }
    }
  }
}
