package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.testing.TestSeeds;

/** The feeder's encoded bodies: per corpus (by identity), operation and batch size; bounded. */
class BulkBodiesTest {
  private final Corpus corpus = Corpus.synthetic(TestSeeds.seed("BulkBodiesTest"), 10, 8, 2);

  @Test
  void bodiesAreTheBatchesInOrderEncodedOnce() {
    Feeder.BulkBodies cache = new Feeder.BulkBodies(Feeder::body, Long.MAX_VALUE);
    List<byte[]> puts = cache.of(corpus.docs(), FeedOp.PUT, 4);
    assertEquals(3, puts.size(), "10 documents in batches of 4");
    for (int b = 0; b < 3; b++) {
      List<Document> slice = corpus.docs().subList(4 * b, Math.min(10, 4 * b + 4));
      assertArrayEquals(Feeder.body(slice, FeedOp.PUT), puts.get(b), "batch " + b);
      String text = new String(puts.get(b), StandardCharsets.UTF_8);
      assertEquals(2 * slice.size(), text.split("\n").length, "two lines a document");
    }
    assertSame(puts, cache.of(corpus.docs(), FeedOp.PUT, 4), "encoded once");
    List<byte[]> updates = cache.of(corpus.docs(), FeedOp.PRICE_UPDATE, 4);
    assertNotSame(puts, updates);
    assertEquals(3, updates.size());
    // Another list of the same documents is another corpus: it is not served from the first one.
    assertNotSame(puts, cache.of(new ArrayList<>(corpus.docs()), FeedOp.PUT, 4));
  }

  @Test
  void aCorpusPastTheBudgetIsNotKept() {
    Feeder.BulkBodies cache = new Feeder.BulkBodies(Feeder::body, 1_000);
    assertNull(cache.of(corpus.docs(), FeedOp.PUT, 4), "ten vectors and texts exceed 1,000 bytes");
  }
}
