package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmark's Elasticsearch bodies, sent to {@code POST /{index}/_search/}: {@code multi_match}
 * best_fields over the text fields (title and description), {@code knn} on the vector field with
 * {@code k = num_candidates = 100}, both for hybrid, and a {@code term} filter on the keyword field
 * (category) in each part when filtered. Stateless.
 */
final class EsDialect implements SearchDialect {
  static final String INDEX = "product";

  private final BenchMapping mapping;
  private final boolean rescoreBeam;

  /** Bodies for an index of float vectors: no {@code rescore_vector}. */
  EsDialect() {
    this(false);
  }

  /** Bodies for the product index. */
  EsDialect(boolean rescoreBeam) {
    this(BenchMapping.PRODUCT, rescoreBeam);
  }

  /**
   * @param mapping the index and its fields: the lexical part's text fields, the vector field and
   *     the filter's keyword field
   * @param rescoreBeam whether the index is quantized: then each {@code knn} asks Elasticsearch's
   *     {@code rescore_vector} to rescore the whole beam ({@code oversample = num_candidates / k},
   *     in [1, 10]), so the quantized index searches the same beam as a float one at the same
   *     setting and rescores all it found, rather than widening the beam to {@code k × 3}
   */
  EsDialect(BenchMapping mapping, boolean rescoreBeam) {
    this.mapping = mapping;
    this.rescoreBeam = rescoreBeam;
  }

  @Override
  public HttpRequest search(
      URI base, BenchQuery q, QueryType type, boolean filtered, Setting setting) {
    return Json.postJson(
        base.resolve("/" + mapping.index() + "/_search/"), body(q, type, filtered, setting));
  }

  /** The lexical request with the facets' {@code aggs} after its other keys. */
  @Override
  public HttpRequest faceted(URI base, BenchQuery q, boolean filtered, Facets facets) {
    ObjectNode body = body(q, QueryType.LEXICAL, filtered, Setting.BENCHMARK);
    body.set("aggs", facets.aggs());
    return Json.postJson(base.resolve("/" + mapping.index() + "/_search/"), body);
  }

  private ObjectNode body(BenchQuery q, QueryType type, boolean filtered, Setting setting) {
    ObjectNode body = Json.object();
    body.put("size", 10);
    body.put("_source", false);
    if (type != QueryType.VECTOR) {
      ObjectNode bool = body.putObject("query").putObject("bool");
      ObjectNode mm = bool.putObject("must").putObject("multi_match");
      mm.put("query", q.text());
      ArrayNode fields = mm.putArray("fields");
      mapping.textFields().forEach(fields::add);
      mm.put("type", "best_fields");
      if (filtered) {
        bool.set("filter", filter(q.category()));
      }
    }
    if (type != QueryType.LEXICAL) {
      ObjectNode knn = knn(q, setting.k(), setting.candidates());
      if (rescoreBeam) {
        double oversample = Math.clamp(setting.candidates() / (double) setting.k(), 1.0, 10.0);
        knn.putObject("rescore_vector").put("oversample", oversample);
      }
      if (filtered) {
        knn.set("filter", filter(q.category()));
      }
      body.set("knn", knn);
    }
    return body;
  }

  @Override
  public HttpRequest vectorSearch(URI base, BenchQuery q, int k, int ef) {
    ObjectNode body = Json.object();
    body.put("size", k);
    body.put("_source", false);
    body.set("knn", knn(q, k, ef));
    return Json.postJson(base.resolve("/" + mapping.index() + "/_search/"), body);
  }

  private ObjectNode knn(BenchQuery q, int k, int numCandidates) {
    ObjectNode knn = Json.object();
    knn.put("field", mapping.vectorField());
    knn.set("query_vector", Json.vector(q.vector()));
    knn.put("num_candidates", numCandidates);
    knn.put("k", k);
    return knn;
  }

  private ArrayNode filter(String category) {
    ArrayNode a = Json.MAPPER.createArrayNode();
    a.addObject().putObject("term").put(mapping.filterField(), category);
    return a;
  }

  @Override
  public List<String> ids(byte[] body) throws IOException {
    return hitIds(body);
  }

  /** The {@code _id}s of an Elasticsearch or OpenSearch search response, best first. */
  static List<String> hitIds(byte[] body) throws IOException {
    JsonNode hits = Json.MAPPER.readTree(body).path("hits").path("hits");
    List<String> ids = new ArrayList<>();
    for (JsonNode h : hits) {
      ids.add(h.path("_id").asText());
    }
    return ids;
  }
}
