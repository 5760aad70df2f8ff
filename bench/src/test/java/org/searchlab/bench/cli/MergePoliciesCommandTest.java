package org.searchlab.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.distribution.SearchlabCli;
import picocli.CommandLine;

/**
 * {@code experiment --merge-policies}: a policy, setting or option it cannot run is a usage error
 * (exit 2) that names it, before anything is written.
 */
class MergePoliciesCommandTest {
  @Test
  void whatTheComparisonCannotRunIsAUsageErrorThatNamesIt(@TempDir Path dir) {
    for (String[][] bad :
        new String[][][] {
          {{"--merge-policies=tiered,lsm"}, {"unknown merge policy 'lsm'"}},
          {
            {"--merge-policies=tiered:segments_per_tier=4,max_segments=3"},
            {"unknown setting 'max_segments'"}
          },
          {{"--merge-policies=log-byte-size:merge_factor=1"}, {"merge_factor 1.0 is outside"}},
          {{"--merge-policies=none", "--variants=mutable"}, {"--variants do not apply"}},
          {{"--merge-policies=none", "--bulk-size=0"}, {"--bulk-size 0 is below 1"}},
          {{"--bulk-size=100"}, {"go with --merge-policies"}}
        }) {
      StringWriter err = new StringWriter();
      CommandLine cli = SearchlabCli.commandLine();
      cli.setErr(new PrintWriter(err));
      Path out = dir.resolve("run");
      String[] args = new String[bad[0].length + 4];
      args[0] = "experiment";
      args[1] = "--profile=quick";
      args[2] = "--synthetic";
      args[3] = "--out=" + out;
      System.arraycopy(bad[0], 0, args, 4, bad[0].length);
      int exit = cli.execute(args);
      String what = String.join(" ", bad[0]);
      assertEquals(2, exit, what + ": " + err);
      assertTrue(err.toString().contains(bad[1][0]), what + ": " + err);
      assertFalse(err.toString().contains("\tat "), "no stack trace: " + err);
      assertFalse(Files.exists(out), "nothing written for " + what);
    }
  }
}
