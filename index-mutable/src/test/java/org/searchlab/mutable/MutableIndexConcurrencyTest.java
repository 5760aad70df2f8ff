package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Hit;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.wal.SyncPolicy;
import org.searchlab.core.wal.WalConfig;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.testing.TestSeeds;

/**
 * Readers racing one writer for a bounded time. The documents are built so that a half-applied
 * write shows in a single result:
 *
 * <ul>
 *   <li>attribute parity q: category {@code c<q>} and price in {@code [1000·q, 1000·q + 999]},
 *       assigned together in place; a filter pairing {@code c0} with the high band (or {@code c1}
 *       with the low one) must match nothing;
 *   <li>text parity p: title {@code flag<p>} and vector {@code ±e0}, replaced together by a put; a
 *       hybrid query "flag0" + {@code e0} scores every p = 0 document L + 0 (its vector is −e0) and
 *       every p = 1 document 0 + 1, so any score other than L or 1 is a mix of versions;
 *   <li>deleted ids are never put again; a search that starts after a delete was acknowledged never
 *       returns it;
 *   <li>no result holds an id twice (two versions visible at once).
 * </ul>
 */
class MutableIndexConcurrencyTest {
  private static final int DIM = 8;
  private static final long RUN_MILLIS = 3000;
  @TempDir Path tmp;

  private static float[] axis(float sign) {
    float[] v = new float[DIM];
    v[0] = sign;
    return v;
  }

  private static Document version(String id, int p, int q, int salt) {
    return new Document(
        id, "flag" + p, "", "c" + q, 1000 * q + salt % 1000, 1f, axis(p == 0 ? -1f : 1f));
  }

  @Test
  void readersNeverSeeHalfWritesOrDeletedDocuments() throws Exception {
    long seed = TestSeeds.seed("MutableIndexConcurrencyTest.readers");
    Schema schema = new Schema(DIM);
    MutableConfig config =
        MutableConfig.builder()
            .hnsw(HnswConfig.builder().efConstruction(32).build())
            .snapshotInterval(Duration.ZERO)
            .compactionMinDocs(64)
            // Durability is not what this test is about; without an fsync per write the writer
            // races the readers far more often.
            .wal(WalConfig.builder().syncPolicy(SyncPolicy.ASYNC).build())
            .build();
    try (MutableIndex index = MutableIndex.open(tmp.resolve("idx"), schema, config)) {
      SplittableRandom wr = new SplittableRandom(seed);
      List<String> liveIds = new ArrayList<>();
      int nextId = 0;
      for (; nextId < 300; nextId++) {
        String id = "d" + nextId;
        index.put(version(id, wr.nextInt(2), wr.nextInt(2), nextId));
        liveIds.add(id);
      }
      Map<String, Long> deletedAt = new ConcurrentHashMap<>();
      AtomicLong violations = new AtomicLong();
      List<String> messages = java.util.Collections.synchronizedList(new ArrayList<>());
      AtomicLong searches = new AtomicLong();
      long end = System.nanoTime() + RUN_MILLIS * 1_000_000;
      ExecutorService readers = Executors.newFixedThreadPool(3);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        SplittableRandom rr = new SplittableRandom(seed + 1 + t);
        futures.add(
            readers.submit(
                () -> {
                  while (System.nanoTime() < end) {
                    long started = System.nanoTime();
                    int kind = rr.nextInt(4);
                    SearchResult r = search(index, kind);
                    searches.incrementAndGet();
                    String bad = check(kind, r, started, deletedAt);
                    if (bad != null) {
                      violations.incrementAndGet();
                      if (messages.size() < 10) {
                        messages.add(bad);
                      }
                    }
                  }
                  return null;
                }));
      }
      long writes = 0;
      while (System.nanoTime() < end) {
        double x = wr.nextDouble();
        if (x < 0.35) {
          String id = liveIds.get(wr.nextInt(liveIds.size()));
          index.put(version(id, wr.nextInt(2), wr.nextInt(2), wr.nextInt(1000)));
        } else if (x < 0.7) {
          String id = liveIds.get(wr.nextInt(liveIds.size()));
          int q = wr.nextInt(2);
          index.update(
              PartialUpdate.of(id).withCategory("c" + q).withPrice(1000 * q + wr.nextInt(1000)));
        } else if (x < 0.85 && liveIds.size() > 100) {
          String id = liveIds.remove(wr.nextInt(liveIds.size()));
          index.delete(id);
          deletedAt.put(id, System.nanoTime());
        } else {
          String id = "d" + nextId++;
          index.put(version(id, wr.nextInt(2), wr.nextInt(2), nextId));
          liveIds.add(id);
        }
        writes++;
      }
      for (Future<?> f : futures) {
        f.get();
      }
      readers.shutdown();
      System.out.printf(
          "[concurrency] seed=%d writes=%d searches=%d violations=%d compactions=%d freed=%d%n",
          seed,
          writes,
          searches.get(),
          violations.get(),
          index.stats().counter("compactions"),
          index.stats().counter("ids_freed"));
      assertEquals(0, violations.get(), () -> String.join("\n", messages));
      assertTrue(searches.get() > 100, "readers ran " + searches.get() + " searches");
      assertEquals(liveIds.size(), index.stats().docCount());
    }
  }

  private static SearchResult search(MutableIndex index, int kind) {
    return switch (kind) {
      case 0 ->
          index.search(
              SearchRequest.builder()
                  .filter(Filter.category("c0").withPrice(new Filter.PriceRange(1000, 1999)))
                  .hits(1000)
                  .build());
      case 1 ->
          index.search(
              SearchRequest.builder()
                  .filter(Filter.category("c1").withPrice(new Filter.PriceRange(0, 999)))
                  .hits(1000)
                  .build());
      case 2 ->
          index.search(
              SearchRequest.builder()
                  .text("flag0")
                  .vector(axis(1f))
                  .targetHits(2000)
                  .hits(2000)
                  .build());
      default -> index.search(SearchRequest.builder().hits(5000).build());
    };
  }

  /** A description of what is wrong with a result, or null. */
  private static String check(int kind, SearchResult r, long started, Map<String, Long> deletedAt) {
    Set<String> seen = new HashSet<>();
    for (Hit h : r.hits()) {
      if (!seen.add(h.id())) {
        return "id " + h.id() + " twice in one result";
      }
      Long del = deletedAt.get(h.id());
      if (del != null && del < started) {
        return "deleted " + h.id() + " returned by a search that started after the delete";
      }
    }
    if ((kind == 0 || kind == 1) && !r.hits().isEmpty()) {
      return "a filter pairing a category with the other price band matched " + r.ids();
    }
    if (!r.plan().vector().equals("none")) {
      float low = Float.MAX_VALUE;
      for (Hit h : r.hits()) {
        if (Math.abs(h.score() - 1f) > 1e-5) {
          low = Math.min(low, h.score());
        }
      }
      for (Hit h : r.hits()) {
        float s = h.score();
        if (Math.abs(s - 1f) > 1e-5 && Math.abs(s - low) > 1e-4) {
          return "hybrid score " + s + " of " + h.id() + " is neither 1 nor L=" + low;
        }
        if (s < 1e-6) {
          return "hybrid hit " + h.id() + " with score 0: text of one version, vector of another";
        }
      }
    }
    return null;
  }
}
