package org.searchlab.opensearch;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The CPU time an Elasticsearch or OpenSearch cluster reports about itself, from {@code GET
 * /_nodes/stats/process}: each node's {@code process.cpu.total_in_millis}, the JVM's whole-process
 * CPU time (user + system, every thread, JIT compiler threads included, unlike searchlab's {@code
 * /proc} reader, which leaves them out). For a remote target this is the only CPU source; its
 * granularity is a millisecond and each node samples it when asked. Immutable.
 *
 * @param cpuMillisByNode node name to CPU milliseconds so far, in the response's order
 * @param timestampMillis the largest of the nodes' {@code process.timestamp} (epoch ms)
 */
public record NodesCpu(Map<String, Long> cpuMillisByNode, long timestampMillis) {
  public NodesCpu {
    cpuMillisByNode = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(cpuMillisByNode));
  }

  /** Parses a {@code _nodes/stats/process} (or {@code _nodes/stats}) response. */
  public static NodesCpu parse(JsonNode response) throws IOException {
    JsonNode nodes = response.path("nodes");
    if (!nodes.isObject() || nodes.isEmpty()) {
      throw new IOException("no nodes in a _nodes/stats response: " + response);
    }
    Map<String, Long> cpu = new LinkedHashMap<>();
    long timestamp = 0;
    for (Iterator<Map.Entry<String, JsonNode>> it = nodes.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode process = e.getValue().path("process");
      JsonNode millis = process.path("cpu").path("total_in_millis");
      if (!millis.canConvertToLong() || millis.asLong() < 0) {
        throw new IOException(
            "node " + e.getKey() + " reports no process.cpu.total_in_millis: " + process);
      }
      cpu.put(e.getValue().path("name").asText(e.getKey()), millis.asLong());
      timestamp = Math.max(timestamp, process.path("timestamp").asLong());
    }
    return new NodesCpu(cpu, timestamp);
  }

  /** CPU milliseconds of all nodes together. */
  public long totalCpuMillis() {
    return cpuMillisByNode.values().stream().mapToLong(Long::longValue).sum();
  }
}
