package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The GC-log flag of the runner's servers, given to a real JVM. */
class ServerProcessGcLogTest {
  @Test
  void aJvmTakesTheFlagForAnOutputPathWithAColonAndASpace(@TempDir Path tmp) throws Exception {
    Path logs = Files.createDirectories(tmp.resolve("run 1:a").resolve("logs"));
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p =
        new ProcessBuilder(
                List.of(
                    java.toString(),
                    ServerProcess.gcLogFlag(logs.resolve("mutable.log")),
                    "-XX:+UseG1GC",
                    "-version"))
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.waitFor(), out);
    try (var files = Files.list(logs)) {
      List<Path> gc =
          files.filter(f -> f.getFileName().toString().startsWith("mutable-gc-")).toList();
      assertEquals(1, gc.size(), "one GC log named after the server's log and the JVM's pid");
      assertTrue(Files.readString(gc.get(0)).contains("Using G1"), gc.get(0).toString());
    }
  }
}
