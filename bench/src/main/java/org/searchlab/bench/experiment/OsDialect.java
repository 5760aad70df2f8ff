package org.searchlab.bench.experiment;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.List;
import org.searchlab.core.Filter;
import org.searchlab.core.RankProfile;
import org.searchlab.core.SearchRequest;
import org.searchlab.opensearch.OpenSearchDialect;

/**
 * The benchmark's requests in OpenSearch's query language, sent to {@code POST /product/_search/}:
 * the same request as {@link EsDialect} sends (10 hits, ids only, {@code multi_match} best_fields
 * over title and description, the vector part with {@code k} and a beam of {@code candidates}, the
 * category as a filter in each part), translated by {@link OpenSearchDialect} because OpenSearch
 * has a {@code knn} query where Elasticsearch has a top-level {@code knn} section. Hits come back
 * as Elasticsearch's. Stateless.
 */
final class OsDialect implements SearchDialect {
  @Override
  public HttpRequest search(
      URI base, BenchQuery q, QueryType type, boolean filtered, Setting setting) {
    return post(base, OpenSearchDialect.searchBody(request(q, type, filtered, setting)));
  }

  private static SearchRequest request(
      BenchQuery q, QueryType type, boolean filtered, Setting setting) {
    RankProfile profile =
        switch (type) {
          case LEXICAL -> RankProfile.BM25;
          case VECTOR -> RankProfile.CLOSENESS;
          case HYBRID -> RankProfile.HYBRID;
        };
    SearchRequest.Builder b =
        SearchRequest.builder()
            .rankProfile(profile)
            .hits(10)
            .targetHits(setting.k())
            .exploreAdditionalHits(setting.candidates() - setting.k());
    if (type != QueryType.VECTOR) {
      b.text(q.text());
    }
    if (type != QueryType.LEXICAL) {
      b.vector(q.vector());
    }
    if (filtered) {
      b.filter(Filter.category(q.category()));
    }
    return b.build();
  }

  /** The lexical request with the facets' {@code aggs} added (OpenSearch answers them as ES). */
  @Override
  public HttpRequest faceted(URI base, BenchQuery q, boolean filtered, Facets facets) {
    String lexical =
        OpenSearchDialect.searchBody(request(q, QueryType.LEXICAL, filtered, Setting.BENCHMARK));
    try {
      com.fasterxml.jackson.databind.node.ObjectNode body =
          (com.fasterxml.jackson.databind.node.ObjectNode) Json.MAPPER.readTree(lexical);
      body.set("aggs", facets.aggs());
      return post(base, Json.MAPPER.writeValueAsString(body));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("OpenSearch's lexical body is not JSON: " + lexical, e);
    }
  }

  @Override
  public HttpRequest vectorSearch(URI base, BenchQuery q, int k, int ef) {
    SearchRequest r =
        SearchRequest.builder()
            .rankProfile(RankProfile.CLOSENESS)
            .vector(q.vector())
            .hits(k)
            .targetHits(k)
            .exploreAdditionalHits(Math.max(0, ef - k))
            .build();
    return post(base, OpenSearchDialect.searchBody(r));
  }

  private static HttpRequest post(URI base, String body) {
    return Json.post(base.resolve("/" + EsDialect.INDEX + "/_search/"), body, "application/json");
  }

  @Override
  public List<String> ids(byte[] body) throws IOException {
    return EsDialect.hitIds(body);
  }
}
