package org.searchlab.server;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.server.HostileCases.Case;
import org.searchlab.server.HostileCases.Expect;

/**
 * The hostile inputs of the batch and by-query APIs ({@code _mget}, {@code _msearch}, {@code
 * _delete_by_query}, {@code _update_by_query}), added to {@link HostileCases}: each must be refused
 * with a 4xx before anything is written (the suite checks every document unchanged afterwards).
 * Immutable; thread-safe.
 */
final class HostileBatchCases {
  private HostileBatchCases() {}

  private static final String JSON = "application/json";
  private static final String NDJSON = "application/x-ndjson";

  private static Case post(String name, String path, String body, String type) {
    return new Case(
        name,
        "POST",
        path,
        body.getBytes(StandardCharsets.UTF_8),
        List.of("Content-Type", type),
        Expect.CLIENT_ERROR,
        null);
  }

  static void add(String p, List<Case> out) {
    // _msearch: NDJSON that is not pairs of JSON objects, too many searches, too big a body
    Map<String, String> ms = new LinkedHashMap<>();
    for (Map.Entry<String, byte[]> b : HostileCases.badJson().entrySet()) {
      String bad = new String(b.getValue(), StandardCharsets.UTF_8);
      ms.put("body-" + b.getKey(), "{}\n" + bad.replace('\n', ' ') + "\n");
    }
    ms.put("odd-lines", "{}\n");
    ms.put("blank", "\n \n");
    ms.put("header-array", "[]\n{}\n");
    ms.put("header-unknown-key", "{\"nope\":1}\n{}\n");
    ms.put("header-index-number", "{\"index\":5}\n{}\n");
    ms.put("1001-searches", "{}\n{}\n".repeat(1001));
    ms.put("over-body-limit", "{}\n{\"size\":1" + " ".repeat(HostileCases.LIMIT) + "}\n");
    ms.put("unknown-param", "{}\n{}\n");
    for (Map.Entry<String, String> e : ms.entrySet()) {
      String path =
          e.getKey().equals("unknown-param") ? "/product/_msearch?bogus=1" : "/product/_msearch";
      out.add(post(p + "es-msearch " + e.getKey(), path, e.getValue(), NDJSON));
    }

    // _mget: bodies Elasticsearch refuses, a bound, bad parameters
    Map<String, String> mg = new LinkedHashMap<>();
    mg.put("empty", "{}");
    mg.put("no-ids", "{\"ids\":[]}");
    mg.put("docs-not-array", "{\"docs\":\"x\"}");
    mg.put("doc-not-object", "{\"docs\":[5]}");
    mg.put("doc-unknown-key", "{\"docs\":[{\"_id\":\"doc-1\",\"nope\":1}]}");
    mg.put("doc-source-number", "{\"docs\":[{\"_id\":\"doc-1\",\"_source\":5}]}");
    mg.put("ids-object", "{\"ids\":[{}]}");
    mg.put("unknown-key", "{\"nope\":[]}");
    // 10,001 one-character ids: about 40 kB, under the body limit, over the _mget bound
    mg.put("10001-ids", "{\"ids\":[" + "\"1\",".repeat(10_000) + "\"1\"]}");
    for (Map.Entry<String, String> e : mg.entrySet()) {
      out.add(post(p + "es-mget " + e.getKey(), "/product/_mget", e.getValue(), JSON));
    }
    out.add(post(p + "es-mget no-index", "/_mget", "{\"docs\":[{\"_id\":\"doc-1\"}]}", JSON));
    out.add(post(p + "es-mget ids-no-index", "/_mget", "{\"ids\":[\"doc-1\"]}", JSON));
    out.add(
        post(
            p + "es-mget realtime-maybe",
            "/product/_mget?realtime=maybe",
            "{\"ids\":[\"doc-1\"]}",
            JSON));
    out.add(
        post(p + "es-mget unknown-param", "/product/_mget?bogus=1", "{\"ids\":[\"doc-1\"]}", JSON));

    // _delete_by_query and _update_by_query: parameters, bodies and scripts refused before a write
    String all = "{\"query\":{\"match_all\":{}}}";
    String[][] params = {
      {"wait-false", "wait_for_completion=false"},
      {"slices-5", "slices=5"},
      {"scroll-size-0", "scroll_size=0"},
      {"scroll-size-huge", "scroll_size=99999"},
      {"max-docs-0", "max_docs=0"},
      {"max-docs-text", "max_docs=abc"},
      {"conflicts-maybe", "conflicts=maybe"},
      {"throttled", "requests_per_second=10"},
      {"unknown-param", "bogus=1"},
    };
    for (String op : List.of("_delete_by_query", "_update_by_query")) {
      String name = p + (op.startsWith("_delete") ? "es-dbq " : "es-ubq ");
      for (String[] q : params) {
        out.add(post(name + q[0], "/product/" + op + "?" + q[1], all, JSON));
      }
      out.add(post(name + "missing-index", "/nope/" + op, all, JSON));
      out.add(
          post(
              name + "unknown-key",
              "/product/" + op,
              "{\"query\":{\"match_all\":{}},\"size\":5}",
              JSON));
      out.add(post(name + "slice", "/product/" + op, "{\"slice\":{\"id\":0,\"max\":2}}", JSON));
      out.add(
          post(
              name + "bad-query",
              "/product/" + op,
              "{\"query\":{\"range\":{\"price\":{\"gt\":\"NaN\"}}}}",
              JSON));
      out.add(post(name + "max-docs-negative", "/product/" + op, "{\"max_docs\":-1}", JSON));
      out.add(post(name + "conflicts-bad", "/product/" + op, "{\"conflicts\":\"never\"}", JSON));
      out.add(
          new Case(
              name + "get", "GET", "/product/" + op, null, List.of(), Expect.CLIENT_ERROR, null));
    }
    out.add(
        post(
            p + "es-dbq script",
            "/product/_delete_by_query",
            "{\"script\":\"ctx._source.price = 1\"}",
            JSON));
    List<String> scripts =
        List.of(
            "\"ctx._source.price += 1\"",
            "\"ctx._source.price = ctx._source.price + 1\"",
            "\"ctx.op = 'delete'\"",
            "\"System.exit(0)\"",
            "\"ctx._source.price == 1\"",
            "\"ctx._source. = 1\"",
            "\"ctx._source.title = 'unclosed\"",
            "\"ctx._source.price = 1e999\"",
            "\"ctx._source.price = 1; ctx._source.rating = \"",
            "\"\"",
            "\"" + "ctx._source.price = 1;".repeat(65) + "\"",
            "\"ctx._source.title = '" + "x".repeat(5000) + "'\"",
            "{\"source\":\"ctx._source.price = params.missing\"}",
            "{\"source\":\"ctx._source.price = params.v\",\"params\":5}",
            "{\"source\":\"ctx._source.price = 1\",\"lang\":\"expression\"}",
            "{\"id\":\"stored\"}",
            "{\"source\":5}",
            "{\"source\":\"ctx._source.price = 1\",\"nope\":1}",
            "5",
            "[]");
    for (int i = 0; i < scripts.size(); i++) {
      out.add(
          post(
              p + "es-ubq script-" + i,
              "/product/_update_by_query",
              "{\"query\":{\"match_all\":{}},\"script\":" + scripts.get(i) + "}",
              JSON));
    }
  }
}
