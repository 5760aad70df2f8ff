package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.searchlab.testing.SearchAssertions.assertSameScores;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.IndexStats;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.testing.BaseSearchIndexTestCase;
import org.searchlab.testing.ExactIndex;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/** Behaviour particular to the mutable store: in-place updates, id reuse, snapshots, threads. */
class MutableIndexTest {
  private static final int DIM = 32;
  private final Schema schema = new Schema(DIM);
  @TempDir Path tmp;
  private SyntheticCorpus corpus;
  private SplittableRandom random;
  private final List<SearchIndex> opened = new ArrayList<>();

  @BeforeEach
  void seed(TestInfo info) {
    long seed = TestSeeds.seed(getClass().getSimpleName() + "." + info.getDisplayName());
    random = new SplittableRandom(seed);
    corpus =
        new SyntheticCorpus(seed, DIM, SyntheticCorpus.Params.builder().vocabulary(2000).build());
  }

  @AfterEach
  void close() throws IOException {
    for (SearchIndex i : opened) {
      i.close();
    }
  }

  private static MutableConfig small() {
    return MutableConfig.builder()
        .hnsw(HnswConfig.builder().efConstruction(64).build())
        .snapshotInterval(Duration.ZERO)
        .build();
  }

  private MutableIndex open(Path dir, MutableConfig config) throws IOException {
    MutableIndex index = MutableIndex.open(dir, schema, config);
    opened.add(index);
    return index;
  }

  private static void feed(SearchIndex index, List<Document> docs) throws IOException {
    for (int from = 0; from < docs.size(); from += 500) {
      List<org.searchlab.core.Operation> ops = new ArrayList<>();
      for (Document d : docs.subList(from, Math.min(docs.size(), from + 500))) {
        ops.add(org.searchlab.core.Operation.put(d));
      }
      index.bulk(ops);
    }
  }

  @Test
  void attributeOnlyUpdateIsInPlaceAndVisibleAtOnce() throws IOException {
    MutableIndex index = open(tmp.resolve("idx"), small());
    List<Document> docs = corpus.documents(800);
    feed(index, docs);
    Document d = docs.get(17);
    IndexStats before = index.stats();

    index.update(PartialUpdate.of(d.id()).withPrice(987_654).withCategory("brand-new"));
    IndexStats after = index.stats();
    assertEquals(1, after.counter("in_place_updates") - before.counter("in_place_updates"));
    assertEquals(before.counter("postings_touched"), after.counter("postings_touched"));
    assertEquals(before.counter("graph_operations"), after.counter("graph_operations"));
    assertEquals(before.counter("reindexed_updates"), after.counter("reindexed_updates"));
    // Visible to the very next search, with no refresh.
    SearchResult r =
        index.search(
            SearchRequest.builder()
                .filter(
                    Filter.category("brand-new").withPrice(new Filter.PriceRange(987_654, 987_654)))
                .build());
    assertEquals(List.of(d.id()), r.ids());
    assertTrue(
        index
            .search(
                SearchRequest.builder()
                    .filter(
                        Filter.category(d.category())
                            .withPrice(new Filter.PriceRange(987_654, 987_654)))
                    .build())
            .hits()
            .isEmpty(),
        "the old category no longer matches");
    assertEquals(987_654, index.get(d.id()).orElseThrow().price());

    // A text update re-indexes the text (new postings, the old text gone) and hands the unchanged
    // vector's graph node to the new version: no graph work.
    index.update(PartialUpdate.of(d.id()).withTitle("qqqzzz unique words"));
    IndexStats text = index.stats();
    assertTrue(text.counter("postings_touched") > after.counter("postings_touched"));
    assertEquals(after.counter("graph_operations"), text.counter("graph_operations"));
    assertEquals(1, text.counter("unchanged_vector_puts") - after.counter("unchanged_vector_puts"));
    assertEquals(1, text.counter("reindexed_updates") - after.counter("reindexed_updates"));
    assertEquals(
        List.of(d.id()), index.search(SearchRequest.builder().text("qqqzzz").build()).ids());
    assertEquals(800, index.stats().docCount());
  }

  @Test
  void retiredIdsAreReusedOnlyAfterCompactionAndSearchStaysExact() throws IOException {
    MutableConfig config =
        small().toBuilder().compactionMinDocs(1_000_000).compactionRatio(1.0).build();
    MutableIndex index = open(tmp.resolve("idx"), config);
    List<Document> docs = corpus.documents(3000);
    feed(index, docs);
    int limit = index.parts().ids.limit();
    java.util.Map<String, Document> live = byId(docs);
    for (Document d : docs) {
      if (random.nextDouble() < 0.4) {
        index.delete(d.id());
        live.remove(d.id());
      }
    }
    int deleted = docs.size() - live.size();
    assertEquals(0, index.stats().counter("ids_freed"), "nothing is freed before compaction");
    assertEquals(0, index.parts().ids.freeCount());
    index.forceMerge(1); // runs a compaction pass now
    IndexStats s = index.stats();
    assertEquals(deleted, s.counter("ids_freed"));
    assertEquals(0, s.counter("dead_postings"));
    assertEquals(deleted, index.parts().ids.freeCount());
    // New documents take the freed ids, in the middle of existing posting lists.
    List<Document> more = new ArrayList<>();
    for (int i = 0; i < deleted; i++) {
      Document d = corpus.document(10_000 + i);
      more.add(d);
      live.put(d.id(), d);
    }
    feed(index, more);
    assertEquals(limit, index.parts().ids.limit(), "every freed id was reused");
    ExactIndex oracle = ExactIndex.open(tmp.resolve("oracle"), schema);
    opened.add(oracle);
    feed(oracle, new ArrayList<>(live.values()));
    for (int q = 0; q < 60; q++) {
      String text = corpus.randomQueryText(random, 1 + random.nextInt(4));
      Filter f = q % 2 == 0 ? Filter.ALL : Filter.category(corpus.categories().get(q % 5));
      SearchRequest req = SearchRequest.builder().text(text).filter(f).hits(10).build();
      assertSameScores(oracle.search(req), index.search(req), text);
    }
  }

  @Tag("restart")
  @Test
  void vectorsAreKeptOnceAndEveryGetReturnsThemWhole() throws IOException {
    Path dir = tmp.resolve("idx");
    MutableIndex index = open(dir, small());
    List<Document> docs = corpus.documents(600);
    feed(index, docs.subList(0, 400));
    // The document store holds text and attributes only; the vectors live in the attribute.
    long textBytes = 0;
    for (Document d : docs.subList(0, 400)) {
      textBytes +=
          org.searchlab.core.wal.OperationCodec.encodeDocument(IndexParts.withoutVector(d)).length;
    }
    long stored = index.stats().memoryBytes().get("document_store");
    assertTrue(
        stored < textBytes + 400L * DIM * 4 / 2,
        "document store " + stored + " bytes for " + textBytes + " bytes of text: holds vectors?");
    // Get after a batch that put and deleted, after a reindexing update, after an in-place update.
    List<org.searchlab.core.Operation> ops = new ArrayList<>();
    for (Document d : docs.subList(400, 600)) {
      ops.add(org.searchlab.core.Operation.put(d));
    }
    ops.add(org.searchlab.core.Operation.delete(docs.get(599).id())); // put and gone in one batch
    index.bulk(ops);
    index.update(PartialUpdate.of(docs.get(10).id()).withTitle("a brand new title"));
    index.update(PartialUpdate.of(docs.get(11).id()).withPrice(7));
    for (int i = 0; i < 599; i++) {
      Document got = index.get(docs.get(i).id()).orElseThrow();
      assertArrayEquals(docs.get(i).embedding(), got.embedding(), "vector of doc " + i);
    }
    assertEquals("a brand new title", index.get(docs.get(10).id()).orElseThrow().title());
    assertTrue(index.get(docs.get(599).id()).isEmpty());
    index.flush();
    index.close();
    opened.remove(index);

    MutableIndex reopened = open(dir, small());
    for (int i = 0; i < 599; i++) {
      Document got = reopened.get(docs.get(i).id()).orElseThrow();
      assertArrayEquals(docs.get(i).embedding(), got.embedding(), "reopened vector of doc " + i);
    }
    SearchResult own =
        reopened.search(
            SearchRequest.builder().vector(docs.get(300).embedding()).targetHits(10).build());
    assertEquals(docs.get(300).id(), own.hits().get(0).id());
  }

  /**
   * A snapshot, a WAL tail, then two restarts: a crash (a copy of the directory taken while the
   * index runs, so the tail is replayed) and a clean close. The clean close gives back the very
   * index that was closed, graph included, so every query answers as before. The replay links the
   * tail in other batches than the writer did and builds another graph: its vector answers are held
   * to the exact top-k like any graph's, not to the other approximation's.
   */
  @Tag("restart")
  @Test
  void snapshotAndWalTailRoundTrip() throws IOException {
    Path dir = tmp.resolve("idx");
    // No compaction, so retired graph nodes are still there at close and must survive it as such.
    MutableConfig config =
        small().toBuilder().compactionMinDocs(1_000_000_000).compactionRatio(1.0).build();
    MutableIndex index = open(dir, config);
    ExactIndex oracle = ExactIndex.open(tmp.resolve("oracle"), schema);
    opened.add(oracle);
    List<Document> docs = corpus.documents(1500);
    feed(index, docs.subList(0, 1000));
    feed(oracle, docs.subList(0, 1000));
    int deleted = 0;
    for (int i = 0; i < 100; i++) {
      String id = docs.get(random.nextInt(1000)).id();
      if (index.delete(id).outcome() == org.searchlab.core.WriteResult.Outcome.DELETED) {
        deleted++;
      }
      oracle.delete(id);
    }
    index.flush();
    IndexStats flushed = index.stats();
    assertEquals(flushed.lastSerial(), flushed.flushedSerial());
    feed(index, docs.subList(1000, 1500)); // only in the WAL
    feed(oracle, docs.subList(1000, 1500));
    index.update(PartialUpdate.of(docs.get(1200).id()).withPrice(4242));
    oracle.update(PartialUpdate.of(docs.get(1200).id()).withPrice(4242));
    List<SearchRequest> queries = new ArrayList<>();
    for (int q = 0; q < 30; q++) {
      queries.add(corpus.query(random.nextInt(1500), q % 2 == 0).targetHits(20).build());
      queries.add(SearchRequest.builder().text(corpus.randomQueryText(random, 3)).hits(10).build());
    }
    List<SearchResult> before = new ArrayList<>();
    for (SearchRequest q : queries) {
      before.add(index.search(q));
    }
    long docCount = index.stats().docCount();
    Path crashed = tmp.resolve("crashed");
    copyTree(dir, crashed);
    index.close();
    opened.remove(index);

    MutableIndex replayed = open(crashed, config);
    assertEquals(docCount, replayed.stats().docCount());
    assertEquals(flushed.flushedSerial(), replayed.stats().flushedSerial());
    assertEquals(4242, replayed.get(docs.get(1200).id()).orElseThrow().price());
    double recallBefore = 0;
    double recallReplayed = 0;
    int vectorQueries = 0;
    for (int i = 0; i < queries.size(); i++) {
      SearchResult after = replayed.search(queries.get(i));
      if (queries.get(i).hasVectorPart()) {
        List<org.searchlab.core.Hit> exact = oracle.search(queries.get(i)).hits();
        recallBefore += BaseSearchIndexTestCase.recall(exact, before.get(i).hits(), 10);
        recallReplayed += BaseSearchIndexTestCase.recall(exact, after.hits(), 10);
        vectorQueries++;
      } else {
        assertSameScores(before.get(i), after, queries.get(i).text());
      }
    }
    recallBefore /= vectorQueries;
    recallReplayed /= vectorQueries;
    System.out.printf(
        "recall@10 against the exact top-10: before %.3f, after replay %.3f%n",
        recallBefore, recallReplayed);
    assertTrue(recallReplayed >= 0.95, "recall after replay " + recallReplayed);

    MutableIndex reopened = open(dir, config);
    assertEquals(docCount, reopened.stats().docCount());
    assertEquals(
        reopened.stats().lastSerial(), reopened.stats().flushedSerial(), "closed by a snapshot");
    assertEquals(4242, reopened.get(docs.get(1200).id()).orElseThrow().price());
    for (int i = 0; i < queries.size(); i++) {
      assertSameScores(before.get(i), reopened.search(queries.get(i)), "query " + i);
    }
    assertTrue(reopened.stats().walBytes() < 1024, "WAL trimmed: " + reopened.stats().walBytes());
    // The retired versions the snapshot kept in the graph are the compactor's to free.
    reopened.forceMerge(1);
    assertEquals(deleted, reopened.stats().counter("ids_freed"), "the deleted versions");
    feed(reopened, corpus.documents(1600).subList(1500, 1600));
    assertEquals(docCount + 100, reopened.stats().docCount());
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (var paths = java.nio.file.Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        java.nio.file.Files.copy(p, to.resolve(from.relativize(p).toString()));
      }
    }
  }

  @Test
  void periodicSnapshotsCoverEveryWrite() throws Exception {
    MutableIndex index =
        open(
            tmp.resolve("idx"),
            small().toBuilder().snapshotInterval(Duration.ofMillis(100)).build());
    feed(index, corpus.documents(300));
    long last = index.stats().lastSerial();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (index.stats().flushedSerial() < last && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(last, index.stats().flushedSerial(), "a periodic snapshot covers every write");
    assertTrue(index.stats().counter("snapshots") >= 1);
  }

  @Test
  void threadsPerSearchGiveTheSameResults() throws IOException {
    List<Document> docs = new ArrayList<>();
    for (Document d : corpus.documents(6000)) {
      docs.add(new Document(d.id(), d.title(), d.description(), d.category(), d.price(), 1f, null));
    }
    MutableIndex one = open(tmp.resolve("one"), small());
    MutableIndex two = open(tmp.resolve("two"), small().toBuilder().threadsPerSearch(2).build());
    feed(one, docs);
    feed(two, docs);
    for (int q = 0; q < 60; q++) {
      String text = corpus.randomQueryText(random, 1 + random.nextInt(5));
      Filter f = q % 3 == 0 ? Filter.category(corpus.categories().get(q % 7)) : Filter.ALL;
      SearchRequest req =
          SearchRequest.builder().text(text).filter(f).hits(q % 2 == 0 ? 10 : 100).build();
      SearchResult a = one.search(req);
      SearchResult b = two.search(req);
      assertSameScores(a, b, text);
      assertEquals(a.total(), b.total(), text);
      SearchRequest countOnly = req.toBuilder().hits(0).build();
      assertEquals(a.total(), one.search(countOnly).total(), "hits=0 still counts: " + text);
      SearchRequest unranked = SearchRequest.builder().filter(f).hits(0).build();
      assertEquals(one.search(unranked).total(), two.search(unranked).total());
    }
  }

  private static java.util.Map<String, Document> byId(List<Document> docs) {
    java.util.Map<String, Document> m = new java.util.HashMap<>();
    for (Document d : docs) {
      m.put(d.id(), d);
    }
    return m;
  }
}
