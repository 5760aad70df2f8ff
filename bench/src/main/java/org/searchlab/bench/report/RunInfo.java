package org.searchlab.bench.report;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The context every result row carries: the machine, the JDK, the source commit, the profile and
 * the corpus size. Immutable.
 *
 * @param machine cores and CPU model
 * @param jdk {@code java.vendor java.version} of the runner (the servers run the same JDK)
 * @param commit {@code git rev-parse HEAD} of the source tree, {@code -dirty} if modified
 * @param profile the profile's name
 * @param docs documents in the variant's index
 * @param dim embedding dimension
 */
public record RunInfo(
    Machine machine, String jdk, String commit, String profile, int docs, int dim) {

  /**
   * The machine.
   *
   * @param cores available processors
   * @param cpuModel {@code model name} from {@code /proc/cpuinfo}
   * @param transparentHugePages whether the runner and its servers ran with transparent huge pages
   *     ({@link HugePages}); false in results written before it was recorded
   */
  public record Machine(
      @JsonProperty("cores") int cores,
      @JsonProperty("cpu_model") String cpuModel,
      @JsonProperty("transparent_huge_pages") boolean transparentHugePages) {}

  /** Detects the machine, JDK and commit of the tree at {@code home}. */
  public static RunInfo detect(Path home, String profile, int docs, int dim) {
    return new RunInfo(
        new Machine(Runtime.getRuntime().availableProcessors(), cpuModel(), HugePages.enabled()),
        System.getProperty("java.vendor") + " " + System.getProperty("java.version"),
        commit(home),
        profile,
        docs,
        dim);
  }

  /** The same context for another corpus size (the sweep and grid indexes). */
  public RunInfo withDocs(int d) {
    return new RunInfo(machine, jdk, commit, profile, d, dim);
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8)) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException e) {
      // not Linux: fall through
    }
    return System.getProperty("os.arch");
  }

  private static String commit(Path home) {
    try {
      String head = run(home, "git", "rev-parse", "HEAD");
      String status = run(home, "git", "status", "--porcelain", "--untracked-files=no");
      return head == null
          ? "unknown"
          : status != null && !status.isEmpty() ? head + "-dirty" : head;
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  private static String run(Path dir, String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(false).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    return p.waitFor() == 0 ? out : null;
  }
}
