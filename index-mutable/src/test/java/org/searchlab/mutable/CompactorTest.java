package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.BackgroundErrors;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.wal.SyncPolicy;
import org.searchlab.core.wal.WalConfig;
import org.searchlab.core.wal.WriteAheadLog;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.mutable.memory.GenerationHandler;
import org.searchlab.mutable.memory.Race;

/**
 * {@link Compactor} on real index parts and a real writer: a pass removes retired documents step by
 * step, and each step that makes memory reusable waits for the searches older than it. Searches are
 * stood in for by generation guards held at chosen moments, so every interleaving is forced, not
 * hoped for.
 *
 * <p>Timeouts are hang detectors, not performance limits. The short pauses before asserting that a
 * pass has <em>not</em> gone on give a broken compactor time to go on wrongly; a correct one
 * cannot, so they cannot make the test flaky.
 */
class CompactorTest {
  private static final int DIM = 4;
  private static final long HANG_SECONDS = 30;
  private static final long WRONG_END_MILLIS = 100;

  @TempDir Path dir;
  private IndexParts parts;
  private WriteAheadLog wal;
  private IndexWriter writer;
  private Compactor compactor;
  private final ExecutorService pool = Race.daemonPool(1);

  @BeforeEach
  void open() throws Exception {
    parts = new IndexParts(VectorPart.create(DIM, HnswConfig.DEFAULT));
    wal =
        WriteAheadLog.open(
            dir.resolve("wal"), WalConfig.builder().syncPolicy(SyncPolicy.ASYNC).build());
    writer = new IndexWriter(parts, wal, 64, 0.0, () -> {});
    writer.start();
    compactor =
        new Compactor(
            parts,
            writer,
            MutableConfig.DEFAULT,
            new BackgroundErrors("mutable")); // on demand only
  }

  @AfterEach
  void close() throws Exception {
    pool.shutdownNow();
    writer.close();
    wal.close();
  }

  private static Document doc(int i) {
    float[] v = new float[DIM];
    v[i % DIM] = 1;
    return new Document(
        "d" + i, "common title", "word" + i + " shared", i % 2 == 0 ? "even" : "odd", i, 1f, v);
  }

  @Test
  void eachReusingStepWaitsForTheSearchesOlderThanIt() throws Exception {
    List<Operation> puts = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      puts.add(Operation.put(doc(i)));
    }
    writer.submit(puts);
    int[] dead = new int[5];
    List<Operation> deletes = new ArrayList<>();
    for (int i = 0; i < dead.length; i++) {
      dead[i] = parts.ids.lookup("d" + i);
      deletes.add(Operation.delete("d" + i));
    }
    writer.submit(deletes);
    int even = parts.attributes.ordinalOf("even");
    assertEquals(5, parts.attributes.categoryCount(even), "retired ids keep their attributes");

    // A search that started before the pass: the pass may not touch anything it can reach.
    GenerationHandler.Guard before = parts.generations.enter();
    Future<Integer> pass = pool.submit(compactor::compactNow);
    awaitGeneration(1);
    Thread.sleep(WRONG_END_MILLIS);
    assertFalse(pass.isDone());
    for (int local : dead) {
      assertNotNull(parts.vectors.vectors().get(local), "graph node of " + local + " kept");
      assertNotNull(parts.documents.get(local), "document " + local + " kept");
    }
    assertNotNull(parts.fields.get(1).postings("word0"));

    // A search that starts after the graph step but before the postings are dropped may still
    // hold the ids from a posting list: freeing waits for it too.
    GenerationHandler.Guard during = parts.generations.enter();
    before.close();
    awaitGeneration(2);
    Thread.sleep(WRONG_END_MILLIS);
    assertFalse(pass.isDone());
    for (int local : dead) {
      assertNull(parts.vectors.vectors().get(local), "graph node of " + local + " removed");
      assertNotNull(parts.documents.get(local), "document " + local + " kept");
    }
    assertNull(parts.fields.get(1).postings("word0"), "the emptied list is dropped");
    assertEquals(0, parts.ids.freeCount());

    during.close();
    assertEquals(5, pass.get(HANG_SECONDS, TimeUnit.SECONDS));
    assertEquals(5, parts.ids.freeCount());
    assertEquals(5, parts.idsFreed.get());
    assertTrue(parts.postingsCompacted.get() >= 10, "postings " + parts.postingsCompacted);
    assertEquals(2, parts.attributes.categoryCount(even), "freed ids lose their category bits");
    for (int local : dead) {
      assertNull(parts.documents.get(local), "document " + local + " dropped");
    }

    // The freed ids are what new documents get next.
    Set<Integer> freed = new HashSet<>();
    for (int local : dead) {
      freed.add(local);
    }
    writer.submit(List.of(Operation.put(doc(20)), Operation.put(doc(21))));
    assertTrue(freed.contains(parts.ids.lookup("d20")), "a freed id is reused");
    assertTrue(freed.contains(parts.ids.lookup("d21")), "a freed id is reused");
    assertEquals(0, compactor.compactNow(), "nothing left to compact");
  }

  private void awaitGeneration(long g) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_SECONDS);
    while (parts.generations.generation() < g) {
      assertTrue(System.nanoTime() < deadline, "the pass never started wait " + g);
      Thread.sleep(1);
    }
  }
}
