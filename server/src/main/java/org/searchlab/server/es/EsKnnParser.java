package org.searchlab.server.es;

import static org.searchlab.server.es.EsParsing.illegal;
import static org.searchlab.server.es.EsParsing.keys;
import static org.searchlab.server.es.EsParsing.object;
import static org.searchlab.server.es.EsParsing.parsing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Set;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.query.Knn;
import org.searchlab.core.query.Query;
import org.searchlab.server.Json;

/**
 * Translates an Elasticsearch kNN search into a core {@link Knn}: the search body's {@code knn}
 * section, a {@code knn} retriever, or a {@code knn} query that is a request's whole query.
 * Stateless and thread-safe.
 *
 * <p>As Elasticsearch 8.x: {@code k} defaults to the request's {@code size}; {@code num_candidates}
 * to {@code min(1.5 k, 10000)} rounded up, and may not be below {@code k}; {@code filter} is one
 * query or a list of them (LangChain sends a list, possibly empty), which become {@link
 * Query.MatchAll} (none), the query itself (one) or a {@link Query.Bool} of {@code filter} clauses
 * (several; filters do not score, so this is Elasticsearch's conjunction); {@code similarity} is
 * the raw similarity threshold, passed as given; {@code rescore_vector.oversample} sets the
 * rescoring window to {@code ceil(k × oversample)}. The query vector is {@code query_vector}, or
 * text the server embeds ({@code query_vector_builder.text_embedding.model_text}), in which case
 * the {@link Knn} has no vector and {@link Part#embedText()} says what to embed.
 */
final class EsKnnParser {
  /** Elasticsearch's largest {@code dense_vector} dimension count. */
  static final int MAX_DIMS = 4096;

  /** Where a kNN search comes from; each takes its own keys. */
  enum Kind {
    /** The search body's {@code knn} section. */
    SECTION(
        Set.of(
            "field",
            "query_vector",
            "query_vector_builder",
            "k",
            "num_candidates",
            "filter",
            "similarity",
            "boost",
            "rescore_vector"),
        Set.of("inner_hits", "_name")),
    /** A {@code knn} retriever: Elasticsearch requires its {@code k} and {@code num_candidates}. */
    RETRIEVER(
        Set.of(
            "field",
            "query_vector",
            "query_vector_builder",
            "k",
            "num_candidates",
            "filter",
            "similarity",
            "rescore_vector"),
        Set.of("_name", "inner_hits")),
    /** A {@code knn} query. */
    QUERY(
        Set.of(
            "field",
            "query_vector",
            "query_vector_builder",
            "k",
            "num_candidates",
            "filter",
            "similarity",
            "boost",
            "rescore_vector"),
        Set.of("_name"));

    final Set<String> keys;
    final Set<String> refused;

    Kind(Set<String> keys, Set<String> refused) {
      this.keys = keys;
      this.refused = refused;
    }
  }

  /**
   * One kNN search and, when its vector is to be embedded from text, that text.
   *
   * @param knn the search; its vector is null when {@code embedText} is set
   * @param embedText the text to embed into the query vector, or null
   */
  record Part(Knn knn, String embedText) {}

  private EsKnnParser() {}

  /**
   * Reads one kNN search.
   *
   * @param size the request's {@code size}, {@code k}'s default
   * @param queries the request's query translator (filters count against its limits)
   */
  static Part parse(JsonNode node, String where, Kind kind, int size, EsQueryParser queries) {
    object(node, where);
    keys(node, where, kind.keys, kind.refused);
    String field = Json.string(node.get("field"), "[" + where + ".field]");
    if (field.isEmpty()) {
      throw illegal("[" + where + ".field] is empty");
    }
    float[] vector = null;
    String embedText = null;
    if (node.has("query_vector")) {
      JsonNode v = node.get("query_vector");
      if (v.isArray() && v.size() > MAX_DIMS) {
        throw illegal(
            "["
                + where
                + ".query_vector] has "
                + v.size()
                + " dimensions; the limit is "
                + MAX_DIMS);
      }
      vector = Json.vector(v, "[" + where + ".query_vector]");
    }
    if (node.has("query_vector_builder")) {
      embedText = embedText(node.get("query_vector_builder"), where + ".query_vector_builder");
    }
    if ((vector == null) == (embedText == null)) {
      throw illegal(
          "[" + where + "] needs exactly one of [query_vector] and [query_vector_builder]");
    }
    if (kind == Kind.RETRIEVER) {
      for (String required : List.of("k", "num_candidates")) {
        if (!node.has(required)) {
          throw illegal("[" + where + "] requires [" + required + "]");
        }
      }
    }
    int k =
        node.has("k")
            ? Json.integer(node.get("k"), "[" + where + ".k]", 1, SearchRequest.MAX_CANDIDATES)
            : Math.max(1, size);
    int numCandidates =
        node.has("num_candidates")
            ? Json.integer(
                node.get("num_candidates"),
                "[" + where + ".num_candidates]",
                1,
                SearchRequest.MAX_CANDIDATES)
            : (int) Math.min(Math.ceil(1.5 * k), SearchRequest.MAX_CANDIDATES);
    if (numCandidates < k) {
      throw illegal(
          "[" + where + ".num_candidates] " + numCandidates + " cannot be less than [k] " + k);
    }
    Query filter = Query.MatchAll.INSTANCE;
    if (node.has("filter")) {
      filter = filter(node.get("filter"), where + ".filter", queries);
    }
    Float similarity =
        node.has("similarity")
            ? EsParsing.number(node.get("similarity"), where + ".similarity")
            : null;
    float boost = node.has("boost") ? EsParsing.boost(node.get("boost"), where + ".boost") : 1f;
    int rescoreWindow = 0;
    if (node.has("rescore_vector")) {
      float oversample = oversample(node.get("rescore_vector"), where + ".rescore_vector");
      // Elasticsearch gathers and rescores ceil(k × oversample) candidates per shard.
      rescoreWindow = (int) Math.ceil(k * (double) oversample);
    }
    return new Part(
        new Knn(field, vector, k, numCandidates, filter, similarity, boost, rescoreWindow),
        embedText);
  }

  /** A filter: one query, or a list of them that all apply. */
  static Query filter(JsonNode node, String where, EsQueryParser queries) {
    List<Query> list = queries.list(node, where);
    if (list.isEmpty()) {
      return Query.MatchAll.INSTANCE;
    }
    if (list.size() == 1) {
      return list.get(0);
    }
    return new Query.Bool(List.of(), list, List.of(), List.of(), null, 1f);
  }

  private static String embedText(JsonNode v, String where) {
    object(v, where);
    keys(v, where, Set.of("text_embedding"), Set.of());
    JsonNode te = object(v.get("text_embedding"), where + ".text_embedding");
    String w = where + ".text_embedding";
    // The server has one embedder; model_id names it in Elasticsearch and is not checked here.
    keys(te, w, Set.of("model_id", "model_text"), Set.of());
    if (te.has("model_id")) {
      Json.string(te.get("model_id"), "[" + w + ".model_id]");
    }
    return Json.string(te.get("model_text"), "[" + w + ".model_text]");
  }

  /**
   * {@code rescore_vector}: {@code {"oversample": F}} with F in [1, 10], as Elasticsearch bounds
   * it. Elasticsearch's {@code 0} (no rescoring: scores by the quantized codes) is refused, since
   * every score this server returns over quantized vectors is the exact float one.
   */
  private static float oversample(JsonNode v, String where) {
    object(v, where);
    JsonNode o = v.get("oversample");
    if (o == null || v.size() != 1) {
      throw parsing(
          "[" + where + "] takes exactly one key, [oversample]; got " + v.size() + " keys");
    }
    float f = Json.floatValue(o, "[" + where + ".oversample]");
    if (f == 0f) {
      throw illegal(
          "["
              + where
              + ".oversample] 0 (no rescoring) is not supported: searchlab always rescores"
              + " quantized vectors by their floats; use 1 to rescore only k");
    }
    if (!(f >= 1f && f <= VectorQuantization.MAX_OVERSAMPLE)) {
      throw illegal(
          "["
              + where
              + ".oversample] "
              + f
              + " is outside [1, "
              + VectorQuantization.MAX_OVERSAMPLE
              + "]");
    }
    return f;
  }
}
