package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.FeedNiceness;
import org.searchlab.core.IndexStats;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.WriteResult;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.mutable.hnsw.MutableHnswGraph;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The mutable store's write path: parallel graph inserts per writer batch, and how much work a
 * re-put does (none on the graph for an unchanged vector, none on postings for unchanged text).
 */
class WritePathTest {
  private static final int DIM = 32;
  private final Schema schema = new Schema(DIM);
  @TempDir Path tmp;
  private long seed;
  private SyntheticCorpus corpus;
  private final List<MutableIndex> opened = new ArrayList<>();

  @BeforeEach
  void seed(TestInfo info) {
    seed = TestSeeds.seed(getClass().getSimpleName() + "." + info.getDisplayName());
    corpus =
        new SyntheticCorpus(seed, DIM, SyntheticCorpus.Params.builder().vocabulary(2000).build());
  }

  @AfterEach
  void close() throws IOException {
    for (MutableIndex i : opened) {
      i.close();
    }
  }

  private MutableConfig config(int buildThreads) {
    return MutableConfig.builder()
        .hnsw(HnswConfig.builder().efConstruction(64).seed(seed).buildThreads(buildThreads).build())
        .snapshotInterval(Duration.ZERO)
        .build();
  }

  private MutableIndex open(String name, MutableConfig config) throws IOException {
    MutableIndex index = MutableIndex.open(tmp.resolve(name), schema, config);
    opened.add(index);
    return index;
  }

  private static void feed(MutableIndex index, List<Document> docs, int batch) throws IOException {
    for (int from = 0; from < docs.size(); from += batch) {
      List<Operation> ops = new ArrayList<>();
      for (Document d : docs.subList(from, Math.min(docs.size(), from + batch))) {
        ops.add(Operation.put(d));
      }
      index.bulk(ops);
    }
  }

  @Test
  void parallelStoreBuildIsDeterministicForASeedAndThreadCount() throws IOException {
    List<Document> docs = corpus.documents(1_500);
    MutableIndex a = open("a", config(2));
    MutableIndex b = open("b", config(2));
    // One bulk at a time from one thread: each bulk is one writer batch, one insertAll.
    feed(a, docs, 300);
    feed(b, docs, 300);
    assertEquals(2, a.stats().counter("build_threads"));
    MutableHnswGraph ga = a.parts().vectors.graph();
    MutableHnswGraph gb = b.parts().vectors.graph();
    assertEquals(docs.size(), ga.size());
    assertEquals(ga.entryNode(), gb.entryNode());
    int limit = a.parts().ids.limit();
    for (int node = 0; node < limit; node++) {
      assertEquals(ga.level(node), gb.level(node), "level of node " + node);
      for (int level = 0; level <= ga.level(node); level++) {
        assertArrayEquals(ga.neighbors(node, level), gb.neighbors(node, level), "node " + node);
      }
    }
  }

  private static Document withTitle(Document d, String title) {
    return new Document(
        d.id(),
        title,
        d.description(),
        d.category(),
        d.price() + 1,
        d.averageRating(),
        d.embedding());
  }

  private static Document withVector(Document d, float[] v) {
    return new Document(
        d.id(), d.title(), d.description(), d.category(), d.price(), d.averageRating(), v);
  }

  private float[] otherVector(int i) {
    return corpus.document(100_000 + i).embedding();
  }

  /**
   * The top hit of an exact and of a graph search for {@code v}: both must be {@code id}. The graph
   * search's beam covers the whole small graph, so it misses only a node it cannot reach: what this
   * checks is that the node is linked, not the graph's recall.
   */
  private static void assertNearest(MutableIndex index, float[] v, String id) throws IOException {
    for (boolean approximate : new boolean[] {false, true}) {
      SearchResult r =
          index.search(
              SearchRequest.builder()
                  .vector(v)
                  .targetHits(1_000)
                  .hits(1)
                  .approximate(approximate)
                  .build());
      assertEquals(List.of(id), r.ids(), (approximate ? "graph" : "exact") + " search for " + id);
    }
  }

  @Test
  void singleWritesInFlightTogetherShareOneWriterBatch() throws Exception {
    MutableIndex index = open("idx", config(2));
    List<Document> docs = corpus.documents(100);
    long before = index.stats().counter("writer_batches");
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Void> held =
        CompletableFuture.runAsync(
            () -> {
              try {
                index
                    .writer()
                    .onWriter(
                        () -> {
                          holding.countDown();
                          return release.await(1, TimeUnit.MINUTES);
                        });
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    assertTrue(holding.await(1, TimeUnit.MINUTES), "the writer thread runs the holding task");
    // One thread puts 100 documents while the writer is busy: each call returns unanswered.
    List<CompletableFuture<WriteResult>> pending = new ArrayList<>();
    for (Document d : docs) {
      pending.add(index.writeAsync(Operation.put(d)));
    }
    assertTrue(pending.stream().noneMatch(CompletableFuture::isDone), "none acknowledged yet");
    release.countDown();
    held.get(1, TimeUnit.MINUTES);
    for (CompletableFuture<WriteResult> f : pending) {
      assertEquals(WriteResult.Outcome.CREATED, f.get(1, TimeUnit.MINUTES).outcome());
    }
    assertEquals(
        1, index.stats().counter("writer_batches") - before, "one batch, one log write and sync");
    for (Document d : docs) {
      assertTrue(index.get(d.id()).isPresent(), d.id());
    }
    assertNearest(index, docs.get(42).embedding(), docs.get(42).id());
  }

  @Test
  void theWriterRunsAtTheFeedNicenessAndReportsIt() throws IOException {
    assumeTrue(
        FeedNiceness.currentThreadNice().orElse(-1) == 0, "needs Linux and a test JVM at nice 0");
    MutableIndex nice = open("nice", config(2).toBuilder().feedNiceness(1.0).build());
    MutableIndex plain = open("plain", config(2).toBuilder().feedNiceness(0.0).build());
    List<Document> docs = corpus.documents(300);
    feed(nice, docs, 100);
    feed(plain, docs, 100);
    assertEquals(19, nice.writer().onWriter(() -> FeedNiceness.currentThreadNice().getAsInt()));
    assertEquals(0, plain.writer().onWriter(() -> FeedNiceness.currentThreadNice().getAsInt()));
    assertEquals(19L, nice.stats().counters().get("feed_nice"));
    assertEquals(0L, plain.stats().counters().get("feed_nice"));
    // Niceness changes who runs first, never what is written: both answer alike.
    SearchRequest q = SearchRequest.builder().text(docs.get(7).title()).build();
    assertEquals(plain.search(q).ids(), nice.search(q).ids());
  }

  @Test
  void theWriterThreadsTimeIsCountedPerStage() throws IOException {
    MutableIndex index = open("idx", config(2));
    feed(index, corpus.documents(600), 200);
    IndexStats stats = index.stats();
    assertEquals(3, stats.counter("writer_batches"), "one batch per bulk of 200: " + stats);
    for (String stage : List.of("check", "log_write", "log_sync", "apply", "graph")) {
      assertTrue(stats.counters().containsKey("writer_" + stage + "_ms"), stage);
    }
    assertTrue(stats.counter("writer_graph_ms") > 0, "600 graph inserts take time: " + stats);
  }

  @Test
  void identicalRefeedTouchesNeitherGraphNorPostings() throws IOException {
    MutableIndex index = open("idx", config(2));
    List<Document> docs = corpus.documents(600);
    feed(index, docs, 200);
    IndexStats before = index.stats();
    feed(index, docs, 200);
    IndexStats after = index.stats();
    assertEquals(before.counter("graph_operations"), after.counter("graph_operations"));
    assertEquals(before.counter("postings_touched"), after.counter("postings_touched"));
    assertEquals(600, after.counter("unchanged_text_puts") - before.counter("unchanged_text_puts"));
    assertEquals(
        600, after.counter("unchanged_vector_puts") - before.counter("unchanged_vector_puts"));
    assertEquals(600, after.docCount());
    for (Document d : docs) {
      assertEquals(d, index.get(d.id()).orElseThrow());
    }
  }

  @Test
  void textOnlyChangeHandsTheGraphNodeOver() throws IOException {
    MutableIndex index = open("idx", config(2));
    List<Document> docs = corpus.documents(600);
    feed(index, docs, 200);
    IndexStats before = index.stats();
    List<Document> changed = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      changed.add(withTitle(docs.get(i * 6), "zzretitled" + i));
    }
    feed(index, changed, 50);
    IndexStats after = index.stats();
    assertEquals(before.counter("graph_operations"), after.counter("graph_operations"));
    assertTrue(after.counter("postings_touched") > before.counter("postings_touched"));
    assertEquals(
        100, after.counter("unchanged_vector_puts") - before.counter("unchanged_vector_puts"));
    assertEquals(before.counter("unchanged_text_puts"), after.counter("unchanged_text_puts"));
    // The new versions are found by their new text and, through the handed-over node, by vector.
    for (Document d : changed) {
      assertEquals(d, index.get(d.id()).orElseThrow());
      assertEquals(
          List.of(d.id()), index.search(SearchRequest.builder().text(d.title()).build()).ids());
      assertNearest(index, d.embedding(), d.id());
    }
    // Once compacted, the old nodes are gone without graph work and the graph holds the live ones.
    index.forceMerge(1);
    assertEquals(before.counter("graph_operations"), index.stats().counter("graph_operations"));
    assertEquals(600, index.parts().vectors.graph().size());
    for (Document d : changed) {
      assertNearest(index, d.embedding(), d.id());
    }
  }

  @Test
  void vectorOnlyChangeTouchesNoPostings() throws IOException {
    MutableIndex index = open("idx", config(2));
    List<Document> docs = corpus.documents(600);
    feed(index, docs, 200);
    IndexStats before = index.stats();
    List<Document> changed = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      changed.add(withVector(docs.get(i * 6), otherVector(i)));
    }
    feed(index, changed, 50);
    IndexStats after = index.stats();
    assertEquals(before.counter("postings_touched"), after.counter("postings_touched"));
    assertTrue(after.counter("graph_operations") >= before.counter("graph_operations") + 100);
    assertEquals(100, after.counter("unchanged_text_puts") - before.counter("unchanged_text_puts"));
    assertEquals(600, index.parts().vectors.graph().size());
    for (Document d : changed) {
      assertEquals(d, index.get(d.id()).orElseThrow());
      assertNearest(index, d.embedding(), d.id());
    }
  }
}
