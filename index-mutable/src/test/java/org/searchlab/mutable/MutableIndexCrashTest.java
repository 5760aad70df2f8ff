package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.searchlab.core.Filter;
import org.searchlab.core.Hit;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.testing.ExactIndex;
import org.searchlab.testing.ForkedJvm;
import org.searchlab.testing.SearchAssertions;
import org.searchlab.testing.TestSeeds;

/**
 * Kills a feeding child JVM with SIGKILL ten times at random moments, reopens the index after each
 * kill and checks that every acknowledged operation is there: the recovered state equals the
 * expected state after a prefix of the operation sequence that contains every acknowledged one (the
 * child may have logged more, acknowledged or not, before it died). Snapshots (every 40 bulks) and
 * compactions happen during the feed, so recovery goes through snapshot + WAL tail. Lexical search
 * over the recovered index is checked against the exact oracle.
 */
class MutableIndexCrashTest {
  private static final int MAX_UNREAD_OPS = 200 * CrashFeeder.BULK;
  @TempDir Path tmp;

  @Tag("restart")
  @Tag("sigkill")
  @Test
  void everyAcknowledgedOperationSurvivesSigkill() throws Exception {
    long seed = TestSeeds.seed("MutableIndexCrashTest.sigkill");
    SplittableRandom random = new SplittableRandom(seed);
    Path dir = tmp.resolve("idx");
    Schema schema = new Schema(CrashFeeder.DIM);
    long applied = 0; // operations [0, applied) are in the index
    Map<String, Document> state = new HashMap<>();
    for (int round = 0; round < 10; round++) {
      long acked = applied;
      int wantAcks = 3 + random.nextInt(30);
      try (ForkedJvm child =
          ForkedJvm.start(CrashFeeder.class, dir.toString(), Long.toString(seed), "" + applied)) {
        int acks = 0;
        String line;
        while (acks < wantAcks && (line = child.readLine()) != null) {
          if (line.startsWith("ACK ")) {
            acked = Long.parseLong(line.substring(4));
            acks++;
          }
        }
        child.kill(); // SIGKILL; acks printed after the last one read are found by the search below
      }
      assertTrue(acked > applied, "round " + round + ": the child acknowledged nothing");
      CrashFeeder.simulate(seed, applied, acked, state);
      try (MutableIndex index = MutableIndex.open(dir, schema, CrashFeeder.config())) {
        // Acknowledged (and read): [0, acked). The child may have acknowledged a few more bulks
        // between the last line read and the kill, and logged part of one more: the recovered
        // state is the state after some prefix of at least `acked` operations.
        long recovered = -1;
        Map<String, Document> candidate = new HashMap<>(state);
        for (long extra = 0; extra <= MAX_UNREAD_OPS; extra++) {
          if (extra > 0) {
            CrashFeeder.simulate(seed, acked + extra - 1, acked + extra, candidate);
          }
          if (matches(index, candidate)) {
            recovered = acked + extra;
            break;
          }
        }
        assertTrue(
            recovered >= 0,
            "round " + round + ": the reopened index lost acknowledged operations before " + acked);
        state = candidate;
        applied = recovered;
        checkSearch(index, state, schema, round, random);
        System.out.printf(
            "[crash] round=%d acked=%d recovered=%d docs=%d flushedSerial=%d%n",
            round, acked, recovered, state.size(), index.stats().flushedSerial());
      }
    }
  }

  private static boolean matches(MutableIndex index, Map<String, Document> expected)
      throws java.io.IOException {
    for (int i = 0; i < CrashFeeder.IDS; i++) {
      String id = "d" + i;
      if (!Optional.ofNullable(expected.get(id)).equals(index.get(id))) {
        return false;
      }
    }
    return index.stats().docCount() == expected.size();
  }

  private void checkSearch(
      MutableIndex index,
      Map<String, Document> state,
      Schema schema,
      int round,
      SplittableRandom random)
      throws java.io.IOException {
    SearchResult all = index.search(SearchRequest.builder().hits(10_000).build());
    assertEquals(state.size(), all.total().value(), "round " + round + ": unranked count");
    try (ExactIndex oracle = ExactIndex.open(tmp.resolve("oracle-" + round), schema)) {
      List<Operation> puts = new ArrayList<>();
      for (Document d : state.values()) {
        puts.add(Operation.put(d));
      }
      if (!puts.isEmpty()) {
        oracle.bulk(puts);
      }
      for (int q = 0; q < 20; q++) {
        String text = "w" + random.nextInt(30) + " w" + random.nextInt(100);
        Filter f = q % 2 == 0 ? Filter.ALL : Filter.category("c" + random.nextInt(5));
        SearchRequest req = SearchRequest.builder().text(text).filter(f).hits(10).build();
        SearchAssertions.assertSameScores(oracle.search(req), index.search(req), text);
      }
    }
    for (Hit h : all.hits()) {
      assertTrue(state.containsKey(h.id()), "round " + round + ": unknown hit " + h.id());
    }
  }
}
