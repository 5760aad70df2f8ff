package org.searchlab.opensearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A minimal JSON-over-HTTP/1.1 client for an Elasticsearch-compatible endpoint: what creating the
 * benchmark index, feeding it, administering it and reading its statistics need, and no more (the
 * experiment runner brings its own load generator). Thread-safe: {@link HttpClient} is.
 */
public final class OpenSearchHttp implements AutoCloseable {
  static final ObjectMapper MAPPER = new ObjectMapper();

  /** One answer: the status and the raw body. */
  public record Response(int status, byte[] body) {
    /** The body parsed as JSON. */
    public JsonNode json() throws IOException {
      return MAPPER.readTree(body);
    }

    /** The body as text (for error messages). */
    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    public boolean ok() {
      return status >= 200 && status < 300;
    }
  }

  private final HttpClient client;
  private final Duration requestTimeout;

  /**
   * @param requestTimeout the longest any one request may take; a force-merge of a large index
   *     needs minutes
   */
  public OpenSearchHttp(Duration requestTimeout) {
    this.requestTimeout = requestTimeout;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
  }

  /** Sends {@code body} (JSON, or none when null) and returns whatever status comes back. */
  public Response send(String method, URI uri, String body)
      throws IOException, InterruptedException {
    return send(method, uri, body, "application/json");
  }

  /** Sends a {@code _bulk} body (newline-delimited JSON, ending with a newline). */
  public Response bulk(URI uri, String ndjson) throws IOException, InterruptedException {
    return send("POST", uri, ndjson, "application/x-ndjson");
  }

  /**
   * Like {@link #send} but throws an {@link IOException} quoting the body unless the status is 2xx;
   * returns the body as JSON.
   */
  public JsonNode expectOk(String method, URI uri, String body)
      throws IOException, InterruptedException {
    Response r = send(method, uri, body);
    if (!r.ok()) {
      throw new IOException(method + " " + uri + " answered " + r.status() + ": " + r.text());
    }
    return r.json();
  }

  private Response send(String method, URI uri, String body, String contentType)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(requestTimeout);
    if (body == null) {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("Content-Type", contentType)
          .method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    }
    HttpResponse<byte[]> r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    return new Response(r.statusCode(), r.body());
  }

  @Override
  public void close() {
    client.close();
  }
}
