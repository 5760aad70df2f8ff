package org.searchlab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.DocumentExistsException;
import org.searchlab.core.Filter;
import org.searchlab.core.Hit;
import org.searchlab.core.Operation;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.WriteResult;
import org.searchlab.core.scoring.VectorScores;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The checks of {@link BaseWriteContractTestCase} that need more than a few lines: the atomic
 * create and the point-in-time fetch, each run against one store. Stateless.
 */
final class WriteContractChecks {
  private WriteContractChecks() {}

  /**
   * create answers CREATED for an absent id, and fails alone, writing nothing, for a present one.
   */
  static void createIsPutIfAbsent(SearchIndex index, SyntheticCorpus corpus) throws IOException {
    Document d = corpus.document(1);
    assertEquals(WriteResult.Outcome.CREATED, index.create(d).outcome());
    assertEquals(d, index.get(d.id()).orElseThrow());
    DocumentExistsException e =
        assertThrows(DocumentExistsException.class, () -> index.create(d.withPrice(1)));
    assertTrue(e.getMessage().contains(d.id()), "names the id: " + e.getMessage());
    assertEquals(d, index.get(d.id()).orElseThrow(), "a refused create writes nothing");
    assertEquals(WriteResult.Outcome.DELETED, index.delete(d.id()).outcome());
    assertEquals(WriteResult.Outcome.CREATED, index.create(d.withPrice(2)).outcome());
    assertEquals(2, index.get(d.id()).orElseThrow().price());

    // In a bulk, each create sees the bulk's own earlier items, and a refused one fails alone.
    Document x = corpus.document(2);
    List<BulkItemResult> r =
        index.bulk(
            List.of(
                Operation.create(x),
                Operation.create(x.withPrice(10)),
                Operation.put(x.withPrice(11)),
                Operation.delete(x.id()),
                Operation.create(x.withPrice(12)),
                Operation.create(corpus.document(3))));
    assertEquals(WriteResult.Outcome.CREATED, r.get(0).result().outcome());
    assertInstanceOf(DocumentExistsException.class, r.get(1).error());
    assertEquals(WriteResult.Outcome.UPDATED, r.get(2).result().outcome());
    assertEquals(WriteResult.Outcome.DELETED, r.get(3).result().outcome());
    assertEquals(WriteResult.Outcome.CREATED, r.get(4).result().outcome());
    assertEquals(WriteResult.Outcome.CREATED, r.get(5).result().outcome());
    assertEquals(12, index.get(x.id()).orElseThrow().price());
    index.refresh();
    assertEquals(3, index.stats().docCount());
  }

  /**
   * Many threads create one id at once, some singly and some in a bulk: exactly one wins, every
   * other gets {@link DocumentExistsException}, and the stored document is the winner's.
   */
  static void concurrentCreatesHaveOneWinner(SearchIndex index, SyntheticCorpus corpus, long seed)
      throws Exception {
    int threads = 6;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 40; round++) {
        String id = "race-" + round;
        Document base = corpus.document(round);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> outcomes = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          Document mine =
              new Document(
                  id,
                  base.title(),
                  base.description(),
                  base.category(),
                  1000 + t,
                  base.averageRating(),
                  base.embedding());
          boolean viaBulk = (t + round) % 2 == 0;
          outcomes.add(
              pool.submit(
                  () -> {
                    start.await();
                    if (viaBulk) {
                      BulkItemResult b = index.bulk(List.of(Operation.create(mine))).get(0);
                      if (b.failed()) {
                        assertInstanceOf(DocumentExistsException.class, b.error());
                        return -1;
                      }
                      assertEquals(WriteResult.Outcome.CREATED, b.result().outcome());
                      return mine.price();
                    }
                    try {
                      assertEquals(WriteResult.Outcome.CREATED, index.create(mine).outcome());
                      return mine.price();
                    } catch (DocumentExistsException e) {
                      return -1;
                    }
                  }));
        }
        start.countDown();
        int winners = 0;
        int winnerPrice = -1;
        for (Future<Integer> f : outcomes) {
          int price = f.get();
          if (price >= 0) {
            winners++;
            winnerPrice = price;
          }
        }
        assertEquals(1, winners, "round " + round + " (seed " + seed + "): creates that succeeded");
        assertEquals(winnerPrice, index.get(id).orElseThrow().price(), "the winner's version");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * While a writer keeps replacing a set of documents with alternating versions (A: a unique word,
   * a low price, vector a; B: another word, a high price, vector b), searches that ask for
   * documents must get, for every hit, the version they scored: a lexical hit for A's word under
   * A's price filter is an A version, and a vector hit's score is the closeness of the returned
   * vector. Rendering a hit from a newer version (a real-time get after scoring) fails this.
   */
  static void hitsCarryTheScoredVersion(SearchIndex index, SyntheticCorpus corpus, long seed)
      throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    List<Document> background = corpus.documents(300);
    BaseWriteContractTestCase.feed(index, background);
    float[] a = corpus.randomQueryVector(random);
    float[] b = corpus.randomQueryVector(random);
    int n = 24;
    for (int i = 0; i < n; i++) {
      index.put(version("pit-" + i, i % 2 == 0, a, b));
    }
    index.refresh();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong writes = new AtomicLong();
    AtomicLong checked = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      Future<?> writer =
          pool.submit(
              () -> {
                SplittableRandom w = random.split();
                boolean[] isA = new boolean[n];
                for (int i = 0; i < n; i++) {
                  isA[i] = i % 2 == 0;
                }
                while (!stop.get()) {
                  int i = w.nextInt(n);
                  isA[i] = !isA[i];
                  index.put(version("pit-" + i, isA[i], a, b));
                  if (writes.incrementAndGet() % 8 == 0) {
                    index.refresh();
                  }
                }
                return null;
              });
      List<Future<?>> readers = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        SplittableRandom r = random.split();
        readers.add(pool.submit(() -> read(index, corpus, r, a, checked)));
      }
      for (Future<?> f : readers) {
        f.get();
      }
      stop.set(true);
      writer.get();
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
    assertTrue(writes.get() > 0, "the writer replaced documents while searches ran");
    assertTrue(checked.get() >= 1000, "only " + checked.get() + " hits were checked");
  }

  private static final String WORD_A = "zqxversiona";
  private static final String WORD_B = "zqxversionb";
  private static final int PRICE_A = 100;
  private static final int PRICE_B = 900;

  private static Document version(String id, boolean isA, float[] a, float[] b) {
    return new Document(
        id,
        "pit " + (isA ? WORD_A : WORD_B),
        "point in time",
        "pit-cat",
        isA ? PRICE_A : PRICE_B,
        4f,
        isA ? a : b);
  }

  private static Void read(
      SearchIndex index, SyntheticCorpus corpus, SplittableRandom r, float[] a, AtomicLong checked)
      throws IOException {
    Filter cheap = Filter.ALL.withPrice(new Filter.PriceRange(0, PRICE_A + 1));
    for (int q = 0; q < 300; q++) {
      if (q % 2 == 0) {
        SearchRequest req =
            SearchRequest.builder()
                .text(WORD_A)
                .filter(cheap)
                .hits(30)
                .fetchDocuments(true)
                .build();
        for (Hit h : index.search(req).hits()) {
          Document d = h.document();
          assertNotNull(d, "a hit of a fetching search carries its document");
          assertEquals(h.id(), d.id());
          assertTrue(
              d.title().contains(WORD_A) && d.price() == PRICE_A,
              () -> "lexical hit " + h.id() + " was rendered from another version: " + d.title());
          checked.incrementAndGet();
        }
      } else {
        float[] query = q % 4 == 1 ? a : corpus.randomQueryVector(r);
        SearchRequest req =
            SearchRequest.builder()
                .vector(query)
                .filter(Filter.category("pit-cat"))
                .targetHits(30)
                .hits(30)
                .fetchDocuments(true)
                .build();
        for (Hit h : index.search(req).hits()) {
          Document d = h.document();
          assertNotNull(d, "a hit of a fetching search carries its document");
          float expected = VectorScores.closeness(query, d.embedding());
          assertEquals(
              expected,
              h.score(),
              1e-5f,
              () -> "vector hit " + h.id() + " was rendered from another version than it scored");
          checked.incrementAndGet();
        }
      }
    }
    SearchRequest plain = SearchRequest.builder().text(WORD_A).hits(5).build();
    for (Hit h : index.search(plain).hits()) {
      assertFalse(h.document() != null, "without fetchDocuments a hit carries no document");
    }
    return null;
  }
}
