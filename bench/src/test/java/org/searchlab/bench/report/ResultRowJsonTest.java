package org.searchlab.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** results.jsonl rows survive a write and a read ({@code --report-only} reads them back). */
class ResultRowJsonTest {
  @Test
  void roundTripKeepsTheRoundIntervalAndCalibrationFields() throws Exception {
    ResultRow base =
        new ResultRow(
            "mutable",
            "after_flush",
            "vector",
            true,
            16,
            null,
            null,
            100.0,
            1.0,
            1.0,
            1.5,
            2.0,
            3.0,
            0.5,
            200.0,
            null,
            null,
            null,
            null,
            100L,
            0L,
            1.0,
            null,
            null,
            null,
            "test",
            new RunInfo.Machine(2, "cpu", false),
            "jdk",
            "abc",
            1000,
            32);
    ResultRow row =
        base.withCandidates(10, 40, 0.95)
            .withInterval(
                Intervals.median(new double[] {90, 100, 110}),
                Intervals.median(new double[] {180, 200, 220}))
            .withQuality(0.99, 0.98)
            .withIdQuality(0.9, 0.8)
            .withCpuSource("/proc")
            .withSecondCpu(0.6)
            .withFirstError("HTTP 503: {\"error\":\"overloaded\"}")
            .withRefeedRate(2468.5)
            .withClientCpu(0.31)
            .withVisitedPerQuery(312.5);
    ObjectMapper json = new ObjectMapper();
    String line = json.writeValueAsString(row);
    JsonNode n = json.readTree(line);
    for (String f :
        new String[] {
          "round",
          "rounds",
          "qps_per_core_low",
          "qps_per_core_high",
          "num_candidates",
          "target_hits",
          "recall_target",
          "recall_at_10_ids",
          "overlap_at_10_ids",
          "interval_coverage",
          "cpu_source",
          "cpu_cores_second",
          "first_error",
          "client_retries",
          "refeed_docs_per_sec",
          "client_cores",
          "visited_per_query"
        }) {
      assertTrue(n.has(f), f + " in " + line);
    }
    assertEquals(row, json.readValue(line, ResultRow.class));
    assertTrue(n.get("machine").has("transparent_huge_pages"), line);
    // A row written before the huge-page setting was recorded reads as "off".
    ((com.fasterxml.jackson.databind.node.ObjectNode) n.get("machine"))
        .remove("transparent_huge_pages");
    assertEquals(row, json.treeToValue(n, ResultRow.class));
    assertEquals(3, row.rounds());
    assertEquals(180.0, row.qpsPerCoreLow());
    assertEquals(0.75, row.intervalCoverage(), 1e-12);
    assertEquals(2, json.readValue(line, ResultRow.class).withRound(2).round());
    assertEquals("/proc", row.cpuSource());
    assertEquals(0.6, row.cpuCoresSecond());
    assertEquals("HTTP 503: {\"error\":\"overloaded\"}", n.get("first_error").asText());
    assertEquals(null, base.firstError());
    assertEquals(2468.5, n.get("refeed_docs_per_sec").asDouble());
    assertEquals(null, base.refeedDocsPerSec());
    // A row of a run from before the refeed's rate was recorded reads it as null.
    ((com.fasterxml.jackson.databind.node.ObjectNode) n).remove("refeed_docs_per_sec");
    assertEquals(row.withRefeedRate(null), json.treeToValue(n, ResultRow.class));
    assertEquals(0.31, row.clientCores());
    assertEquals(null, base.clientCores());
    assertEquals(312.5, n.get("visited_per_query").asDouble());
    assertEquals(null, base.visitedPerQuery());
    // Nor a row from before the feed client's cores were recorded.
    ((com.fasterxml.jackson.databind.node.ObjectNode) n).remove("client_cores");
    assertEquals(
        row.withRefeedRate(null).withClientCpu(null), json.treeToValue(n, ResultRow.class));

    // A row whose server's CPU could not be read keeps its throughput but no CPU figure.
    ResultRow unread = row.withCpuSource(ResultRow.NO_CPU);
    assertEquals(ResultRow.NO_CPU, unread.cpuSource());
    assertEquals(null, unread.cpuCores());
    assertEquals(null, unread.qpsPerCore());
    assertEquals(null, unread.qpsPerCoreLow());
    assertEquals(null, unread.qpsPerCoreHigh());
    assertEquals(row.qps(), unread.qps());
    assertEquals(unread, json.readValue(json.writeValueAsString(unread), ResultRow.class));
  }
}
