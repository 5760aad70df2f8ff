package org.searchlab.distribution;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code searchlab test}: runs the whole test suite (and the formatting check) through the Maven
 * wrapper, with the JDK the launcher found.
 */
@Command(
    name = "test",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the full test suite and the formatting check (./mvnw verify) with the JDK the launcher"
          + " found.",
      "Randomized tests print their seed; rerun one with -Dtests.seed=<seed>."
    })
final class TestCommand implements Callable<Integer> {
  @Option(
      names = "--module",
      description = "Only this module and what it depends on (core, index-segmented, ...).")
  String module;

  @Option(
      names = "--test",
      description = "Only tests matching this surefire pattern, e.g. WriteAheadLogTest.")
  String test;

  @Option(names = "--seed", description = "Seed for the randomized tests (default: random).")
  String seed;

  @Override
  public Integer call() throws Exception {
    Path home = Path.of(System.getProperty("searchlab.home", ".")).toAbsolutePath();
    Path mvnw = home.resolve("mvnw");
    if (!Files.isExecutable(mvnw)) {
      System.err.println("searchlab test: no Maven wrapper at " + mvnw);
      return 2;
    }
    List<String> cmd = new ArrayList<>(List.of(mvnw.toString(), "-B", "verify"));
    if (module != null) {
      cmd.addAll(List.of("-pl", module, "-am"));
    }
    if (test != null) {
      cmd.addAll(List.of("-Dtest=" + test, "-Dsurefire.failIfNoSpecifiedTests=false"));
    }
    if (seed != null) {
      cmd.add("-Dtests.seed=" + seed);
    }
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(home.toFile()).inheritIO();
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    return pb.start().waitFor();
  }
}
