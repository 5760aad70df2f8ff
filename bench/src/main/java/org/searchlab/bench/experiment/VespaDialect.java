package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmark's Vespa bodies, sent to {@code POST /search/}: YQL with {@code userQuery()} (rank
 * profile {@code bm25}), {@code {targetHits:100}nearestNeighbor(embedding,q_embedding)} (profile
 * {@code closeness}), their {@code or} (profile {@code hybrid}), and {@code category contains "X"
 * and …} when filtered; {@code presentation.summary=minimal}, 10 hits. Stateless.
 */
final class VespaDialect implements SearchDialect {
  static final String DOCTYPE = "product";

  private final boolean rescoreBeam;

  /** Queries for float tensors: no rerank count. */
  VespaDialect() {
    this(false);
  }

  /**
   * @param rescoreBeam whether the tensor cells are int8: then each query with a vector part sets
   *     {@code ranking.rerankCount} to the beam ({@code targetHits + exploreAdditionalHits}), so
   *     every candidate the int8 search found is reranked by its float, and the beam is the same as
   *     a float index's at the same setting
   */
  VespaDialect(boolean rescoreBeam) {
    this.rescoreBeam = rescoreBeam;
  }

  @Override
  public HttpRequest search(
      URI base, BenchQuery q, QueryType type, boolean filtered, Setting setting) {
    String nn = nearestNeighbor(setting);
    String cond =
        switch (type) {
          case LEXICAL -> "userQuery()";
          case VECTOR -> nn;
          case HYBRID -> filtered ? "(" + nn + " or userQuery())" : nn + " or userQuery()";
        };
    if (filtered) {
      cond = "category contains \"" + escape(q.category()) + "\" and " + cond;
    }
    ObjectNode body = Json.object();
    body.put("yql", "select * from " + DOCTYPE + " where " + cond);
    body.put(
        "ranking.profile",
        switch (type) {
          case LEXICAL -> "bm25";
          case VECTOR -> "closeness";
          case HYBRID -> "hybrid";
        });
    body.put("presentation.summary", "minimal");
    body.put("hits", 10);
    if (type != QueryType.VECTOR) {
      body.put("query", q.text());
    }
    if (type != QueryType.LEXICAL) {
      body.set("input.query(q_embedding)", Json.vector(q.vector()));
      if (rescoreBeam) {
        body.put("ranking.rerankCount", setting.candidates());
      }
    }
    return Json.postJson(base.resolve("/search/"), body);
  }

  /**
   * The benchmark's {@code ({targetHits:100}nearestNeighbor(embedding,q_embedding))}, with {@code
   * hnsw.exploreAdditionalHits} when the setting explores more than {@code targetHits}.
   */
  static String nearestNeighbor(Setting s) {
    String explore =
        s.candidates() > s.k() ? ", hnsw.exploreAdditionalHits:" + (s.candidates() - s.k()) : "";
    return "({targetHits:" + s.k() + explore + "}nearestNeighbor(embedding,q_embedding))";
  }

  @Override
  public HttpRequest vectorSearch(URI base, BenchQuery q, int k, int ef) {
    ObjectNode body = Json.object();
    body.put(
        "yql",
        "select * from "
            + DOCTYPE
            + " where ({targetHits:"
            + k
            + ", hnsw.exploreAdditionalHits:"
            + Math.max(0, ef - k)
            + "}nearestNeighbor(embedding,q_embedding))");
    body.put("ranking.profile", "closeness");
    body.put("presentation.summary", "minimal");
    body.put("hits", k);
    body.set("input.query(q_embedding)", Json.vector(q.vector()));
    return Json.postJson(base.resolve("/search/"), body);
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  @Override
  public List<String> ids(byte[] body) throws IOException {
    JsonNode children = Json.MAPPER.readTree(body).path("root").path("children");
    List<String> ids = new ArrayList<>();
    for (JsonNode c : children) {
      String id = c.path("fields").path("documentid").asText(c.path("id").asText());
      int sep = id.lastIndexOf("::");
      ids.add(sep >= 0 ? id.substring(sep + 2) : id);
    }
    return ids;
  }
}
