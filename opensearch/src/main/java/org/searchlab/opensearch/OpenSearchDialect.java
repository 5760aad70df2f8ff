package org.searchlab.opensearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Fusion;
import org.searchlab.core.Hit;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.Timings;
import org.searchlab.core.TotalHits;

/**
 * searchlab's {@link SearchRequest} in OpenSearch's query language, against a {@link ProductIndex},
 * so that OpenSearch answers with the stores' scores; and documents as {@code _bulk} bodies.
 * Stateless and thread-safe.
 *
 * <p>OpenSearch has no top-level {@code knn} section (Elasticsearch 8 has); its k-NN plugin adds a
 * {@code knn} query instead. The translation:
 *
 * <ul>
 *   <li>{@link RankProfile#BM25}: {@code multi_match} over title and description, {@code
 *       best_fields}, tie breaker 0 (the larger field score), in a {@code bool} whose {@code
 *       filter} holds the filter.
 *   <li>{@link RankProfile#CLOSENESS}: {@code knn} with {@code k} = targetHits and {@code
 *       method_parameters.ef_search} = targetHits + exploreAdditionalHits (Elasticsearch's {@code
 *       num_candidates}: the plugin searches each segment with max(k, ef_search) as Lucene's k and
 *       keeps the best k), the filter inside as a pre-filter (Lucene's, with its exact-search
 *       fallback), and {@code boost} {@value #VECTOR_BOOST}: the innerproduct space scores 1 + dot
 *       for dot ≥ 0, and half of that is the stores' (1 + dot) / 2. Below dot 0 OpenSearch scores 1
 *       / (1 − dot), so halved scores of opposite-facing vectors differ (their ranking does not).
 *   <li>{@link RankProfile#HYBRID} with {@link Fusion#SUM}: both as {@code should} clauses of a
 *       {@code bool} with {@code minimum_should_match} 1 (without it, a {@code bool} with a filter
 *       would match every filtered document with score 0), the filter both in the {@code bool} and
 *       inside {@code knn}; scores add, as Elasticsearch's {@code query} + {@code knn}.
 *   <li>{@link RankProfile#UNRANKED}: {@code match_all} (score 1) with the filter.
 * </ul>
 *
 * Reciprocal rank fusion and exact ({@code approximate = false}) vector search have no plain
 * OpenSearch equivalent here and are rejected with {@link InvalidRequestException}.
 */
public final class OpenSearchDialect {
  /** The {@code knn} query's boost that turns OpenSearch's 1 + dot into the stores' (1 + dot)/2. */
  public static final float VECTOR_BOOST = 0.5f;

  private OpenSearchDialect() {}

  /**
   * The stores' closeness (1 + dot) / 2 of a hit of a vector-only query, from the score OpenSearch
   * gave it: the same value when dot ≥ 0 (score ≥ 0.5), and 1 − 0.25 / score below, where
   * OpenSearch's score is {@value #VECTOR_BOOST} / (1 − dot). A hybrid score mixes two parts and
   * cannot be converted; it differs from the stores' only for hits with a negative dot product.
   */
  public static float closeness(float vectorScore) {
    return vectorScore >= 0.5f ? vectorScore : 1f - 0.25f / vectorScore;
  }

  /** The body of {@code POST /<index>/_search} for {@code r}; no {@code _source} is returned. */
  public static String searchBody(SearchRequest r) {
    if (!r.approximate() && r.hasVectorPart()) {
      throw new InvalidRequestException(
          "exact vector search (approximate=false) has no OpenSearch k-NN equivalent here");
    }
    if (r.rankProfile() == RankProfile.HYBRID && r.fusion() != Fusion.SUM) {
      throw new InvalidRequestException(
          "fusion " + r.fusion() + " is not supported against OpenSearch; use SUM");
    }
    if (r.hasLexicalPart() && r.text() == null) {
      throw new InvalidRequestException("rank profile " + r.rankProfile() + " needs query text");
    }
    if (r.hasVectorPart() && r.vector() == null) {
      throw new InvalidRequestException("rank profile " + r.rankProfile() + " needs a vector");
    }
    ObjectNode body = OpenSearchHttp.MAPPER.createObjectNode();
    body.put("size", r.hits());
    if (r.offset() > 0) {
      body.put("from", r.offset());
    }
    body.put("_source", false);
    body.put("track_total_hits", r.trackTotalHitsUpTo());
    ArrayNode filter = filterClauses(r.filter());
    ObjectNode query = body.putObject("query");
    switch (r.rankProfile()) {
      case BM25 -> {
        ObjectNode bool = query.putObject("bool");
        bool.putArray("must").add(multiMatch(r.text()));
        bool.set("filter", filter);
      }
      case CLOSENESS -> query.setAll(knn(r, filter));
      case HYBRID -> {
        ObjectNode bool = query.putObject("bool");
        bool.putArray("should").add(multiMatch(r.text())).add(knn(r, filter));
        bool.put("minimum_should_match", 1);
        bool.set("filter", filter);
      }
      case UNRANKED -> {
        ObjectNode bool = query.putObject("bool");
        bool.putArray("must").addObject().putObject("match_all");
        bool.set("filter", filter);
      }
    }
    return body.toString();
  }

  private static ObjectNode multiMatch(String text) {
    ObjectNode mm = OpenSearchHttp.MAPPER.createObjectNode();
    ObjectNode m = mm.putObject("multi_match");
    m.put("query", text);
    ArrayNode fields = m.putArray("fields");
    Schema.TEXT_FIELDS.forEach(fields::add);
    m.put("type", "best_fields");
    m.put("tie_breaker", 0.0);
    return mm;
  }

  private static ObjectNode knn(SearchRequest r, ArrayNode filter) {
    ObjectNode q = OpenSearchHttp.MAPPER.createObjectNode();
    ObjectNode field = q.putObject("knn").putObject(Schema.EMBEDDING);
    ArrayNode vector = field.putArray("vector");
    for (float x : r.vector()) {
      vector.add(x);
    }
    field.put("k", r.targetHits());
    field.putObject("method_parameters").put("ef_search", r.candidates());
    if (!filter.isEmpty()) {
      field.putObject("filter").putObject("bool").set("filter", filter.deepCopy());
    }
    field.put("boost", VECTOR_BOOST);
    return q;
  }

  private static ArrayNode filterClauses(Filter f) {
    ArrayNode clauses = OpenSearchHttp.MAPPER.createArrayNode();
    if (f.category() != null) {
      clauses.addObject().putObject("term").put(Schema.CATEGORY, f.category());
    }
    if (f.price() != null) {
      ObjectNode range = clauses.addObject().putObject("range").putObject(Schema.PRICE);
      range.put("gte", f.price().min());
      range.put("lte", f.price().max());
    }
    return clauses;
  }

  /**
   * A search response as a {@link SearchResult}: hits with their {@code _id} and {@code _score},
   * the total (exact or a lower bound), OpenSearch's {@code took} as the total time. The plan is
   * not reported by OpenSearch and is left {@link QueryPlan#EMPTY}.
   */
  public static SearchResult result(JsonNode response) throws IOException {
    JsonNode hits = response.path("hits");
    if (!hits.has("hits")) {
      throw new IOException("not a search response: " + response);
    }
    List<Hit> out = new ArrayList<>();
    for (JsonNode h : hits.path("hits")) {
      out.add(new Hit(h.path("_id").asText(), (float) h.path("_score").asDouble()));
    }
    JsonNode total = hits.path("total");
    long value = total.path("value").asLong();
    TotalHits t =
        "eq".equals(total.path("relation").asText())
            ? TotalHits.exact(value)
            : TotalHits.atLeast(value);
    long tookNanos = response.path("took").asLong() * 1_000_000L;
    return new SearchResult(out, t, QueryPlan.EMPTY, new Timings(tookNanos, 0, 0, 0));
  }

  /**
   * The {@code _bulk} body that indexes (creates or replaces) {@code docs} into {@code index}, with
   * the benchmark's source fields; ends with a newline as {@code _bulk} requires.
   */
  public static String bulkBody(String index, List<Document> docs) {
    StringBuilder sb = new StringBuilder();
    for (Document d : docs) {
      ObjectNode action = OpenSearchHttp.MAPPER.createObjectNode();
      action.putObject("index").put("_index", index).put("_id", d.id());
      sb.append(action).append('\n').append(source(d)).append('\n');
    }
    return sb.toString();
  }

  /** A document's {@code _source}; the embedding is written with float precision. */
  public static ObjectNode source(Document d) {
    ObjectNode s = OpenSearchHttp.MAPPER.createObjectNode();
    s.put(Schema.ID, d.id());
    s.put(Schema.TITLE, d.title());
    s.put(Schema.DESCRIPTION, d.description());
    if (d.category() != null) {
      s.put(Schema.CATEGORY, d.category());
    }
    s.put(Schema.PRICE, d.price());
    s.put(Schema.AVERAGE_RATING, d.averageRating());
    if (d.hasEmbedding()) {
      ArrayNode v = s.putArray(Schema.EMBEDDING);
      for (float x : d.embedding()) {
        v.add(x);
      }
    }
    return s;
  }

  /**
   * Throws when a {@code _bulk} response reports any failed item, quoting the first failure;
   * returns how many items there were.
   */
  public static int checkBulk(JsonNode response) throws IOException {
    int n = 0;
    for (JsonNode item : response.path("items")) {
      n++;
      JsonNode r = item.elements().next();
      if (r.has("error")) {
        throw new IOException("bulk item " + r.path("_id").asText() + " failed: " + r.get("error"));
      }
    }
    return n;
  }
}
