package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The hostile-input suite: several hundred distinct malformed or hostile requests ({@link
 * HostileCases}) over both dialects, HTTP/1.1 (raw bytes) and HTTP/2 (h2c), each checked for the
 * right status class, a bounded error body, and that the server still answers {@code /health}
 * afterwards; at the end every document loaded before is present and unchanged and no targeted id
 * was written. Subclasses pick the store. Failures are collected so one run names all of them.
 */
abstract class HostileInputTestCase {
  private static final int DOCS = 25;

  /** The store under the server. */
  abstract TestStore store();

  @Test
  void hostileInputsAreAnsweredAndApplyNothing() throws Exception {
    ServerConfig config =
        ServerConfig.builder()
            .port(0)
            .maxContentLength(HostileCases.LIMIT)
            .limits(
                ServerLimits.builder()
                    .requestReadTimeout(Duration.ofSeconds(5))
                    .maxQueryDepth(30)
                    .build())
            .build();
    try (ServerFixture f = ServerFixture.start(store(), config, Optional.empty())) {
      StringBuilder bulk = new StringBuilder();
      for (int i = 0; i < DOCS; i++) {
        bulk.append("{\"index\":{\"_id\":\"doc-").append(i).append("\"}}\n");
        bulk.append("{\"title\":\"title ")
            .append(i)
            .append("\",\"category\":\"c")
            .append(i % 3)
            .append("\",\"price\":")
            .append(i * 100)
            .append("}\n");
      }
      f.bulkAndRefresh(bulk.toString());
      Map<String, String> before = snapshot(f);
      assertEquals(DOCS, before.size());

      HttpClient h2 =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_2)
              .connectTimeout(Duration.ofSeconds(10))
              .build();
      HttpResponse<String> warm =
          h2.send(
              HttpRequest.newBuilder(f.uri("/health")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(HttpClient.Version.HTTP_2, warm.version(), "h2c upgrade");

      List<String> failures = new ArrayList<>();
      Map<String, Integer> classes = new TreeMap<>();
      List<HostileCases.Case> cases = new ArrayList<>();
      cases.addAll(HostileCases.all(HostileCases.Proto.H1));
      cases.addAll(HostileCases.all(HostileCases.Proto.H2));
      cases.addAll(HostileCases.raw());
      java.util.Set<String> names = new java.util.HashSet<>();
      for (HostileCases.Case c : cases) {
        assertTrue(names.add(c.name()), "duplicate case " + c.name());
        int status;
        String body;
        try {
          if (c.raw() != null || c.name().startsWith("h1 ")) {
            RawHttp.Answer a = sendRaw(f, c);
            if (a == null) {
              failures.add(c.name() + ": connection closed without a response");
              continue;
            }
            status = a.status();
            body = a.body();
            if (c.raw() != null
                && status != 403
                && status != 404
                && status != 405
                && !"close".equalsIgnoreCase(a.header("Connection"))) {
              failures.add(c.name() + ": a malformed request must end with Connection: close");
            }
          } else {
            HttpResponse<String> r = sendH2(h2, f, c);
            if (r.version() != HttpClient.Version.HTTP_2) {
              failures.add(c.name() + ": answered over " + r.version());
            }
            status = r.statusCode();
            body = r.body();
          }
        } catch (Exception e) {
          failures.add(c.name() + ": " + e);
          continue;
        }
        classes.merge(status / 100 + "xx", 1, Integer::sum);
        String problem = check(c, status, body);
        if (problem != null) {
          failures.add(c.name() + ": " + problem);
        }
        RawHttp.Answer health =
            RawHttp.exchange(
                f.port(), "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        if (health == null || health.status() != 200) {
          failures.add(c.name() + ": /health did not answer 200 afterwards");
        }
      }
      f.send("POST", "/_refresh", (String) null);
      assertEquals(before, snapshot(f), "every document present and unchanged");
      for (String id : HostileCases.WRITE_TARGETS) {
        assertEquals(404, f.send("GET", "/product/_doc/" + id, (String) null).status(), id);
      }
      System.out.println(
          "[hostile] "
              + store()
              + ": "
              + cases.size()
              + " distinct cases, status classes "
              + classes
              + ", failures "
              + failures.size());
      assertTrue(
          failures.isEmpty(), failures.size() + " failures:\n" + String.join("\n", failures));
    }
  }

  /** Why an answer is wrong, or null. */
  private static String check(HostileCases.Case c, int status, String body) {
    switch (c.expect()) {
      case OK -> {
        if (status / 100 != 2) {
          return "expected 2xx, got " + status + " " + abbreviate(body);
        }
      }
      case CLIENT_ERROR -> {
        if (status / 100 != 4) {
          return "expected 4xx, got " + status + " " + abbreviate(body);
        }
      }
      case BULK_ALL_FAILED -> {
        if (status / 100 == 4) {
          break;
        }
        if (status != 200) {
          return "expected 200 with failed items or 4xx, got " + status + " " + abbreviate(body);
        }
        JsonNode json;
        try {
          json = Json.MAPPER.readTree(body);
        } catch (Exception e) {
          return "bulk answer is not JSON";
        }
        if (!json.path("errors").asBoolean()) {
          return "bulk answered errors:false " + abbreviate(body);
        }
        for (JsonNode item : json.get("items")) {
          if (item.elements().next().path("status").asInt() < 300) {
            return "a bulk item succeeded " + abbreviate(body);
          }
        }
      }
    }
    if (status / 100 == 4 && body.length() > 8192) {
      return "the error body is " + body.length() + " characters; input must be quoted bounded";
    }
    return null;
  }

  private static String abbreviate(String s) {
    return s.length() > 300 ? s.substring(0, 300) + "…" : s;
  }

  private static RawHttp.Answer sendRaw(ServerFixture f, HostileCases.Case c) throws Exception {
    try (RawHttp conn = new RawHttp(f.port(), 30_000)) {
      if (c.raw() != null) {
        conn.send(c.raw());
      } else {
        StringBuilder head = new StringBuilder();
        head.append(c.method())
            .append(' ')
            .append(c.path())
            .append(" HTTP/1.1\r\nHost: localhost\r\n");
        for (int i = 0; i < c.headers().size(); i += 2) {
          head.append(c.headers().get(i))
              .append(": ")
              .append(c.headers().get(i + 1))
              .append("\r\n");
        }
        byte[] body = c.body() == null ? new byte[0] : c.body();
        head.append("Content-Length: ").append(body.length).append("\r\n\r\n");
        conn.send(head.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        conn.send(body);
      }
      return conn.read();
    } catch (java.net.SocketException e) {
      // The server may close while we still write a body it refused early; its answer came first.
      return null;
    }
  }

  private static HttpResponse<String> sendH2(HttpClient h2, ServerFixture f, HostileCases.Case c)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(f.uri(c.path()))
            .timeout(Duration.ofSeconds(30))
            .method(
                c.method(),
                c.body() == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(c.body()));
    for (int i = 0; i < c.headers().size(); i += 2) {
      b.header(c.headers().get(i), c.headers().get(i + 1));
    }
    return h2.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Every document's source by id. */
  private static Map<String, String> snapshot(ServerFixture f) throws Exception {
    ServerFixture.Response r =
        f.send("POST", "/product/_search", "{\"size\":1000,\"query\":{\"match_all\":{}}}");
    assertEquals(200, r.status(), r.body());
    Map<String, String> out = new TreeMap<>();
    for (JsonNode h : r.json().get("hits").get("hits")) {
      out.put(h.get("_id").asText(), h.get("_source").toString());
    }
    return out;
  }
}
