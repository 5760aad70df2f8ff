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
    return post(base, OpenSearchDialect.searchBody(b.build()));
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
