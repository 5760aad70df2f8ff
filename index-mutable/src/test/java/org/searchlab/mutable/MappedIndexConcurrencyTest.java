package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Hit;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.NumberType;
import org.searchlab.core.query.Query;
import org.searchlab.testing.TestSeeds;

/**
 * Readers racing writers on the store of any mapping, with documents built so that a half-applied
 * write shows in one result: each document's keyword {@code tag} is {@code t<v>} and its long
 * {@code v} is v, written together by puts and by partial updates; a search for tag {@code t0}
 * whose hit has {@code v} other than 0 (or a document whose source pairs them otherwise) saw two
 * versions at once. Deleted ids are never written again and never returned after the delete.
 */
class MappedIndexConcurrencyTest {
  private static final long RUN_MILLIS = 2000;
  @TempDir Path tmp;

  private static Document version(String id, int v) {
    return new Document(id, Map.of("tag", "t" + v, "v", (long) v, "body", "word" + v + " common"));
  }

  @Test
  void readersNeverSeeHalfWritesOrDeletedDocuments() throws Exception {
    long seed = TestSeeds.seed("MappedIndexConcurrencyTest");
    Mapping mapping =
        Mapping.of(
            Map.of(
                "tag",
                FieldType.Keyword.PLAIN,
                "v",
                new FieldType.Numeric(NumberType.LONG, true, true),
                "body",
                FieldType.Text.of("standard")));
    MutableConfig config =
        MutableConfig.DEFAULT.toBuilder().snapshotInterval(java.time.Duration.ZERO).build();
    try (SearchIndex index =
        MutableIndex.open(tmp.resolve("idx"), IndexSettings.DEFAULT, mapping, config)) {
      for (int i = 0; i < 200; i++) {
        index.put(version("d" + i, i % 2));
      }
      Set<String> deleted = java.util.concurrent.ConcurrentHashMap.newKeySet();
      AtomicBoolean stop = new AtomicBoolean();
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<Integer>> work = new ArrayList<>();
      work.add(
          pool.submit(
              () -> {
                SplittableRandom r = new SplittableRandom(seed);
                int writes = 0;
                while (!stop.get()) {
                  String id = "d" + r.nextInt(200);
                  if (deleted.contains(id)) {
                    continue;
                  }
                  int v = r.nextInt(2);
                  switch (r.nextInt(10)) {
                    case 0 -> {
                      index.delete(id); // acknowledged, then every later search misses it
                      deleted.add(id);
                    }
                    case 1, 2, 3, 4 ->
                        index.update(PartialUpdate.of(id).with("tag", "t" + v).with("v", (long) v));
                    default -> index.put(version(id, v));
                  }
                  writes++;
                }
                return writes;
              }));
      for (int t = 0; t < 2; t++) {
        work.add(
            pool.submit(
                () -> {
                  int searches = 0;
                  while (!stop.get()) {
                    Set<String> goneBefore = new HashSet<>(deleted);
                    int v = searches % 2;
                    SearchResult res =
                        index.search(
                            SearchRequest.builder()
                                .query(
                                    Query.Bool.filtered(
                                        new Query.Match(
                                            "body", "common", Query.Operator.OR, null, 1f),
                                        List.of(Query.Term.of("tag", "t" + v))))
                                .fetchDocuments(true)
                                .hits(300)
                                .build());
                    Set<String> seen = new HashSet<>();
                    for (Hit h : res.hits()) {
                      assertTrue(seen.add(h.id()), () -> "two versions of " + h.id());
                      assertTrue(!goneBefore.contains(h.id()), () -> "deleted " + h.id());
                      assertEquals((long) v, h.document().source().get("v"), "seed " + seed);
                      assertEquals("t" + v, h.document().source().get("tag"), "seed " + seed);
                    }
                    searches++;
                  }
                  return searches;
                }));
      }
      Thread.sleep(RUN_MILLIS);
      stop.set(true);
      for (Future<Integer> f : work) {
        assertTrue(f.get() > 0, "every thread made progress");
      }
      pool.shutdown();
    }
  }
}
