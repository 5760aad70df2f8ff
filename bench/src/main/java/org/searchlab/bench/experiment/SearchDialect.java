package org.searchlab.bench.experiment;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.List;

/**
 * How a variant's family asks for a search: the benchmark's request bodies in the Elasticsearch or
 * the Vespa dialect, and how to read the hit ids back. Implementations are stateless and
 * thread-safe.
 */
public interface SearchDialect {

  /** The benchmark's request: 10 hits, ids only, {@code k = num_candidates = targetHits = 100}. */
  default HttpRequest search(URI base, BenchQuery q, QueryType type, boolean filtered) {
    return search(base, q, type, filtered, Setting.BENCHMARK);
  }

  /**
   * The benchmark's request with the vector part's setting: Elasticsearch {@code k} and {@code
   * num_candidates}, Vespa {@code targetHits} and {@code hnsw.exploreAdditionalHits = candidates −
   * k} (both stores search a beam of {@code candidates}).
   */
  HttpRequest search(URI base, BenchQuery q, QueryType type, boolean filtered, Setting setting);

  /**
   * The faceted request: the lexical request ({@link QueryType#LEXICAL}, 10 hits, ids only) plus
   * the facets' aggregations. The Vespa dialect has none yet (no grouping request is written): it
   * throws {@link UnsupportedOperationException}, and a run skips the faceted cells of Vespa
   * targets and sends searchlab's servers the Elasticsearch dialect's body instead.
   */
  default HttpRequest faceted(URI base, BenchQuery q, boolean filtered, Facets facets) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName()
            + ": no faceted request (Vespa grouping requests are not written yet)");
  }

  /**
   * A vector query with an explicit beam, for the HNSW grid: {@code k} neighbours exploring {@code
   * ef} candidates (Elasticsearch {@code num_candidates}, Vespa {@code targetHits +
   * exploreAdditionalHits}).
   */
  HttpRequest vectorSearch(URI base, BenchQuery q, int k, int ef);

  /** The hit ids of a response body, best first. */
  List<String> ids(byte[] body) throws IOException;

  /**
   * The dialect a store speaks ({@code segmented} → Elasticsearch, else Vespa). Over quantized
   * vectors its searches rescore the whole beam by the floats (see {@link EsDialect#EsDialect(
   * boolean)}), so a quantized variant and its float peer search the same beam at each setting.
   */
  static SearchDialect ofStore(String store, boolean quantized) {
    return store.equals("segmented") ? new EsDialect(quantized) : new VespaDialect(quantized);
  }

  /**
   * The dialect of a store's server over the index of {@code mapping}: {@link #ofStore(String,
   * boolean)} for the product mapping; the Elasticsearch dialect for any other (the server's Vespa
   * routes search the product's fields only).
   */
  static SearchDialect ofStore(String store, boolean quantized, BenchMapping mapping) {
    return mapping.product() ? ofStore(store, quantized) : new EsDialect(mapping, quantized);
  }
}
