package org.searchlab.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.distribution.SearchlabCli;
import picocli.CommandLine;

/** With the bench jar on the class path, {@code searchlab} offers the benchmark's commands too. */
class BenchCommandsTest {
  @Test
  void benchCommandsPlugIntoTheDistributionsCommandLine() {
    assertEquals(
        Set.of(
            "help",
            "test",
            "serve",
            "experiment",
            "dataset",
            "hnsw-bench",
            "jmh",
            "crashtest",
            "history",
            "restart-time",
            "sweep-compare"),
        SearchlabCli.commandLine().getSubcommands().keySet());
  }

  @Test
  void badHistorySettingsAreAUsageErrorThatNamesTheValue(@TempDir Path dir) {
    for (String[] bad :
        new String[][] {
          {"--store=nosuch", "store [nosuch] is neither mutable nor segmented"},
          {"--refresh-rate=2", "refreshRate [2.0] is not in [0, 1]"},
          {"--histories=0", "--histories 0 must be at least 1"},
          {"--max-steps=0", "maxSteps [0] must be at least 1"}
        }) {
      StringWriter err = new StringWriter();
      CommandLine cli = SearchlabCli.commandLine();
      cli.setErr(new PrintWriter(err));
      Path work = dir.resolve("work");
      int exit = cli.execute("history", bad[0], "--work-dir=" + work);
      assertEquals(2, exit, bad[0] + ": " + err);
      assertTrue(err.toString().contains(bad[1]), bad[0] + ": " + err);
      assertFalse(err.toString().contains("\tat "), "no stack trace: " + err);
      assertFalse(Files.exists(work), "nothing started for " + bad[0]);
    }
  }

  @Test
  void anExperimentProfileTheRunnerRefusesIsAUsageErrorThatNamesTheValue(@TempDir Path dir) {
    for (String[] bad :
        new String[][] {
          {"--vector-beams=40,20", "got 20 after 40"},
          {"--vector-beams=10,20000", "within 1 and 10000; got 20000"},
          {"--rounds=0", "rounds must be 1 or more; got 0"},
          {"--sweep-rounds=0", "sweep rounds must be 1 or more; got 0"},
          {"--sweep-segments=10,20", "strictly descending; got [10, 20]"},
          {"--sweep-slicing=nosuch", "unknown slicing 'nosuch'; expected lucene-default"},
          {
            "--sweep-slicing=partitions,partitions",
            "distinct slicings; got [partitions, partitions]"
          },
          {"--variants=mutable,nosuch", "unknown variant 'nosuch'; use mutable, segmented"},
          {"--dataset=" + dir.resolve("none"), "is not a dataset directory (no dataset.json)"},
          {"--queries=" + dir.resolve("none.ndjson"), "none.ndjson is not a readable file"}
        }) {
      StringWriter err = new StringWriter();
      CommandLine cli = SearchlabCli.commandLine();
      cli.setErr(new PrintWriter(err));
      Path out = dir.resolve("run");
      int exit =
          cli.execute("experiment", "--profile=quick", "--synthetic", bad[0], "--out=" + out);
      assertEquals(2, exit, bad[0] + ": " + err);
      assertTrue(err.toString().contains(bad[1]), bad[0] + ": " + err);
      assertFalse(err.toString().contains("\tat "), "no stack trace: " + err);
      assertFalse(Files.exists(out), "nothing written for " + bad[0]);
    }
  }

  @Test
  void badDatasetCountsAreAUsageErrorThatNamesTheValue(@TempDir Path dir) {
    Path out = dir.resolve("out");
    for (String[] bad :
        new String[][] {
          {"build", "--source=synthetic", "--docs=100", "--queries=0", "--out=" + out},
          {"build", "--source=synthetic", "--docs=100", "--threads=0", "--out=" + out},
          {"stats", "--dataset=" + dir, "--queries=0", "--out=" + out},
          {"validate-generator", "--dataset=" + dir, "--threads=0", "--out=" + out},
          {"build", "--source=synthetic", "--out=" + out}
        }) {
      String[] args = new String[bad.length + 1];
      args[0] = "dataset";
      System.arraycopy(bad, 0, args, 1, bad.length);
      String expected =
          bad[bad.length - 2].equals("--queries=0")
              ? "--queries 0 must be ≥ 1"
              : bad[bad.length - 2].equals("--threads=0")
                  ? "--threads 0 must be ≥ 1"
                  : "--source synthetic needs --docs N";
      StringWriter err = new StringWriter();
      CommandLine cli = SearchlabCli.commandLine();
      cli.setErr(new PrintWriter(err));
      int exit = cli.execute(args);
      String what = String.join(" ", bad) + ": " + err;
      assertEquals(2, exit, what);
      assertTrue(err.toString().contains(expected), what);
      assertFalse(err.toString().contains("\tat "), "no stack trace: " + what);
      assertFalse(Files.exists(out), "nothing written for " + what);
    }
  }
}
