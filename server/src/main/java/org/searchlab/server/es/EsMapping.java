package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Schema;
import org.searchlab.core.VectorQuantization;
import org.searchlab.server.Json;
import org.searchlab.server.ServerConfig;

/**
 * Checks a {@code PUT /{index}} body (the benchmark's settings and mapping) against the server's
 * fixed schema and store: the index cannot be reshaped over HTTP, so a mapping that asks for
 * something else (another dimension, similarity, analyzer, HNSW M or ef_construction, vector
 * quantization ({@code index_options.type} {@code hnsw} or {@code int8_hnsw}), or an unknown field)
 * is a 400 naming the value the server has. Stateless and thread-safe.
 */
final class EsMapping {
  /** The analyzer the shared {@code TextAnalysis} chain implements. */
  static final String ANALYZER = "lowercase_normalize_stem";

  private static final Set<String> FLOATS = Set.of("float", "double", "half_float", "scaled_float");
  private static final Set<String> INTS = Set.of("integer", "long", "short");

  private EsMapping() {}

  static void validate(JsonNode body, Schema schema, ServerConfig config) {
    if (body == null) {
      return;
    }
    Json.object(body, "index creation body");
    for (Iterator<Map.Entry<String, JsonNode>> it = body.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      switch (f.getKey()) {
        case "settings" -> settings(Json.object(f.getValue(), "[settings]"));
        case "mappings" -> mappings(Json.object(f.getValue(), "[mappings]"), schema, config);
        case "aliases" -> {}
        default ->
            throw new InvalidRequestException("unknown key [" + f.getKey() + "] in the index body");
      }
    }
  }

  private static void settings(JsonNode s) {
    JsonNode index = s.has("index") ? s.get("index") : s;
    JsonNode shards = index.get("number_of_shards");
    if (shards == null) {
      shards = s.get("index.number_of_shards");
    }
    if (shards != null && Json.integer(shards, "[number_of_shards]", 1, 1024) != 1) {
      throw new InvalidRequestException(
          "[number_of_shards] is " + shards.asText() + "; this server holds exactly one shard");
    }
  }

  private static void mappings(JsonNode m, Schema schema, ServerConfig config) {
    JsonNode props = m.get("properties");
    if (props == null) {
      return;
    }
    Json.object(props, "[mappings.properties]");
    for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      String name = f.getKey();
      JsonNode def = Json.object(f.getValue(), "mapping of [" + name + "]");
      String type = def.has("type") ? Json.string(def.get("type"), "type of [" + name + "]") : "";
      switch (name) {
        case Schema.ID, Schema.CATEGORY -> expect(name, type, Set.of("keyword"));
        case Schema.TITLE, Schema.DESCRIPTION -> {
          expect(name, type, Set.of("text"));
          for (String a : new String[] {"analyzer", "search_analyzer"}) {
            if (def.has(a) && !def.get(a).asText().equals(ANALYZER)) {
              throw new InvalidRequestException(
                  "["
                      + name
                      + "."
                      + a
                      + "] is ["
                      + def.get(a).asText()
                      + "]; this server analyses text with ["
                      + ANALYZER
                      + "] (standard tokenizer, lowercase, asciifolding, porter2)");
            }
          }
          if (def.has("similarity") && !def.get("similarity").asText().equalsIgnoreCase("BM25")) {
            throw new InvalidRequestException("[" + name + ".similarity] must be BM25");
          }
        }
        case Schema.PRICE -> expect(name, type, INTS);
        case Schema.AVERAGE_RATING -> expect(name, type, FLOATS);
        case Schema.EMBEDDING -> embedding(def, type, schema, config);
        default ->
            throw new InvalidRequestException(
                "field ["
                    + name
                    + "] is not in the schema; the fields are id, title, description, category,"
                    + " price, average_rating, embedding");
      }
    }
  }

  private static void embedding(JsonNode def, String type, Schema schema, ServerConfig config) {
    expect(Schema.EMBEDDING, type, Set.of("dense_vector"));
    if (def.has("dims")) {
      int dims = Json.integer(def.get("dims"), "[embedding.dims]", 1, Schema.MAX_DIMENSION);
      if (dims != schema.dimension()) {
        throw new InvalidRequestException(
            "[embedding.dims] is "
                + dims
                + "; this server's schema has dimension "
                + schema.dimension()
                + " (--dims)");
      }
    }
    if (def.has("similarity") && !def.get("similarity").asText().equals("dot_product")) {
      throw new InvalidRequestException(
          "[embedding.similarity] is ["
              + def.get("similarity").asText()
              + "]; this server compares unit vectors by dot_product");
    }
    if (def.has("index") && !Json.bool(def.get("index"), "[embedding.index]")) {
      throw new InvalidRequestException("[embedding.index] must be true: the vector is searched");
    }
    JsonNode opts = def.get("index_options");
    if (opts != null) {
      Json.object(opts, "[embedding.index_options]");
      if (opts.has("type")) {
        String t = Json.string(opts.get("type"), "[embedding.index_options.type]");
        VectorQuantization asked = VectorQuantization.fromEsIndexType(t);
        if (asked != config.quantization()) {
          throw new InvalidRequestException(
              "[embedding.index_options.type] is ["
                  + t
                  + "]; this server's store was started with ["
                  + config.quantization().esIndexType()
                  + "] (--quantization "
                  + config.quantization().flag()
                  + ")");
        }
      }
      check(opts, "m", config.hnswM(), "--hnsw-m / --m");
      check(opts, "ef_construction", config.hnswEfConstruction(), "--ef-construction");
    }
  }

  private static void check(JsonNode opts, String key, int serverValue, String flag) {
    if (opts.has(key) && serverValue > 0) {
      int v = Json.integer(opts.get(key), "[embedding.index_options." + key + "]", 1, 1 << 16);
      if (v != serverValue) {
        throw new InvalidRequestException(
            "[embedding.index_options."
                + key
                + "] is "
                + v
                + "; this server's store was started with "
                + serverValue
                + " ("
                + flag
                + ")");
      }
    }
  }

  private static void expect(String name, String type, Set<String> allowed) {
    if (!type.isEmpty() && !allowed.contains(type)) {
      throw new InvalidRequestException(
          "[" + name + "] has type [" + type + "]; the schema needs one of " + allowed);
    }
  }
}
