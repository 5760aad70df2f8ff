package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.searchlab.core.analysis.TextAnalysis;

/**
 * The Elasticsearch-dialect admin calls the procedure needs, which the server answers for either
 * store: create the index with the benchmark's mapping, refresh, flush, force-merge and read the
 * segment count. Thread-safe (stateless apart from the shared client).
 */
public final class ServerAdmin {
  private static final Duration MERGE_TIMEOUT = Duration.ofHours(2);

  private final HttpClient http;
  private final URI base;

  public ServerAdmin(HttpClient http, URI base) {
    this.http = http;
    this.base = base;
  }

  /**
   * {@code PUT /product} with the benchmark's mapping (dims, dot_product, HNSW m and
   * ef_construction, the shared analyzer). Returns the status; an index that exists already answers
   * 400 and is not an error here.
   */
  public int createIndex(int dimension, int m, int efConstruction)
      throws IOException, InterruptedException {
    ObjectNode body = Json.object();
    ObjectNode analysis = body.putObject("settings").putObject("analysis");
    ObjectNode an = analysis.putObject("analyzer").putObject(TextAnalysis.NAME);
    an.put("tokenizer", "standard");
    an.putArray("filter").add("lowercase").add("asciifolding").add("porter2_stemmer");
    analysis
        .putObject("filter")
        .putObject("porter2_stemmer")
        .put("type", "stemmer")
        .put("language", "porter2");
    ObjectNode props = body.putObject("mappings").putObject("properties");
    props.putObject("id").put("type", "keyword");
    props.putObject("title").put("type", "text").put("analyzer", TextAnalysis.NAME);
    props.putObject("description").put("type", "text").put("analyzer", TextAnalysis.NAME);
    props.putObject("category").put("type", "keyword");
    props.putObject("price").put("type", "integer").put("index", false);
    props.putObject("average_rating").put("type", "float").put("index", false);
    ObjectNode emb = props.putObject("embedding");
    emb.put("type", "dense_vector")
        .put("dims", dimension)
        .put("index", true)
        .put("similarity", "dot_product");
    emb.putObject("index_options")
        .put("type", "hnsw")
        .put("m", m)
        .put("ef_construction", efConstruction);
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve("/" + EsDialect.INDEX))
            .timeout(Json.REQUEST_TIMEOUT)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    return http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  /** {@code POST /product/_refresh}. */
  public void refresh() throws IOException, InterruptedException {
    expectOk(post("/" + EsDialect.INDEX + "/_refresh", Json.REQUEST_TIMEOUT), "refresh");
  }

  /** {@code POST /product/_flush}. */
  public void flush() throws IOException, InterruptedException {
    expectOk(post("/" + EsDialect.INDEX + "/_flush", Json.REQUEST_TIMEOUT), "flush");
  }

  /** {@code POST /product/_forcemerge?max_num_segments=n}; waits for the merge to finish. */
  public void forceMerge(int segments) throws IOException, InterruptedException {
    expectOk(
        post("/" + EsDialect.INDEX + "/_forcemerge?max_num_segments=" + segments, MERGE_TIMEOUT),
        "force-merge to " + segments);
  }

  /**
   * The searchable segment count, {@code indices.product.shards.0[0].num_search_segments} of {@code
   * GET /product/_segments}, or {@code null} when the server does not report it.
   */
  public Integer segments() throws IOException, InterruptedException {
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve("/" + EsDialect.INDEX + "/_segments"))
            .timeout(Json.REQUEST_TIMEOUT)
            .GET()
            .build();
    HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      return null;
    }
    JsonNode n =
        Json.MAPPER
            .readTree(r.body())
            .path("indices")
            .path(EsDialect.INDEX)
            .path("shards")
            .path("0")
            .path(0)
            .path("num_search_segments");
    return n.isNumber() ? n.asInt() : null;
  }

  /**
   * One of the store's counters or settings, {@code counters.<name>} of {@code GET /_admin/stats}
   * (the mutable store's {@code build_threads}, say), or {@code null} when the server does not
   * report it.
   */
  public Long storeCounter(String name) throws IOException, InterruptedException {
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve("/_admin/stats"))
            .timeout(Json.REQUEST_TIMEOUT)
            .GET()
            .build();
    HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      return null;
    }
    JsonNode n = Json.MAPPER.readTree(r.body()).path("counters").path(name);
    return n.isNumber() ? n.asLong() : null;
  }

  private HttpResponse<byte[]> post(String path, Duration timeout)
      throws IOException, InterruptedException {
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(timeout)
            .POST(HttpRequest.BodyPublishers.noBody())
            .build();
    return http.send(req, HttpResponse.BodyHandlers.ofByteArray());
  }

  private static void expectOk(HttpResponse<byte[]> r, String what) throws IOException {
    if (r.statusCode() / 100 != 2) {
      throw new IOException(
          what
              + " answered "
              + r.statusCode()
              + ": "
              + new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
    }
  }
}
