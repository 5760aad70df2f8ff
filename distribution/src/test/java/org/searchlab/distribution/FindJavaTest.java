package org.searchlab.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/find-java}: JAVA_HOME first when it is 21+, else the newest 21+ JDK in the JVM
 * directories; an older JDK is never chosen, and with none it stops with one line naming what to
 * install. JDK homes are faked (a {@code release} file and executable {@code bin/java} and {@code
 * bin/javac}) so the test does not depend on what this machine has installed.
 */
class FindJavaTest {
  @TempDir Path tmp;

  private static final Path SCRIPT = Path.of("..", "bin", "find-java").toAbsolutePath().normalize();

  private Path fakeJdk(String name, String version) throws IOException {
    Path home = tmp.resolve("jvm").resolve(name);
    Files.createDirectories(home.resolve("bin"));
    Files.writeString(home.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
    for (String tool : new String[] {"java", "javac"}) {
      Path p = home.resolve("bin").resolve(tool);
      Files.writeString(p, "#!/bin/sh\nexit 0\n");
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    return home;
  }

  private record Run(int exit, String out, String err) {}

  private Run run(Map<String, String> env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", SCRIPT.toString());
    pb.environment().clear();
    pb.environment().put("PATH", tmp.resolve("empty-path").toString() + ":/bin");
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    return new Run(p.waitFor(), out, err);
  }

  @Test
  void prefersJavaHomeWhenItIsNewEnough() throws Exception {
    Path jdk21 = fakeJdk("jdk-21", "21.0.4");
    fakeJdk("jdk-25", "25.0.1");
    Run r =
        run(Map.of("JAVA_HOME", jdk21.toString(), "SEARCHLAB_JVM_DIRS", tmp.resolve("jvm") + "/*"));
    assertEquals(0, r.exit(), r.err());
    assertEquals(jdk21.toString(), r.out());
  }

  @Test
  void skipsAnOldJavaHomeAndPicksTheNewestSystemJdk() throws Exception {
    Path jdk17 = fakeJdk("java-17", "17.0.15");
    fakeJdk("jdk-21", "21.0.4");
    Path jdk25 = fakeJdk("temurin-25", "25.0.1");
    Run r =
        run(Map.of("JAVA_HOME", jdk17.toString(), "SEARCHLAB_JVM_DIRS", tmp.resolve("jvm") + "/*"));
    assertEquals(0, r.exit(), r.err());
    assertEquals(jdk25.toString(), r.out());
    assertTrue(
        r.err().contains("is not a JDK 21+"), "says why JAVA_HOME was passed over: " + r.err());
  }

  @Test
  void stopsWithOneLineWhenOnlyOldJdksExist() throws Exception {
    fakeJdk("java-17", "17.0.15");
    Run r = run(Map.of("SEARCHLAB_JVM_DIRS", tmp.resolve("jvm") + "/*"));
    assertEquals(1, r.exit());
    assertEquals("", r.out(), "never falls back to 17");
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(r.err().contains("install"), r.err());
  }
}
