package org.searchlab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.WriteResult;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The write half of the conformance suite, and the fixture both halves share: subclass {@link
 * BaseSearchIndexTestCase} (which extends this), never this directly. It checks writes, real-time
 * gets, visibility, durability and bad input, the atomic {@link SearchIndex#create}, and that a hit
 * carries the version of its document it was scored in while a writer replaces that document. Seeds
 * are printed; {@code -Dtests.seed} reproduces one.
 */
public abstract class BaseWriteContractTestCase {
  protected static final int DIM = 32;
  protected static final float SCORE_TOLERANCE = 1e-4f;
  protected static final double MIN_RECALL = 0.95;
  protected static final int MULTIPLIER = Integer.getInteger("tests.multiplier", 1);

  protected final Schema schema = new Schema(DIM);

  @TempDir protected Path tmp;
  protected long seed;
  protected SplittableRandom random;
  protected SyntheticCorpus corpus;
  private final List<SearchIndex> opened = new ArrayList<>();

  /**
   * Opens the store under test in {@code dir}, creating it or reopening what an earlier call left
   * there (after {@link SearchIndex#close()}), with the store's default settings unless the
   * subclass tests a variant.
   */
  protected abstract SearchIndex openIndex(Path dir, Schema schema) throws IOException;

  @BeforeEach
  void seedTest(TestInfo info) {
    seed = TestSeeds.seed(getClass().getSimpleName() + "." + info.getDisplayName());
    random = new SplittableRandom(seed);
    corpus =
        new SyntheticCorpus(seed, DIM, SyntheticCorpus.Params.builder().vocabulary(3000).build());
  }

  @AfterEach
  void closeAll() throws IOException {
    for (SearchIndex i : opened) {
      try {
        i.close();
      } catch (IllegalStateException alreadyClosed) {
        // closed by the test itself
      }
    }
  }

  /** Opens the store under test and closes it after the test. */
  protected SearchIndex open(Path dir) throws IOException {
    SearchIndex index = openIndex(dir, schema);
    opened.add(index);
    return index;
  }

  protected ExactIndex oracle(List<Document> docs) throws IOException {
    ExactIndex o = ExactIndex.open(tmp.resolve("oracle-" + opened.size()), schema);
    opened.add(o);
    feed(o, docs);
    return o;
  }

  /** Bulk-loads in batches of 500, as a feeder would, then refreshes. */
  protected static void feed(SearchIndex index, List<Document> docs) throws IOException {
    for (int from = 0; from < docs.size(); from += 500) {
      List<Operation> ops = new ArrayList<>();
      for (Document d : docs.subList(from, Math.min(docs.size(), from + 500))) {
        ops.add(Operation.put(d));
      }
      for (BulkItemResult r : index.bulk(ops)) {
        assertFalse(r.failed(), () -> "bulk item failed: " + r.error());
      }
    }
    index.refresh();
  }

  // ---------------------------------------------------------------------------------------------
  // Writes, reads and visibility

  @Test
  public void putGetUpdateDelete() throws IOException {
    SearchIndex index = open(tmp.resolve("idx"));
    Document d = corpus.document(1);
    assertEquals(WriteResult.Outcome.CREATED, index.put(d).outcome());
    assertEquals(d, index.get(d.id()).orElseThrow(), "get is real-time");
    assertEquals(WriteResult.Outcome.UPDATED, index.put(d.withPrice(d.price() + 1)).outcome());
    assertEquals(d.price() + 1, index.get(d.id()).orElseThrow().price());

    WriteResult upd = index.update(PartialUpdate.of(d.id()).withPrice(12345).withCategory("zz"));
    assertEquals(WriteResult.Outcome.UPDATED, upd.outcome());
    Document after = index.get(d.id()).orElseThrow();
    assertEquals(12345, after.price());
    assertEquals("zz", after.category());
    assertEquals(d.title(), after.title(), "a partial update changes only its fields");
    assertEquals(d.description(), after.description());
    assertEquals(d.averageRating(), after.averageRating());
    assertTrue(java.util.Arrays.equals(d.embedding(), after.embedding()));

    assertEquals(WriteResult.Outcome.DELETED, index.delete(d.id()).outcome());
    assertTrue(index.get(d.id()).isEmpty());
    assertEquals(WriteResult.Outcome.NOT_FOUND, index.delete(d.id()).outcome());
    assertEquals(
        WriteResult.Outcome.NOT_FOUND,
        index.update(PartialUpdate.of("nope").withPrice(1)).outcome());
    assertTrue(index.get("nope").isEmpty(), "an update of a missing document creates nothing");
  }

  @Test
  public void writesAreVisibleAfterRefresh() throws IOException {
    SearchIndex index = open(tmp.resolve("idx"));
    feed(index, corpus.documents(50));
    Document d =
        new Document(
            "fresh", "zyxwvut unique", "", "fresh-cat", 7, 1f, corpus.document(0).embedding());
    index.put(d);
    index.refresh();
    assertEquals(List.of("fresh"), lexical(index, "zyxwvut", Filter.ALL, 10).ids());
    assertEquals(
        List.of("fresh"),
        index.search(SearchRequest.builder().filter(Filter.category("fresh-cat")).build()).ids());
    index.update(PartialUpdate.of("fresh").withCategory("other-cat"));
    index.refresh();
    assertTrue(
        index
            .search(SearchRequest.builder().filter(Filter.category("fresh-cat")).build())
            .hits()
            .isEmpty(),
        "the old category no longer matches after the update is visible");
    index.delete("fresh");
    index.refresh();
    assertTrue(lexical(index, "zyxwvut", Filter.ALL, 10).hits().isEmpty());
    assertEquals(50, index.stats().docCount());
  }

  // ---------------------------------------------------------------------------------------------
  // Durability

  @Tag("restart")
  @Test
  public void reopenKeepsAcknowledgedWrites() throws IOException {
    Path dir = tmp.resolve("idx");
    List<Document> docs = corpus.documents(600);
    Map<String, Document> expected = byId(docs);
    SearchIndex index = open(dir);
    feed(index, docs.subList(0, 300));
    index.flush(); // the first half is in the store's own files, the rest only in the WAL
    for (Document d : docs.subList(300, 600)) {
      index.put(d);
    }
    for (int i = 0; i < 100; i++) {
      String id = docs.get(random.nextInt(docs.size())).id();
      if (random.nextBoolean()) {
        index.delete(id);
        expected.remove(id);
      } else if (expected.containsKey(id)) {
        index.update(PartialUpdate.of(id).withAverageRating(4.5f).withPrice(i));
        expected.put(
            id,
            PartialUpdate.of(id).withAverageRating(4.5f).withPrice(i).applyTo(expected.get(id)));
      }
    }
    index.close();

    SearchIndex reopened = open(dir);
    for (Document d : docs) {
      assertEquals(
          java.util.Optional.ofNullable(expected.get(d.id())), reopened.get(d.id()), d.id());
    }
    reopened.refresh();
    assertEquals(expected.size(), reopened.stats().docCount());
    ExactIndex oracle = oracle(new ArrayList<>(expected.values()));
    Filter cat = Filter.category(docs.get(0).category());
    SearchRequest all = SearchRequest.builder().filter(cat).hits(10_000).build();
    assertEquals(
        Set.copyOf(oracle.search(all).ids()),
        Set.copyOf(reopened.search(all).ids()),
        "the same documents are searchable after reopening");
    // And it keeps accepting writes.
    reopened.put(corpus.document(9999));
    assertTrue(reopened.get("doc-9999").isPresent());
  }

  // ---------------------------------------------------------------------------------------------
  // Bad input: a clear exception, nothing half-written

  @Test
  public void badInputIsRejectedAndNothingIsWritten() throws IOException {
    SearchIndex index = open(tmp.resolve("idx"));
    feed(index, corpus.documents(20));
    Document good = corpus.document(100);
    float[] wrongDim = new float[DIM + 1];
    wrongDim[0] = 1;
    float[] nan = good.embedding().clone();
    nan[3] = Float.NaN;
    float[] inf = good.embedding().clone();
    inf[5] = Float.POSITIVE_INFINITY;
    float[] notUnit = good.embedding().clone();
    notUnit[0] += 0.5f;
    for (float[] bad : List.of(wrongDim, nan, inf, notUnit)) {
      Document d = new Document("bad", "t", "d", "c", 1, 1f, bad);
      InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> index.put(d));
      assertTrue(e.getMessage().contains("embedding"), e.getMessage());
      assertThrows(
          InvalidRequestException.class,
          () -> index.update(PartialUpdate.of(good.id()).withEmbedding(bad)));
      assertThrows(
          InvalidRequestException.class,
          () -> index.search(SearchRequest.builder().vector(bad).build()));
    }
    InvalidRequestException dim =
        assertThrows(
            InvalidRequestException.class,
            () -> index.put(new Document("bad", "", "", null, 0, 0, wrongDim)));
    assertTrue(dim.getMessage().contains(String.valueOf(DIM + 1)), "names the value: " + dim);
    assertTrue(dim.getMessage().contains(String.valueOf(DIM)), "names the limit: " + dim);
    assertThrows(
        InvalidRequestException.class,
        () -> index.put(new Document(null, "", "", null, 0, 0, good.embedding())));
    assertThrows(
        InvalidRequestException.class,
        () -> index.put(new Document("", "", "", null, 0, 0, good.embedding())));
    assertThrows(InvalidRequestException.class, () -> index.bulk(List.of()));
    assertThrows(InvalidRequestException.class, () -> index.update(PartialUpdate.of("doc-1")));
    assertThrows(
        InvalidRequestException.class,
        () -> index.search(SearchRequest.builder().text("x").hits(-1).build()));
    assertThrows(
        InvalidRequestException.class,
        () -> index.search(SearchRequest.builder().text("x").hits(10).offset(9_995).build()));
    assertThrows(
        InvalidRequestException.class,
        () -> index.search(SearchRequest.builder().vector(good.embedding()).targetHits(0).build()));
    assertThrows(
        InvalidRequestException.class,
        () -> index.search(SearchRequest.builder().rankProfile(RankProfile.BM25).build()));
    assertTrue(index.get("bad").isEmpty(), "nothing of a rejected document was written");

    // A bulk with one bad item applies the good ones and rejects only the bad one.
    Document bad = new Document("bad", "", "", null, 0, 0, nan);
    List<BulkItemResult> results =
        index.bulk(List.of(Operation.put(good), Operation.put(bad), Operation.delete("doc-0")));
    assertFalse(results.get(0).failed());
    assertTrue(results.get(1).failed());
    assertFalse(results.get(2).failed());
    index.refresh();
    assertTrue(index.get(good.id()).isPresent());
    assertTrue(index.get("bad").isEmpty());
    assertTrue(index.get("doc-0").isEmpty());
    assertEquals(20, index.stats().docCount());
  }

  // ---------------------------------------------------------------------------------------------
  // Create (put-if-absent) and point-in-time fetch: see WriteContractChecks

  /**
   * A lone UTF-16 surrogate has no UTF-8 form; accepted, it would be logged as {@code ?} and come
   * back from a restart as another document. Refused with the field named; a valid pair (an emoji)
   * survives a restart byte for byte.
   */
  @Tag("restart")
  @Test
  public void loneSurrogatesAreRejectedAndPairsSurviveARestart() throws IOException {
    Path dir = tmp.resolve("idx");
    SearchIndex index = open(dir);
    Document base = corpus.document(1);
    String lone = "x\ud800";
    List<Document> bad =
        List.of(
            new Document(lone, "t", "d", "c", 1, 1f, base.embedding()),
            new Document("ok-id", "t\udc00t", "d", "c", 1, 1f, base.embedding()),
            new Document("ok-id", "t", "d\ud800", "c", 1, 1f, base.embedding()),
            new Document("ok-id", "t", "d", "\udfff", 1, 1f, base.embedding()));
    for (Document d : bad) {
      InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> index.put(d));
      assertTrue(e.getMessage().contains("surrogate"), e.getMessage());
    }
    assertThrows(InvalidRequestException.class, () -> index.delete(lone));
    index.put(base);
    assertThrows(
        InvalidRequestException.class,
        () -> index.update(PartialUpdate.of(base.id()).withTitle("a\ud83d")));
    String pair = "x\ud83d\ude00";
    Document emoji = new Document(pair, "smile \ud83d\ude00", "d", "c\ud83d\ude00", 1, 1f, null);
    index.put(emoji);
    index.put(new Document("x?", "question", "d", "c", 1, 1f, null));
    index.close();
    SearchIndex reopened = open(dir);
    assertEquals(emoji, reopened.get(pair).orElseThrow());
    assertThrows(InvalidRequestException.class, () -> reopened.get(lone));
    assertEquals("question", reopened.get("x?").orElseThrow().title());
    assertEquals(3, reopened.stats().docCount(), "base, the emoji, x?");
  }

  @Test
  public void createIsPutIfAbsent() throws IOException {
    WriteContractChecks.createIsPutIfAbsent(open(tmp.resolve("idx")), corpus);
  }

  @Test
  public void concurrentCreatesOfOneIdHaveExactlyOneWinner() throws Exception {
    WriteContractChecks.concurrentCreatesHaveOneWinner(open(tmp.resolve("idx")), corpus, seed);
  }

  @Test
  public void hitsCarryTheVersionTheyWereScoredIn() throws Exception {
    WriteContractChecks.hitsCarryTheScoredVersion(open(tmp.resolve("idx")), corpus, seed);
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  protected static SearchResult lexical(SearchIndex index, String text, Filter filter, int k)
      throws IOException {
    return index.search(SearchRequest.builder().text(text).filter(filter).hits(k).build());
  }

  protected static Map<String, Document> byId(List<Document> docs) {
    Map<String, Document> m = new HashMap<>();
    for (Document d : docs) {
      m.put(d.id(), d);
    }
    return m;
  }
}
