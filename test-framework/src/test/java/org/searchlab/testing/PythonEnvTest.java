package org.searchlab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PythonEnv} with a requirements file that installs nothing (no network): one creation when
 * threads and another JVM race for it, reuse, recovery from a half-made folder, runs with their
 * exit code, output and timeout, and a clear failure without Python.
 */
class PythonEnvTest {
  private static final Duration RUN = Duration.ofSeconds(60);

  @TempDir Path tmp;

  /** One environment for the tests that only run things in it (each creation takes seconds). */
  @TempDir static Path shared;

  private static PythonEnv runner;

  @BeforeAll
  static void createRunner() throws Exception {
    Path req = shared.resolve("requirements.txt");
    Files.writeString(req, "# nothing\n", StandardCharsets.UTF_8);
    runner = PythonEnv.of("run", req, shared.resolve("cache"));
  }

  private Path requirements(String text) throws Exception {
    Path r = tmp.resolve("requirements-" + Integer.toHexString(text.hashCode()) + ".txt");
    Files.writeString(r, text, StandardCharsets.UTF_8);
    return r;
  }

  /** How many times the creation log says {@code python3 -m venv} ran for {@code env}. */
  private static long creations(PythonEnv env) throws Exception {
    Path log = env.dir().resolveSibling(env.dir().getFileName() + ".log");
    return Files.readAllLines(log).stream()
        .filter(l -> l.startsWith("$ ") && l.contains(" -m venv "))
        .count();
  }

  @Test
  void threadsAndAnotherJvmCreateTheEnvironmentOnce() throws Exception {
    Path cache = tmp.resolve("cache");
    Path req = requirements("# installs nothing\n");
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try (ForkedJvm child =
        ForkedJvm.start(PythonEnvChild.class, cache.toString(), req.toString())) {
      assertEquals("ready", child.readLine());
      CountDownLatch go = new CountDownLatch(1);
      List<Future<PythonEnv>> envs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        envs.add(
            pool.submit(
                () -> {
                  go.await();
                  return PythonEnv.of("race", req, cache);
                }));
      }
      child.process().getOutputStream().write('\n');
      child.process().getOutputStream().flush();
      go.countDown();
      Path dir = envs.get(0).get().dir();
      for (Future<PythonEnv> f : envs) {
        assertEquals(dir, f.get().dir());
      }
      assertEquals(dir.toString(), child.readLine(), "the other JVM's environment");
      assertTrue(Files.isRegularFile(dir.resolve(PythonEnv.READY_MARKER)));
      assertEquals(1, creations(envs.get(0).get()), "one python3 -m venv for four callers");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void runReportsExitCodeOutputAndItsOwnInterpreter() throws Exception {
    PythonEnv env = runner;
    PythonRun r =
        env.run(
            RUN,
            "-c",
            "import sys; print(sys.prefix); print('to stderr', file=sys.stderr); sys.exit(3)");
    assertEquals(3, r.exitCode(), r.describe());
    assertFalse(r.ok());
    assertEquals(
        env.dir().toRealPath(), Path.of(r.stdout().trim()).toRealPath(), "runs in the venv");
    assertEquals("to stderr", r.stderr().trim());
    AssertionError e = assertThrows(AssertionError.class, r::requireSuccess);
    assertTrue(e.getMessage().contains("exited with 3"), e.getMessage());
    assertTrue(env.run(RUN, "-c", "pass").ok());
  }

  @Test
  void runIsKilledAtItsTimeout() throws Exception {
    PythonRun r = runner.run(Duration.ofMillis(500), "-c", "import time; time.sleep(120)");
    assertTrue(r.timedOut(), r.describe());
    assertEquals(-1, r.exitCode());
    assertTrue(r.elapsed().compareTo(Duration.ofSeconds(60)) < 0, r.describe());
  }

  @Test
  void aHalfMadeFolderIsReplacedAndAReadyOneReused() throws Exception {
    Path cache = tmp.resolve("cache");
    Path req = requirements("# half\n");
    PythonEnv first = PythonEnv.of("half", req, cache);
    // A creation killed half-way leaves a folder without the marker.
    Files.delete(first.dir().resolve(PythonEnv.READY_MARKER));
    Files.writeString(first.dir().resolve("junk"), "left by a killed creation");
    PythonEnv second = PythonEnv.of("half", req, cache);
    assertEquals(first.dir(), second.dir());
    assertFalse(Files.exists(second.dir().resolve("junk")));
    assertEquals(1, creations(second), "the log of the second creation only");
    PythonEnv reused = PythonEnv.of("half", req, cache);
    assertTrue(Files.exists(reused.dir().resolve(PythonEnv.READY_MARKER)));
    assertEquals(1, creations(reused), "a ready environment is reused, not created again");
  }

  @Test
  void theKeyFollowsTheRequirementsAndThePython() {
    byte[] a = "pyvespa==1.2.9\n".getBytes(StandardCharsets.UTF_8);
    byte[] b = "pyvespa==1.2.8\n".getBytes(StandardCharsets.UTF_8);
    assertEquals(PythonEnv.key(a, "3.11.7"), PythonEnv.key(a.clone(), "3.11.7"));
    assertNotEquals(PythonEnv.key(a, "3.11.7"), PythonEnv.key(b, "3.11.7"), "another pin");
    assertNotEquals(PythonEnv.key(a, "3.11.7"), PythonEnv.key(a, "3.12.1"), "another Python");
    assertTrue(PythonEnv.key(a, "3.11.7").matches("[0-9a-f]{16}"));
  }

  @Test
  void aFailingInstallNamesTheStepAndLeavesNoFolder() throws Exception {
    Path cache = tmp.resolve("cache");
    Path req = requirements("--this-option-does-not-exist\n");
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> PythonEnv.of("broken", req, cache));
    assertTrue(e.getMessage().contains("pip install -r"), e.getMessage());
    try (var left = Files.list(cache)) {
      assertTrue(
          left.noneMatch(p -> Files.isDirectory(p)), "no half-made environment is left behind");
    }
  }

  @Test
  void aMissingPythonIsAClearFailure() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> PythonEnv.Interpreter.find(tmp.resolve("no-such-python3").toString()));
    assertTrue(e.getMessage().contains("need Python 3.10+ with venv and pip"), e.getMessage());
    assertTrue(e.getMessage().contains("no-such-python3"), e.getMessage());
  }

  @Test
  void requirementsAreFoundUnderTheProjectRoot() {
    Path root = PythonEnv.projectRoot();
    assertTrue(
        Files.isRegularFile(root.resolve("qa/python/pyvespa/requirements.txt")), root.toString());
    assertThrows(IllegalArgumentException.class, () -> PythonEnv.forTool("no-such-tool"));
  }
}
