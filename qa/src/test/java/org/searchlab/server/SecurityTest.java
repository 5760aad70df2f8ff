package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.searchlab.core.InvalidRequestException;

/**
 * The security defaults: a web page in the operator's browser cannot write or delete (no simple
 * cross-site request passes), a forged {@code Host} (DNS rebinding) is refused, credentials guard
 * everything but {@code /health}, and a non-loopback bind without credentials does not start.
 */
class SecurityTest {
  private static final String KEY = "ops:0123456789abcdef-secret";

  private static String doc(String id) {
    return "/product/_doc/" + id;
  }

  /** The document exists (200) or not (404), read with the given extra headers. */
  private static int docStatus(ServerFixture f, String id, String... headers) throws Exception {
    return f.send("GET", doc(id), (String) null, headers).status();
  }

  @Test
  void simpleCrossSiteRequestsCannotWriteOrDelete() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      assertEquals(201, f.send("PUT", doc("keep"), "{\"title\":\"kept\"}").status());
      String deleteBulk = "{\"delete\":{\"_index\":\"product\",\"_id\":\"keep\"}}\n";
      String[][] simpleTypes = {
        {"Content-Type", "application/x-www-form-urlencoded"},
        {"Content-Type", "text/plain;charset=UTF-8"},
        {"Content-Type", "multipart/form-data; boundary=x"},
      };
      for (String[] h : simpleTypes) {
        ServerFixture.Response r = f.send("POST", "/_bulk", deleteBulk, h);
        assertEquals(415, r.status(), h[1] + ": " + r.body());
        assertTrue(r.body().contains("is not supported"), r.body());
        ServerFixture.Response v =
            f.send("POST", "/document/v1/product/product/docid/keep2", "{\"fields\":{}}", h);
        assertEquals(415, v.status(), v.body());
      }
      // A body without any Content-Type (fetch with a Blob body) is refused too.
      RawHttp.Answer typeless =
          RawHttp.exchange(
              f.port(),
              "POST /_bulk HTTP/1.1\r\nHost: localhost\r\nContent-Length: "
                  + deleteBulk.length()
                  + "\r\n\r\n"
                  + deleteBulk);
      assertEquals(415, typeless.status(), typeless.body());
      // An empty HTML form (a body-less POST naming a form type) is refused.
      assertEquals(
          415,
          f.send(
                  "POST",
                  "/_admin/forcemerge",
                  new byte[0],
                  "Content-Type",
                  "application/x-www-form-urlencoded")
              .status());
      // A body-less POST naming a type a page cannot send without a preflight has nothing to
      // read: answered (Rally's aiohttp client sends application/octet-stream on _refresh).
      assertEquals(
          200,
          f.send(
                  "POST",
                  "/product/_refresh",
                  new byte[0],
                  "Content-Type",
                  "application/octet-stream")
              .status());
      // With a body it is still refused: only JSON is read.
      assertEquals(
          415,
          f.send("POST", "/_bulk", deleteBulk, "Content-Type", "application/octet-stream")
              .status());
      // A browser marks cross-site requests; those may not change anything.
      assertEquals(
          403,
          f.send("POST", "/_admin/refresh", (String) null, "Origin", "http://evil.example")
              .status());
      assertEquals(
          403,
          f.send("DELETE", doc("keep"), (String) null, "Sec-Fetch-Site", "cross-site").status());
      assertEquals(403, f.send("DELETE", doc("keep"), (String) null, "Origin", "null").status());
      // Same origin is fine, and so is a read from anywhere.
      assertEquals(
          200,
          f.send(
                  "POST",
                  "/_admin/refresh",
                  (String) null,
                  "Origin",
                  "http://localhost:" + f.port(),
                  "Sec-Fetch-Site",
                  "same-origin")
              .status());
      assertEquals(200, docStatus(f, "keep", "Origin", "http://evil.example"));
      assertEquals(404, docStatus(f, "keep2"));
      // The real client types still work.
      assertEquals(
          200,
          f.send("POST", "/_bulk", deleteBulk, "Content-Type", "application/x-ndjson").status());
      assertEquals(404, docStatus(f, "keep"));
      assertEquals(
          415,
          f.send("POST", "/product/_search", "{}", "Content-Type", "application/x-ndjson").status(),
          "ndjson is for _bulk only");
    }
  }

  @Test
  void unacceptableAcceptIs406() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      ServerFixture.Response r =
          f.send(
              "GET",
              "/search/?yql=select%20*%20from%20sources%20*%20where%20true",
              (String) null,
              "Accept",
              "application/xml");
      assertEquals(406, r.status(), r.body());
      assertTrue(
          r.json()
              .get("root")
              .get("errors")
              .get(0)
              .get("message")
              .asText()
              .contains("application/xml"),
          r.body());
      assertEquals(
          200,
          f.send(
                  "GET",
                  "/search/?yql=select%20*%20from%20sources%20*%20where%20true",
                  (String) null,
                  "Accept",
                  "application/xml, */*;q=0.1")
              .status());
    }
  }

  @Test
  void foreignHostIsRefusedUnlessConfigured() throws Exception {
    ServerConfig config =
        ServerConfig.builder()
            .port(0)
            .security(ServerSecurity.builder().allowedHosts(Set.of("Search.Internal")).build())
            .build();
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT, config, Optional.empty())) {
      String get = "GET /product/_count HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n";
      RawHttp.Answer rebound = RawHttp.exchange(f.port(), get.formatted("attacker.example:8080"));
      assertEquals(403, rebound.status(), rebound.body());
      assertTrue(rebound.body().contains("attacker.example"), rebound.body());
      assertEquals("Elasticsearch", rebound.header("X-Elastic-Product"));
      for (String ok :
          new String[] {
            "localhost:" + f.port(), "127.0.0.1", "[::1]:9", "search.internal", "app.localhost"
          }) {
        assertEquals(200, RawHttp.exchange(f.port(), get.formatted(ok)).status(), ok);
      }
      RawHttp.Answer vespa =
          RawHttp.exchange(
              f.port(),
              "GET /document/v1/product/product/docid/x HTTP/1.1\r\nHost: evil.example\r\n\r\n");
      assertEquals(403, vespa.status());
      assertTrue(vespa.body().contains("\"message\""), vespa.body());
    }
  }

  @Test
  void credentialsGuardEverythingButHealth() throws Exception {
    ServerConfig config =
        ServerConfig.builder()
            .port(0)
            .security(ServerSecurity.builder().credentials(KEY).build())
            .build();
    String apiKey = "ApiKey " + b64(KEY);
    String basic = "Basic " + b64(KEY);
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT, config, Optional.empty())) {
      assertEquals(200, f.send("GET", "/health", (String) null).status());
      for (String[] req :
          new String[][] {
            {"GET", "/"},
            {"GET", "/metrics"},
            {"GET", "/_admin/stats"},
            {"PUT", doc("a")},
            {"GET", "/document/v1/product/product/docid/a"},
            {"POST", "/search/"}
          }) {
        String body = req[0].equals("GET") ? null : "{\"title\":\"x\"}";
        ServerFixture.Response r = f.send(req[0], req[1], body);
        assertEquals(401, r.status(), req[1] + ": " + r.body());
        assertTrue(r.header("WWW-Authenticate").contains("ApiKey"), r.header("WWW-Authenticate"));
        assertTrue(r.header("WWW-Authenticate").contains("Basic"));
        ServerFixture.Response wrong =
            f.send(req[0], req[1], body, "Authorization", "ApiKey " + b64("ops:not-the-secret!!"));
        assertEquals(401, wrong.status());
      }
      assertEquals(404, docStatus(f, "a", "Authorization", apiKey), "nothing was written");
      assertEquals(
          201, f.send("PUT", doc("a"), "{\"title\":\"x\"}", "Authorization", basic).status());
      assertEquals(200, docStatus(f, "a", "Authorization", apiKey));
      assertEquals(401, docStatus(f, "a", "Authorization", "Bearer " + b64(KEY)));
      assertEquals(401, docStatus(f, "a", "Authorization", "ApiKey !!not-base64!!"));
    }
  }

  @Test
  void keyFileIsCheckedAndNonLoopbackNeedsAKey(@org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("keys");
    Files.writeString(file, "# operators\n\n" + KEY + "\nci:abcdefghijklmnopqrstuvwxyz\n");
    ServerSecurity s =
        ServerSecurity.builder().credentialDigests(ServerSecurity.readKeyFile(file)).build();
    assertTrue(s.accepts("ci:abcdefghijklmnopqrstuvwxyz".getBytes(StandardCharsets.UTF_8)));
    Files.writeString(file, "ops:short\n");
    InvalidRequestException e =
        assertThrows(InvalidRequestException.class, () -> ServerSecurity.readKeyFile(file));
    assertTrue(
        e.getMessage().contains("line 1") && !e.getMessage().contains("ops:short"), e.getMessage());

    ServerConfig open = ServerConfig.builder().host("0.0.0.0").build();
    InvalidRequestException refused =
        assertThrows(InvalidRequestException.class, () -> SearchServer.requireSafeBind(open));
    assertTrue(refused.getMessage().contains("--api-key-file"), refused.getMessage());
    SearchServer.requireSafeBind(
        open.toBuilder().security(ServerSecurity.builder().insecure(true).build()).build());
    SearchServer.requireSafeBind(
        open.toBuilder().security(ServerSecurity.builder().credentials(KEY).build()).build());
    SearchServer.requireSafeBind(ServerConfig.builder().host("localhost").build());
  }

  static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}
