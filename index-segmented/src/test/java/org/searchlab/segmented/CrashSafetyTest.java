package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.testing.ForkedJvm;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * SIGKILL during a feed loses nothing acknowledged: a child JVM feeds the store and reports acks;
 * the parent kills it at a random moment, reopens the directory and finds every acknowledged write
 * (the one operation in flight may or may not have happened).
 */
class CrashSafetyTest {
  @TempDir Path tmp;

  @Tag("restart")
  @Tag("sigkill")
  @Test
  void sigkillDuringFeedKeepsEveryAcknowledgedWrite() throws Exception {
    long seed = TestSeeds.seed("CrashSafetyTest.sigkill");
    SplittableRandom random = new SplittableRandom(seed);
    Path dir = tmp.resolve("idx");
    SyntheticCorpus corpus = new SyntheticCorpus(seed, SegmentedCrashChild.DIM);
    List<String> lines = new ArrayList<>();
    try (ForkedJvm child = ForkedJvm.start(SegmentedCrashChild.class, dir.toString(), "" + seed)) {
      Thread reader =
          new Thread(
              () -> {
                try {
                  for (String line = child.readLine(); line != null; line = child.readLine()) {
                    synchronized (lines) {
                      lines.add(line);
                      lines.notifyAll();
                    }
                  }
                } catch (IOException e) {
                  // The pipe breaks when the child dies.
                }
              });
      reader.start();
      synchronized (lines) {
        while (lines.stream().noneMatch(l -> l.startsWith("ack"))) {
          lines.wait(60_000);
          if (!child.process().isAlive()) {
            throw new AssertionError("child died before its first ack: " + lines);
          }
        }
      }
      // Kill at a random moment of the feed (seeded, so a failure reproduces the schedule).
      Thread.sleep(500 + random.nextInt(2500));
      // SIGKILL through the process handle: Process.destroyForcibly() (and so ForkedJvm.kill())
      // also closes our end of the child's stdout, losing lines still in the pipe, and with them
      // acknowledgements; reading the pipe to its end keeps "one operation in flight" true.
      child.process().toHandle().destroyForcibly();
      reader.join(30_000);
    }

    // Replay the child's log of acknowledged operations into the expected state.
    Map<String, Document> expected = new HashMap<>();
    Map<String, Optional<Document>> inFlight = new HashMap<>();
    int acks = 0;
    List<String> complete;
    synchronized (lines) {
      complete = lines.stream().filter(l -> l.endsWith(";")).toList();
    }
    for (String line : complete) {
      String[] f = line.substring(0, line.length() - 1).split(" ");
      switch (f[0] + " " + (f.length > 1 ? f[1] : "")) {
        case "try bulk", "try update", "try delete" -> inFlight = planned(f, expected, corpus);
        case "ack bulk", "ack update", "ack delete" -> {
          acks++;
          applyAck(f, expected, corpus);
          inFlight = Map.of();
        }
        default -> {}
      }
    }
    assertTrue(acks >= 3, "the child acknowledged only " + acks + " operations");
    System.out.println(
        "[crash] acknowledged operations "
            + acks
            + ", documents "
            + expected.size()
            + ", flushes before the kill "
            + complete.stream().filter(l -> l.startsWith("flushed")).count());

    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(dir, new Schema(SegmentedCrashChild.DIM))) {
      int checked = 0;
      for (int i = 0; i < maxDoc(complete); i++) {
        String id = corpus.document(i).id();
        Optional<Document> actual = index.get(id);
        Optional<Document> want = Optional.ofNullable(expected.get(id));
        if (inFlight.containsKey(id)) {
          Optional<Document> alternative = inFlight.get(id);
          assertTrue(
              actual.equals(want) || actual.equals(alternative),
              id + " is " + actual + ", expected " + want + " or (in flight) " + alternative);
        } else {
          assertEquals(
              want, actual, () -> "document " + id + " after the crash; " + history(complete, id));
        }
        checked++;
      }
      index.refresh();
      long live = index.search(SearchRequest.builder().hits(0).build()).total().value();
      assertTrue(
          live >= expected.size() - inFlight.size() && live <= expected.size() + inFlight.size(),
          "searchable " + live + " vs expected " + expected.size());
      assertTrue(checked > 0);
    }
  }

  /** The child's lines about {@code id}, and its last lines, for a failure message. */
  private static String history(List<String> lines, String id) {
    List<String> about =
        lines.stream()
            .filter(l -> l.contains(" " + id + " ") || l.contains(" " + id + ";"))
            .toList();
    return "lines about it: "
        + about
        + "; last lines: "
        + lines.subList(Math.max(0, lines.size() - 8), lines.size());
  }

  private static int maxDoc(List<String> lines) {
    int max = 0;
    for (String l : lines) {
      String[] f = l.substring(0, l.length() - 1).split(" ");
      if (f.length == 4 && f[1].equals("bulk")) {
        max = Math.max(max, Integer.parseInt(f[3]));
      }
    }
    return max;
  }

  private static void applyAck(String[] f, Map<String, Document> state, SyntheticCorpus corpus) {
    switch (f[1]) {
      case "bulk" -> {
        for (int i = Integer.parseInt(f[2]); i < Integer.parseInt(f[3]); i++) {
          state.put(corpus.document(i).id(), corpus.document(i));
        }
      }
      case "update" -> {
        Document d = state.get(f[2]);
        assertEquals(d == null ? "NOT_FOUND" : "UPDATED", f[4].equals("NOOP") ? "UPDATED" : f[4]);
        if (d != null) {
          state.put(f[2], PartialUpdate.of(f[2]).withPrice(Integer.parseInt(f[3])).applyTo(d));
        }
      }
      case "delete" -> state.remove(f[2]);
      default -> throw new AssertionError(String.join(" ", f));
    }
  }

  /** The state each id of an operation in flight would have if it was applied. */
  private static Map<String, Optional<Document>> planned(
      String[] f, Map<String, Document> state, SyntheticCorpus corpus) {
    Map<String, Optional<Document>> m = new HashMap<>();
    switch (f[1]) {
      case "bulk" -> {
        for (int i = Integer.parseInt(f[2]); i < Integer.parseInt(f[3]); i++) {
          m.put(corpus.document(i).id(), Optional.of(corpus.document(i)));
        }
      }
      case "update" -> {
        Document d = state.get(f[2]);
        m.put(
            f[2],
            Optional.ofNullable(
                d == null
                    ? null
                    : PartialUpdate.of(f[2]).withPrice(Integer.parseInt(f[3])).applyTo(d)));
      }
      case "delete" -> m.put(f[2], Optional.empty());
      default -> throw new AssertionError(String.join(" ", f));
    }
    return m;
  }
}
