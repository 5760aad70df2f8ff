package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.mutable.MutableFaultAccess;
import org.searchlab.segmented.SegmentedFaultAccess;
import org.searchlab.testing.FaultyFiles;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * A store that stopped after a storage failure, seen through the server: a write answers 503 in the
 * dialect's error shape with the failure named (not a 500: the request is not at fault, and a
 * restart is what helps), {@code /health} answers 503, {@code /metrics} keeps answering and reports
 * {@code searchlab_index_writable 0}, and acknowledged documents stay readable. The faults go into
 * the stores' real files: the write-ahead log's channel (a full disk) and Lucene's directory (a
 * merge that cannot create its files, after which Lucene closes its writer: a tragic event).
 */
class StoppedStoreTest {
  private static final String WRITABLE_0 = "searchlab_index_writable{index=\"product\"} 0.0";

  private static String bulk(List<Document> docs) throws Exception {
    StringBuilder sb = new StringBuilder();
    for (Document d : docs) {
      sb.append("{\"index\":{\"_index\":\"product\",\"_id\":\"").append(d.id()).append("\"}}\n");
      sb.append(Json.MAPPER.writeValueAsString(ServerFixture.source(d))).append('\n');
    }
    return sb.toString();
  }

  private static ServerFixture.Response sendBulk(ServerFixture f, List<Document> docs)
      throws Exception {
    return f.send("POST", "/_bulk", bulk(docs), "Content-Type", "application/x-ndjson");
  }

  /** A 503 in Elasticsearch's error shape whose reason contains {@code words}. */
  private static void assertStopped(ServerFixture.Response r, String words) {
    assertEquals(503, r.status(), r.body());
    JsonNode error = r.json().path("error");
    assertEquals("unavailable_shards_exception", error.path("type").asText(), r.body());
    assertTrue(error.path("reason").asText().contains(words), r.body());
  }

  private static void assertReadsAndMetricsGoOn(ServerFixture f, List<Document> acked)
      throws Exception {
    assertEquals(503, f.send("GET", "/health", (String) null).status());
    ServerFixture.Response metrics = f.send("GET", "/metrics", (String) null);
    assertEquals(200, metrics.status(), metrics.body());
    assertTrue(metrics.body().contains(WRITABLE_0), "the stop is in /metrics");
    for (Document d : List.of(acked.get(0), acked.get(acked.size() - 1))) {
      assertEquals(200, f.send("GET", "/product/_doc/" + d.id(), (String) null).status(), d.id());
    }
  }

  private static SyntheticCorpus corpus(String test) {
    return new SyntheticCorpus(TestSeeds.seed("StoppedStoreTest." + test), ServerFixture.DIMS);
  }

  private void fullDisk(String store, SearchIndex index, Path dir, FaultyFiles faults)
      throws Exception {
    List<Document> docs = corpus(store + "FullDisk").documents(60);
    try (ServerFixture f = ServerFixture.serve(dir, index)) {
      assertEquals(200, sendBulk(f, docs.subList(0, 20)).status());
      ServerFixture.Response metrics = f.send("GET", "/metrics", (String) null);
      assertTrue(
          metrics.body().contains("searchlab_index_writable{index=\"product\"} 1.0"),
          "writable before");
      faults.writeBudget.set(0); // the disk is full
      assertStopped(sendBulk(f, docs.subList(20, 40)), "write-ahead log");
      faults.writeBudget.set(
          Long.MAX_VALUE); // space again: the store stays stopped until restarted
      String put = Json.MAPPER.writeValueAsString(ServerFixture.source(docs.get(50)));
      assertStopped(f.send("PUT", "/product/_doc/" + docs.get(50).id(), put), "accepts no writes");
      assertStopped(sendBulk(f, docs.subList(40, 50)), "accepts no writes");
      assertReadsAndMetricsGoOn(f, docs.subList(0, 20));
    }
  }

  @Test
  void mutableStoreOnAFullDiskAnswers503AndKeepsServingReadsAndMetrics() throws Exception {
    Path dir = Files.createTempDirectory("stopped-mutable");
    FaultyFiles faults = new FaultyFiles();
    Schema schema = new Schema(ServerFixture.DIMS);
    fullDisk("mutable", MutableFaultAccess.open(dir, schema, faults), dir, faults);
  }

  @Test
  void segmentedStoreOnAFullDiskAnswers503AndKeepsServingReadsAndMetrics() throws Exception {
    Path dir = Files.createTempDirectory("stopped-segmented");
    FaultyFiles faults = new FaultyFiles();
    Schema schema = new Schema(ServerFixture.DIMS);
    SearchIndex index = SegmentedFaultAccess.open(dir, schema, faults, new AtomicBoolean());
    fullDisk("segmented", index, dir, faults);
  }

  @Test
  void segmentedStoreWhoseLuceneWriterClosedItselfKeepsAnsweringMetrics() throws Exception {
    Path dir = Files.createTempDirectory("stopped-tragic");
    AtomicBoolean failLucene = new AtomicBoolean();
    SearchIndex index =
        SegmentedFaultAccess.open(
            dir, new Schema(ServerFixture.DIMS), new FaultyFiles(), failLucene);
    List<Document> docs = corpus("tragic").documents(70);
    try (ServerFixture f = ServerFixture.serve(dir, index)) {
      for (int from = 0; from < 60; from += 20) {
        f.bulkAndRefresh(bulk(docs.subList(from, from + 20))); // three segments
      }
      failLucene.set(true); // Lucene cannot create files: the merge fails
      ServerFixture.Response merge =
          f.send("POST", "/product/_forcemerge?max_num_segments=1", (String) null);
      // The merge's answer comes after Lucene recorded the tragedy: a stop, not a bare I/O error.
      assertStopped(merge, "Lucene's index writer failed");
      assertTrue(
          index.health().writer().isPresent(),
          "Lucene closed its writer after the failed merge: " + index.health());
      assertReadsAndMetricsGoOn(f, docs.subList(0, 60));
      assertStopped(sendBulk(f, docs.subList(60, 70)), "Lucene's index writer failed");
      failLucene.set(false);
    }
  }
}
