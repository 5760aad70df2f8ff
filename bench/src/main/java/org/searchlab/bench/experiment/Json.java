package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;

/** Shared JSON mapper and request helpers of the runner. Thread-safe (the mapper is). */
final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper();

  /** Timeout of one search or feed request; a slow force-merge has its own. */
  static final Duration REQUEST_TIMEOUT = Duration.ofMinutes(5);

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static ArrayNode vector(float[] v) {
    ArrayNode a = MAPPER.createArrayNode();
    for (float x : v) {
      a.add(x);
    }
    return a;
  }

  static HttpRequest post(URI uri, String body, String contentType) {
    return HttpRequest.newBuilder(uri)
        .timeout(REQUEST_TIMEOUT)
        .header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  static HttpRequest postJson(URI uri, ObjectNode body) {
    return post(uri, body.toString(), "application/json");
  }
}
