package org.searchlab.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code main} class run in a child JVM with this JVM's test classpath and the project's JVM
 * flags, for crash tests that kill it with SIGKILL ({@link Process#destroyForcibly()} on Unix). Not
 * thread-safe; one instance per child.
 */
public final class ForkedJvm implements AutoCloseable {
  private final Process process;
  private final BufferedReader stdout;

  private ForkedJvm(Process process) {
    this.process = process;
    this.stdout =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /** Starts {@code mainClass} with {@code args}; its stderr goes to this JVM's stderr. */
  public static ForkedJvm start(Class<?> mainClass, String... args) throws IOException {
    return start(List.of(), mainClass, args);
  }

  /**
   * Starts {@code mainClass} with {@code args} and {@code jvmFlags} after the project's flags, so
   * they can override them (for example {@code -da:org.apache.lucene...}, for a test of what
   * production does where Lucene only asserts).
   */
  public static ForkedJvm start(List<String> jvmFlags, Class<?> mainClass, String... args)
      throws IOException {
    String java =
        System.getProperty(
            "searchlab.java", ProcessHandle.current().info().command().orElse("java"));
    // Surefire runs tests from a manifest-only jar; the real classpath is in this property.
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    String flags =
        System.getProperty("searchlab.jvm.flags", "--add-modules jdk.incubator.vector -ea");
    cmd.addAll(Arrays.asList(flags.trim().split("\\s+")));
    cmd.addAll(jvmFlags);
    cmd.add("-Xmx512m");
    cmd.add("-cp");
    cmd.add(cp);
    cmd.add(mainClass.getName());
    cmd.addAll(Arrays.asList(args));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    return new ForkedJvm(p);
  }

  /** The next line the child printed, or null at end of stream. */
  public String readLine() throws IOException {
    return stdout.readLine();
  }

  /**
   * Kills the child with SIGKILL and waits for it to die. Lines it printed before dying stay
   * readable: the signal goes through the {@link ProcessHandle}, because {@link
   * Process#destroyForcibly()} also closes this side of the child's stdout and would drop what is
   * still in the pipe (acknowledgements a crash test must count).
   */
  public void kill() throws InterruptedException {
    process.toHandle().destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  public Process process() {
    return process;
  }

  @Override
  public void close() throws InterruptedException {
    kill();
    try {
      stdout.close();
    } catch (IOException e) {
      // nothing left to read
    }
  }
}
