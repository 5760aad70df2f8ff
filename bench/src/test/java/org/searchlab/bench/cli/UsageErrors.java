package org.searchlab.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.searchlab.distribution.SearchlabCli;
import picocli.CommandLine;

/** Runs {@code experiment} on the quick synthetic profile and checks a usage error. */
final class UsageErrors {
  private UsageErrors() {}

  /**
   * Runs {@code experiment --profile=quick --synthetic --out=<dir>/run} with {@code options} and
   * asserts exit 2 with {@code message} on stderr, no stack trace, and nothing written.
   */
  static void assertUsageError(Path dir, String[] options, String message) {
    StringWriter err = new StringWriter();
    CommandLine cli = SearchlabCli.commandLine();
    cli.setErr(new PrintWriter(err));
    Path out = dir.resolve("run");
    String[] args = new String[options.length + 4];
    args[0] = "experiment";
    args[1] = "--profile=quick";
    args[2] = "--synthetic";
    args[3] = "--out=" + out;
    System.arraycopy(options, 0, args, 4, options.length);
    int exit = cli.execute(args);
    String what = String.join(" ", options);
    assertEquals(2, exit, what + ": " + err);
    assertTrue(err.toString().contains(message), what + ": " + err);
    assertFalse(err.toString().contains("\tat "), "no stack trace: " + err);
    assertFalse(Files.exists(out), "nothing written for " + what);
  }
}
