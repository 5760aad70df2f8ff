// Over 500 lines: the hostile-input cases themselves, one list per endpoint family; splitting
// them would scatter a catalogue that is read as one.
package org.searchlab.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The hostile inputs of {@link HostileInputTestCase}, generated as (endpoint × payload) products
 * plus listed path, parameter, YQL and raw-protocol cases. Each case says what a correct server
 * answers: a status class, or for {@code _bulk} a 200 whose every item failed. Immutable lists;
 * thread-safe.
 */
final class HostileCases {
  private HostileCases() {}

  /** The protocol a case is sent with. */
  enum Proto {
    H1,
    H2
  }

  /** What a correct answer is. */
  enum Expect {
    /** 2xx. */
    OK,
    /** 4xx. */
    CLIENT_ERROR,
    /** 200 with {@code "errors":true} and no item applied ({@code _bulk} only). */
    BULK_ALL_FAILED
  }

  /**
   * One case.
   *
   * @param name a unique, readable name
   * @param method the HTTP method
   * @param path the path and query, already encoded
   * @param body the body bytes, or null
   * @param headers header name/value pairs (never Host or Content-Length for HTTP/2)
   * @param expect the correct answer
   * @param raw for raw HTTP/1.1 cases, the exact bytes sent (method, path, body unused)
   */
  record Case(
      String name,
      String method,
      String path,
      byte[] body,
      List<String> headers,
      Expect expect,
      byte[] raw) {}

  /** The body limit the suite's server runs with. */
  static final int LIMIT = 64 * 1024;

  private static final String JSON = "application/json";
  private static final String NDJSON = "application/x-ndjson";

  /** Endpoints that take a JSON body, by name; ids are ones no loaded document has. */
  private static final Map<String, String[]> JSON_ENDPOINTS = new LinkedHashMap<>();

  static {
    JSON_ENDPOINTS.put("es-search", new String[] {"POST", "/product/_search"});
    JSON_ENDPOINTS.put("es-count", new String[] {"POST", "/product/_count"});
    JSON_ENDPOINTS.put("es-put", new String[] {"PUT", "/product/_doc/hostile-put"});
    JSON_ENDPOINTS.put("es-create", new String[] {"PUT", "/product/_create/hostile-create"});
    JSON_ENDPOINTS.put("es-update", new String[] {"POST", "/product/_update/doc-1"});
    JSON_ENDPOINTS.put("es-mapping", new String[] {"PUT", "/product"});
    JSON_ENDPOINTS.put("vespa-search", new String[] {"POST", "/search/"});
    JSON_ENDPOINTS.put(
        "vespa-put", new String[] {"POST", "/document/v1/product/product/docid/hostile-vput"});
    JSON_ENDPOINTS.put(
        "vespa-update", new String[] {"PUT", "/document/v1/product/product/docid/doc-2"});
  }

  /** Ids the cases might write; none may exist afterwards. */
  static final List<String> WRITE_TARGETS =
      List.of("hostile-put", "hostile-create", "hostile-vput", "hostile-b");

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** JSON texts no JSON endpoint may accept. */
  static Map<String, byte[]> badJson() {
    Map<String, byte[]> m = new LinkedHashMap<>();
    m.put("unclosed-object", utf8("{"));
    m.put("array", utf8("[]"));
    m.put("null", utf8("null"));
    m.put("string", utf8("\"text\""));
    m.put("number", utf8("123"));
    m.put("two-values", utf8("{\"a\":1}{\"b\":2}"));
    m.put("trailing-garbage", utf8("{\"title\":\"x\"} garbage"));
    m.put("deep-arrays", utf8("{\"title\":" + "[".repeat(20_000) + "]".repeat(20_000) + "}"));
    m.put("deep-objects", utf8("{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000)));
    byte[] badUtf8 = utf8("{\"title\":\"__\",\"nope\":1}");
    badUtf8[11] = (byte) 0xff;
    badUtf8[12] = (byte) 0xfe;
    m.put("invalid-utf8", badUtf8);
    m.put("nul-byte", utf8("{\"title\":\"a\u0000b\",\"nope\":1}"));
    m.put("huge-exponent", utf8("{\"nope\":1e999999999}"));
    m.put("100k-digits", utf8("{\"nope\":" + "9".repeat(100_000 / 2) + "}"));
    m.put("duplicate-key", utf8("{\"title\":\"a\",\"title\":\"b\"}"));
    m.put("60kb-key", utf8("{\"" + "k".repeat(60_000) + "\":1}"));
    m.put("unknown-field", utf8("{\"no_such_field_anywhere\":{\"x\":[1,2,3]}}"));
    m.put("control-chars-key", utf8("{\"\\u0007\\r\\nFAKE LOG LINE\":1}"));
    return m;
  }

  private interface Compressor {
    java.io.OutputStream wrap(java.io.OutputStream out) throws IOException;
  }

  private static byte[] compress(byte[] b, Compressor c) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (java.io.OutputStream z = c.wrap(out)) {
      z.write(b);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static byte[] gzip(byte[] b) {
    return compress(b, GZIPOutputStream::new);
  }

  private static byte[] deflate(byte[] b) {
    return compress(b, DeflaterOutputStream::new);
  }

  /** A transport-level problem: a valid JSON body sent wrongly. Name → (headers, body). */
  private record Transport(List<String> headers, byte[] body) {}

  private static Map<String, Transport> transport(byte[] validBody, String type) {
    Map<String, Transport> m = new LinkedHashMap<>();
    m.put("text-plain", new Transport(List.of("Content-Type", "text/plain"), validBody));
    m.put(
        "form",
        new Transport(List.of("Content-Type", "application/x-www-form-urlencoded"), validBody));
    m.put(
        "multipart", new Transport(List.of("Content-Type", "multipart/form-data; b=x"), validBody));
    m.put("no-content-type", new Transport(List.of(), validBody));
    m.put("xml", new Transport(List.of("Content-Type", "application/xml"), validBody));
    byte[] zeros = new byte[10 * 1024 * 1024];
    m.put(
        "gzip-bomb",
        new Transport(List.of("Content-Type", type, "Content-Encoding", "gzip"), gzip(zeros)));
    m.put(
        "deflate-bomb",
        new Transport(
            List.of("Content-Type", type, "Content-Encoding", "deflate"), deflate(zeros)));
    m.put(
        "invalid-gzip",
        new Transport(List.of("Content-Type", type, "Content-Encoding", "gzip"), utf8("not gzip")));
    byte[] truncated = gzip(validBody);
    m.put(
        "truncated-gzip",
        new Transport(
            List.of("Content-Type", type, "Content-Encoding", "gzip"),
            java.util.Arrays.copyOf(truncated, truncated.length / 2)));
    m.put(
        "invalid-deflate",
        new Transport(List.of("Content-Type", type, "Content-Encoding", "deflate"), utf8("zz")));
    m.put(
        "snappy",
        new Transport(List.of("Content-Type", type, "Content-Encoding", "snappy"), validBody));
    m.put("br", new Transport(List.of("Content-Type", type, "Content-Encoding", "br"), validBody));
    m.put(
        "over-limit",
        new Transport(
            List.of("Content-Type", type),
            utf8("{\"title\":\"" + "x".repeat(LIMIT + 100) + "\"}")));
    m.put(
        "accept-xml",
        new Transport(List.of("Content-Type", type, "Accept", "application/xml"), validBody));
    m.put(
        "cross-site",
        new Transport(List.of("Content-Type", type, "Origin", "http://evil.example"), validBody));
    return m;
  }

  private static Case bodyCase(String name, String[] endpoint, Transport t, Expect expect) {
    return new Case(name, endpoint[0], endpoint[1], t.body(), t.headers(), expect, null);
  }

  /** Every case for one protocol. */
  static List<Case> all(HostileCases.Proto proto) {
    List<Case> out = new ArrayList<>();
    String p = proto.name().toLowerCase(java.util.Locale.ROOT) + " ";
    byte[] validDoc = utf8("{\"title\":\"would be written\",\"price\":5}");
    for (Map.Entry<String, String[]> e : JSON_ENDPOINTS.entrySet()) {
      String[] ep = e.getValue();
      boolean search = e.getKey().endsWith("search") || e.getKey().endsWith("count");
      // Searches are allowed to succeed with a valid body, so their bodies must still be bad in a
      // transport way; a write's body is valid, so only the transport can make it fail.
      for (Map.Entry<String, Transport> t : transport(validDoc, JSON).entrySet()) {
        if (search && t.getKey().equals("cross-site")) {
          continue; // a read from another site is allowed (it cannot change anything)
        }
        out.add(bodyCase(p + e.getKey() + " " + t.getKey(), ep, t.getValue(), Expect.CLIENT_ERROR));
      }
      for (Map.Entry<String, byte[]> b : badJson().entrySet()) {
        Transport json = new Transport(List.of("Content-Type", JSON), b.getValue());
        out.add(bodyCase(p + e.getKey() + " " + b.getKey(), ep, json, Expect.CLIENT_ERROR));
      }
    }
    byte[] bulk =
        utf8("{\"index\":{\"_index\":\"product\",\"_id\":\"hostile-b\"}}\n{\"title\":\"b\"}\n");
    String[] bulkEp = {"POST", "/_bulk"};
    for (Map.Entry<String, Transport> t : transport(bulk, NDJSON).entrySet()) {
      out.add(bodyCase(p + "es-bulk " + t.getKey(), bulkEp, t.getValue(), Expect.CLIENT_ERROR));
    }
    for (Map.Entry<String, byte[]> b : badJson().entrySet()) {
      Transport nd = new Transport(List.of("Content-Type", NDJSON), b.getValue());
      out.add(bodyCase(p + "es-bulk " + b.getKey(), bulkEp, nd, Expect.BULK_ALL_FAILED));
    }
    out.add(
        new Case(
            p + "es-bulk blank",
            "POST",
            "/_bulk",
            utf8("\n \n"),
            List.of("Content-Type", NDJSON),
            Expect.CLIENT_ERROR,
            null));
    searches(p, out);
    HostileBatchCases.add(p, out);
    paths(p, out);
    indexes(p, out);
    return out;
  }

  /**
   * The index and mapping APIs: names Elasticsearch refuses, an index that exists or does not,
   * mapping changes, values that do not fit their fields, an oversized bulk action line.
   */
  private static void indexes(String p, List<Case> out) {
    String mapping = "{\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"}}}}";
    List<String> names =
        List.of(
            "Upper",
            "_under",
            "-dash",
            "+plus",
            "a%2Fb",
            "a%5Cb",
            "..",
            "a..b",
            "a*b",
            "a%3Fb",
            "a%22b",
            "a%3Cb",
            "a%3Eb",
            "a%7Cb",
            "a%20b",
            "a%2Cb",
            "x".repeat(300),
            "product");
    for (String name : names) {
      out.add(
          new Case(
              p + "put-index " + (name.length() > 20 ? name.substring(0, 20) + "…" : name),
              "PUT",
              "/" + name,
              utf8(mapping),
              List.of("Content-Type", JSON),
              Expect.CLIENT_ERROR,
              null));
    }
    Map<String, String[]> bodies = new LinkedHashMap<>();
    bodies.put(
        "mapping-type-change",
        new String[] {
          "PUT", "/product/_mapping", "{\"properties\":{\"price\":{\"type\":\"keyword\"}}}"
        });
    bodies.put(
        "mapping-dims-change",
        new String[] {
          "PUT",
          "/product/_mapping",
          "{\"properties\":{\"embedding\":{\"type\":\"dense_vector\",\"dims\":3}}}"
        });
    bodies.put(
        "mapping-unknown-type",
        new String[] {
          "PUT", "/product/_mapping", "{\"properties\":{\"geo\":{\"type\":\"geo_point\"}}}"
        });
    bodies.put(
        "shards-3", new String[] {"PUT", "/three", "{\"settings\":{\"number_of_shards\":3}}"});
    bodies.put(
        "price-not-a-number",
        new String[] {"PUT", "/product/_doc/hostile-put", "{\"title\":\"t\",\"price\":\"abc\"}"});
    bodies.put(
        "price-beyond-integer",
        new String[] {"PUT", "/product/_doc/hostile-put", "{\"price\":5000000000}"});
    bodies.put(
        "nested-object-in-keyword",
        new String[] {"PUT", "/product/_doc/hostile-put", "{\"category\":{\"a\":1}}"});
    bodies.put(
        "metadata-field",
        new String[] {"PUT", "/product/_doc/hostile-put", "{\"_id\":\"x\",\"title\":\"t\"}"});
    // a write to a missing index creates it, as Elasticsearch's auto_create_index does; reads,
    // deletes and mapping calls answer index_not_found_exception
    bodies.put(
        "missing-index-mapping",
        new String[] {"PUT", "/no-such-index-here/_mapping", "{\"properties\":{}}"});
    bodies.put("missing-index-search", new String[] {"POST", "/no-such-index-here/_search", "{}"});
    for (Map.Entry<String, String[]> e : bodies.entrySet()) {
      String[] b = e.getValue();
      out.add(
          new Case(
              p + e.getKey(),
              b[0],
              b[1],
              utf8(b[2]),
              List.of("Content-Type", JSON),
              Expect.CLIENT_ERROR,
              null));
    }
    StringBuilder action =
        new StringBuilder("{\"index\":{\"_index\":\"product\",\"_id\":\"hostile-b\"");
    for (int i = 0; i < 3_000; i++) {
      action.append(",\"k").append(i).append("\":").append(i);
    }
    action.append("}}\n{\"title\":\"t\"}\n");
    out.add(
        new Case(
            p + "es-bulk 3000-key-action",
            "POST",
            "/_bulk",
            utf8(action.toString()),
            List.of("Content-Type", NDJSON),
            Expect.BULK_ALL_FAILED,
            null));
    out.add(
        new Case(
            p + "es-bulk update-in-missing-index",
            "POST",
            "/_bulk",
            utf8(
                "{\"update\":{\"_index\":\"no-such-index-here\",\"_id\":\"hostile-b\"}}\n"
                    + "{\"doc\":{\"t\":1}}\n"),
            List.of("Content-Type", NDJSON),
            Expect.BULK_ALL_FAILED,
            null));
    out.add(
        new Case(
            p + "es-bulk bad-value",
            "POST",
            "/_bulk",
            utf8(
                "{\"index\":{\"_index\":\"product\",\"_id\":\"hostile-b\"}}\n{\"price\":\"abc\"}\n"),
            List.of("Content-Type", NDJSON),
            Expect.BULK_ALL_FAILED,
            null));
  }

  /** Search bodies that are valid JSON but hostile or out of bounds. */
  private static void searches(String p, List<Case> out) {
    String tokens600 = "w ".repeat(300) + "v ".repeat(300);
    Map<String, String> es = new LinkedHashMap<>();
    es.put("600-tokens", "{\"query\":{\"multi_match\":{\"query\":\"" + tokens600 + "\"}}}");
    es.put("size-negative", "{\"size\":-1}");
    es.put("size-huge", "{\"size\":99999999999}");
    es.put("from-window", "{\"from\":9999,\"size\":10}");
    es.put(
        "bool-depth-40",
        "{\"query\":"
            + "{\"bool\":{\"filter\":[".repeat(40)
            + "{\"match_all\":{}}"
            + "]}}".repeat(40)
            + "}");
    es.put("range-nan", "{\"query\":{\"range\":{\"price\":{\"gt\":\"NaN\"}}}}");
    es.put("range-object", "{\"query\":{\"range\":{\"price\":{\"gt\":{}}}}}");
    es.put("knn-nan", "{\"knn\":{\"field\":\"embedding\",\"query_vector\":[NaN],\"k\":1}}");
    es.put(
        "knn-k-huge", "{\"knn\":{\"field\":\"embedding\",\"query_vector\":[1],\"k\":2147483647}}");
    es.put("script", "{\"query\":{\"script\":{\"script\":\"System.exit(0)\"}}}");
    es.put("60kb-query-object", "{\"query\":{\"" + "q".repeat(60_000) + "\":{}}}");
    // Aggregations and sorts: bounded, refused by name (issue 67).
    es.put(
        "aggs-histogram-tiny-interval",
        "{\"aggs\":{\"h\":{\"histogram\":{\"field\":\"price\",\"interval\":1e-9}}}}");
    es.put(
        "aggs-terms-size-huge",
        "{\"aggs\":{\"t\":{\"terms\":{\"field\":\"category\",\"size\":2147483647}}}}");
    es.put(
        "aggs-depth-20",
        "{\"aggs\":"
            + "{\"t\":{\"terms\":{\"field\":\"category\"},\"aggs\":".repeat(20)
            + "{\"m\":{\"max\":{\"field\":\"price\"}}}"
            + "}}".repeat(20)
            + "}");
    StringBuilder many = new StringBuilder("{\"aggs\":{");
    for (int i = 0; i < 300; i++) {
      many.append(i == 0 ? "" : ",")
          .append("\"m")
          .append(i)
          .append("\":{\"max\":{\"field\":\"price\"}}");
    }
    es.put("aggs-300-siblings", many.append("}}").toString());
    es.put(
        "aggs-fixed-interval-zero",
        "{\"aggs\":{\"d\":{\"date_histogram\":{\"field\":\"price\",\"fixed_interval\":\"0d\"}}}}");
    es.put("aggs-on-text", "{\"aggs\":{\"t\":{\"terms\":{\"field\":\"title\"}}}}");
    es.put("aggs-unknown-type", "{\"aggs\":{\"p\":{\"percentiles\":{\"field\":\"price\"}}}}");
    es.put("aggs-not-object", "{\"aggs\":[1,2,3]}");
    es.put(
        "aggs-top-hits-window",
        "{\"aggs\":{\"t\":{\"terms\":{\"field\":\"category\"},\"aggs\":{\"h\":"
            + "{\"top_hits\":{\"size\":1000}}}}}}");
    es.put("sort-on-text", "{\"sort\":[\"title\"]}");
    es.put("sort-unknown-field", "{\"sort\":[{\"nope\":\"asc\"}]}");
    es.put("search-after-without-sort", "{\"search_after\":[1]}");
    es.put("search-after-wrong-length", "{\"sort\":[\"price\"],\"search_after\":[1,2]}");
    es.put("search-after-not-a-number", "{\"sort\":[\"price\"],\"search_after\":[\"x\"]}");
    for (Map.Entry<String, String> e : es.entrySet()) {
      out.add(
          new Case(
              p + "es-search " + e.getKey(),
              "POST",
              "/product/_search",
              utf8(e.getValue()),
              List.of("Content-Type", JSON),
              Expect.CLIENT_ERROR,
              null));
    }
    List<String> yql =
        List.of(
            "select * from product where " + "(".repeat(100_000) + "true" + ")".repeat(100_000),
            "select * from product where " + "(".repeat(31) + "true" + ")".repeat(31),
            "select * from product where userQuery(",
            "select * from product where title contains \"unterminated",
            "select * from product where price > 1e",
            "select * from product where price > --1",
            "select * from product where price > 'x'",
            "select * from product where category contains 5",
            "select * from product where true limit -1",
            "select * from product where true limit 99999999999",
            "select * from product where true; drop table product",
            "select * from product where \u0000",
            "select * from product where $",
            "select * from music where true",
            "select * from sources product, other where true",
            "select * from product where nope contains \"x\"",
            "select * from product where rank()",
            "select * from product where price >",
            "select * from product where {targetHits:-5}nearestNeighbor(embedding,q)",
            "select * from product where nearestNeighbor(embedding)",
            "select from product where true",
            "delete from product",
            "select * from product where true " + "and true ".repeat(20_000),
            "\uFEFFselect * from product where true",
            "select * from product where price > 9223372036854775807 or embedding contains \"x\"",
            // Grouping and order by (issue 67): refused by name, bounded.
            "select * from product where true | all(group(category) max(inf) each(output(count())))",
            "select * from product where true | "
                + "all(group(category) max(1) each(".repeat(40)
                + ")".repeat(80),
            "select * from product where true | "
                + "all(group(category) max(2) each(".repeat(9)
                + "output(count())"
                + ")".repeat(18),
            "select * from product where true | all(group(category) each(output(summary())))",
            "select * from product where true | all(group(nope) each(output(count())))",
            "select * from product where true | all(group(title) each(output(count())))",
            "select * from product where true | all(group(predefined(price, bucket(\"a\", \"b\"))))",
            "select * from product where true | all(group(category) max(99999999999))",
            "select * from product where true | all(group(category) each(output(count()))",
            "select * from product where true | all(group(category) order(-max(relevance())))",
            "select * from product where true | all(group(category) where(true))",
            "select * from product where true | ",
            "select * from product where true | all(group(category) max(200) each("
                + "all(group(price) max(200) each(output(count())))))",
            "select * from product where true order by {function: \"uca\"}category",
            "select * from product where true order by nope desc",
            "select * from product where true order by price(",
            "select * from product where true order by \"[nope]\"");
    for (int i = 0; i < yql.size(); i++) {
      String q = URLEncoder.encode(yql.get(i), StandardCharsets.UTF_8);
      boolean fitsUrl = q.length() < 60_000;
      if (fitsUrl) {
        out.add(
            new Case(
                p + "vespa-yql-get " + i,
                "GET",
                "/search/?yql=" + q,
                null,
                List.of(),
                Expect.CLIENT_ERROR,
                null));
      }
      String body =
          "{\"yql\":"
              + org.searchlab.server.Json.MAPPER.getNodeFactory().textNode(yql.get(i)).toString()
              + "}";
      out.add(
          new Case(
              p + "vespa-yql-post " + i,
              "POST",
              "/search/",
              utf8(body),
              List.of("Content-Type", JSON),
              Expect.CLIENT_ERROR,
              null));
    }
    out.add(
        new Case(
            p + "vespa-search 600-tokens",
            "GET",
            "/search/?yql="
                + URLEncoder.encode(
                    "select * from product where userQuery()", StandardCharsets.UTF_8)
                + "&query="
                + URLEncoder.encode(tokens600, StandardCharsets.UTF_8),
            null,
            List.of(),
            Expect.CLIENT_ERROR,
            null));
  }

  /** Paths, methods and parameters. */
  private static void paths(String p, List<Case> out) {
    String[][] bad = {
      {"GET", "/product/_search?size=-1"},
      {"GET", "/product/_search?size=abc"},
      {"GET", "/product/_search?from=2147483648"},
      {"GET", "/product/_search?track_total_hits=maybe"},
      {"GET", "/product/_doc/" + "i".repeat(600)},
      {"GET", "/product/_doc/%zz"},
      {"GET", "/nope/_search"},
      {"GET", "/product/_nonsense"},
      {"GET", "/_admin/nope"},
      {"DELETE", "/product"},
      {"PATCH", "/product/_doc/doc-1"},
      {"TRACE", "/product/_search"},
      {"DELETE", "/_admin/refresh"},
      {"GET", "/document/v1/product/product/docid/"},
      {"GET", "/document/v1/product/other/docid/x"},
      {"GET", "/document/v1/../../etc/passwd"},
      {"POST", "/product/_forcemerge?max_num_segments=0"},
      {"POST", "/product/_forcemerge?max_num_segments=abc"},
      {"GET", "/search/?hits=-1"},
      {"GET", "/search/?hits=99999999"},
      {"GET", "/search/?offset=abc"},
      {"GET", "/search/?ranking.profile=unknown"},
      {"GET", "/search/?input.query(q_embedding)=%5B1%2C2"},
      {"GET", "/search/?yql=" + "%".repeat(3)},
      {"GET", "/" + "%FF%FE".repeat(10)},
    };
    for (String[] b : bad) {
      if (p.startsWith("h2") && !validUri(b[1])) {
        continue; // the HTTP/2 client cannot send a malformed escape; HTTP/1.1 sends it raw
      }
      out.add(
          new Case(
              p + b[0] + " " + (b[1].length() > 60 ? b[1].substring(0, 60) + "…" : b[1]),
              b[0],
              b[1],
              null,
              List.of(),
              Expect.CLIENT_ERROR,
              null));
    }
    // A 12 KB path is taken by both HTTP versions (HTTP/2 used to answer 431).
    out.add(
        new Case(
            p + "12kb-path",
            "GET",
            "/health?pad=" + "p".repeat(12 * 1024),
            null,
            List.of(),
            Expect.OK,
            null));
    out.add(
        new Case(
            p + "60kb-path",
            "GET",
            "/health?pad=" + "p".repeat(60 * 1024),
            null,
            List.of(),
            Expect.OK,
            null));
  }

  private static boolean validUri(String path) {
    try {
      java.net.URI.create("http://localhost" + path);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** Raw HTTP/1.1 bytes no client library sends; each must be answered 4xx. */
  static List<Case> raw() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("garbage", "GARBAGE\r\n\r\n");
    m.put("no-colon-header", "GET /health HTTP/1.1\r\nHost: localhost\r\nNoColonHere\r\n\r\n");
    m.put("space-in-header-name", "GET /health HTTP/1.1\r\nHost: localhost\r\nBad Name: x\r\n\r\n");
    m.put(
        "huge-header",
        "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "h".repeat(70_000) + "\r\n\r\n");
    m.put(
        "huge-line", "GET /health?" + "l".repeat(70_000) + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
    m.put(
        "negative-length",
        "POST /product/_search HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: -5\r\n\r\n");
    m.put(
        "bad-length",
        "POST /product/_search HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n");
    m.put(
        "two-lengths",
        "POST /product/_search HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}x");
    m.put(
        "bad-chunk-size",
        "POST /product/_search HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n");
    m.put(
        "over-limit-declared",
        "PUT /product/_doc/hostile-put HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\n\r\n{");
    m.put(
        "foreign-host",
        "DELETE /product/_doc/doc-1 HTTP/1.1\r\nHost: rebind.attacker.example\r\n\r\n");
    m.put("nul-in-path", "GET /product/_doc/a\u0000b HTTP/1.1\r\nHost: localhost\r\n\r\n");
    m.put(
        "obs-fold",
        "GET /health HTTP/1.1\r\nHost: localhost\r\nX-A: 1\r\n folded\r\nContent-Length: x\r\n\r\n");
    m.put("lf-only-garbage", "\n\n\nPOST\n\n");
    m.put(
        "absolute-uri-foreign",
        "GET http://evil.example/product/_count HTTP/1.1\r\nHost: evil.example\r\n\r\n");
    m.put(
        "unknown-method-body",
        "BREW /product/_doc/hostile-put HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
    List<Case> out = new ArrayList<>();
    for (Map.Entry<String, String> e : m.entrySet()) {
      out.add(
          new Case(
              "raw " + e.getKey(),
              null,
              null,
              null,
              List.of(),
              Expect.CLIENT_ERROR,
              e.getValue().getBytes(StandardCharsets.ISO_8859_1)));
    }
    return out;
  }
}
