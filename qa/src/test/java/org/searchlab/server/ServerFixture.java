package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.searchlab.core.Document;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.embed.Embedder;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * A server on an ephemeral port in front of a fresh store in a temporary directory, with a plain
 * HTTP/1.1 client. Not thread-safe apart from {@link #send}, which may be called concurrently.
 */
final class ServerFixture implements AutoCloseable {
  static final int DIMS = 32;

  final Path dir;
  final SearchIndex index;
  final SearchServer server;
  final HttpClient http;

  private ServerFixture(Path dir, SearchIndex index, SearchServer server) {
    this.dir = dir;
    this.index = index;
    this.server = server;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
  }

  static ServerFixture start(TestStore store) throws Exception {
    return start(store, ServerConfig.builder().port(0).build(), Optional.empty());
  }

  static ServerFixture start(TestStore store, ServerConfig config, Optional<Embedder> embedder)
      throws Exception {
    Path dir = Files.createTempDirectory("searchlab-server-test");
    SearchIndex index = store.open(dir, new Schema(DIMS));
    try {
      return new ServerFixture(
          dir, index, SearchServer.start(config, index, embedder, Optional.of(dir)));
    } catch (Exception e) {
      index.close();
      throw e;
    }
  }

  /** Creates an index of one shard and no replica with a mapping, as a client does; must be 200. */
  void createIndex(String name, org.searchlab.core.mapping.Mapping mapping) throws Exception {
    com.fasterxml.jackson.databind.node.ObjectNode create = Json.MAPPER.createObjectNode();
    create.putObject("settings").put("number_of_shards", 1).put("number_of_replicas", 0);
    create.set("mappings", org.searchlab.core.mapping.MappingJson.render(mapping));
    Response created = send("PUT", "/" + name, create.toString());
    assertEquals(200, created.status(), created.body());
  }

  /**
   * A server that owns its indexes, of {@code store}'s kind, in a temporary data directory, with no
   * index yet: tests create them as clients do. {@link #index} is null.
   */
  static ServerFixture owned(TestStore store) throws Exception {
    Path dir = Files.createTempDirectory("searchlab-server-test");
    org.searchlab.core.StoreKind kind = store.kind();
    return new ServerFixture(
        dir,
        null,
        SearchServer.start(
            ServerConfig.builder().port(0).build(),
            dir,
            java.util.Map.of(kind.name(), kind),
            kind.name(),
            Optional.empty(),
            Optional.empty()));
  }

  /** Serves {@code index} (already open in {@code dir}, which the fixture deletes on close). */
  static ServerFixture serve(Path dir, SearchIndex index) throws Exception {
    return serve(dir, index, ServerConfig.builder().port(0).build());
  }

  /** Serves {@code index} (open in {@code dir}, deleted on close) with {@code config}. */
  static ServerFixture serve(Path dir, SearchIndex index, ServerConfig config) throws Exception {
    try {
      return new ServerFixture(
          dir, index, SearchServer.start(config, index, Optional.empty(), Optional.of(dir)));
    } catch (Exception e) {
      index.close();
      throw e;
    }
  }

  int port() {
    return server.port();
  }

  /** The index {@code product}: the one the fixture opened, or the one a test created. */
  SearchIndex index() {
    return index != null ? index : server.indices().require("product").index();
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port() + path);
  }

  /** One HTTP answer. */
  record Response(int status, String body, HttpHeaders headers) {
    JsonNode json() {
      try {
        return Json.MAPPER.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + body, e);
      }
    }

    String header(String name) {
      return headers.firstValue(name).orElse(null);
    }
  }

  Response send(String method, String path, String body, String... headers) throws Exception {
    return send(method, path, body == null ? null : body.getBytes(StandardCharsets.UTF_8), headers);
  }

  Response send(String method, String path, byte[] body, String... headers) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(60))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    boolean contentType = false;
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
      contentType |= headers[i].equalsIgnoreCase("Content-Type");
    }
    if (body != null && !contentType) {
      b.header("Content-Type", "application/json");
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Response(r.statusCode(), r.body(), r.headers());
  }

  /** Sends an NDJSON bulk to the index with {@code refresh=true}; asserts no item failed. */
  void bulkAndRefresh(String ndjson) throws Exception {
    Response r =
        send("POST", "/product/_bulk?refresh=true", ndjson, "Content-Type", "application/x-ndjson");
    assertEquals(200, r.status(), r.body());
    assertEquals(false, r.json().get("errors").booleanValue(), r.body());
  }

  /** Loads documents through {@code _bulk} in batches and refreshes; returns them. */
  List<Document> load(SyntheticCorpus corpus, int n) throws Exception {
    return load(corpus, n, 500);
  }

  /** Loads documents through {@code _bulk} in batches of {@code batch} and refreshes. */
  List<Document> load(SyntheticCorpus corpus, int n, int batch) throws Exception {
    List<Document> docs = corpus.documents(n);
    for (int from = 0; from < n; from += batch) {
      StringBuilder sb = new StringBuilder();
      for (Document d : docs.subList(from, Math.min(n, from + batch))) {
        sb.append("{\"index\":{\"_index\":\"product\",\"_id\":\"").append(d.id()).append("\"}}\n");
        sb.append(Json.MAPPER.writeValueAsString(source(d))).append('\n');
      }
      Response r = send("POST", "/_bulk", sb.toString(), "Content-Type", "application/x-ndjson");
      assertEquals(200, r.status(), r.body());
      assertEquals(false, r.json().get("errors").booleanValue(), r.body());
    }
    assertEquals(200, send("POST", "/product/_refresh", (String) null).status());
    return docs;
  }

  /** A product's source as a client sends it: its id among its fields, as the benchmark's. */
  static ObjectNode source(Document d) {
    ObjectNode o = Json.MAPPER.createObjectNode().put("id", d.id());
    o.setAll(org.searchlab.server.es.EsDocuments.source(d));
    return o;
  }

  /** A JSON array literal of a vector. */
  static String vector(float[] v) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < v.length; i++) {
      sb.append(i == 0 ? "" : ",").append(v[i]);
    }
    return sb.append(']').toString();
  }

  @Override
  public void close() throws IOException {
    try {
      server.close();
    } finally {
      if (index != null) {
        index.close();
      }
      deleteTree(dir);
    }
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (var s = Files.walk(p)) {
      s.sorted(java.util.Comparator.reverseOrder())
          .forEach(
              x -> {
                try {
                  Files.deleteIfExists(x);
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
    }
  }
}
