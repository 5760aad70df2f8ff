package org.searchlab.bench.history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.searchlab.server.Json;
import org.searchlab.testing.history.DocInput;
import org.searchlab.testing.history.DocOutput;
import org.searchlab.testing.history.Op;

/**
 * The calls of a history over HTTP, each timed and classified: one document operation on the
 * {@value #INDEX} index, or a refresh followed by a search of every document.
 *
 * <p>The outcome mapping (issue 70): 200/201 with a {@code result} is answered; a GET's 404 {@code
 * found: false}, a DELETE's 404 {@code not_found} and an {@code _update}'s 404 {@code
 * document_missing_exception} are answered {@code not_found}; a create's 409 {@code
 * version_conflict_engine_exception} is answered {@code conflict}. Any other 4xx was definitely not
 * applied (FAILED). A 5xx, a timeout, a reset or refused connection, and a 2xx whose body does not
 * say what happened are INDETERMINATE. Answers outside the expected ones are also counted and the
 * first few kept, so that a 404 {@code index_not_found_exception} after a restart (an index lost)
 * is reported and not only dropped as FAILED.
 *
 * <p>Times are {@code System.nanoTime()} just before the request is handed to the client and just
 * after its whole body arrived, so the interval contains the server's work and any automatic retry
 * the JDK client makes (it retries only GETs and connections that were refused, never a processed
 * write). Thread-safe: the HTTP client is, and the counters are atomic.
 */
final class DocCalls {
  /** The index every history writes. */
  static final String INDEX = "history";

  private static final int SAMPLES = 20;

  private final HttpClient http;
  private final Duration timeout;
  private final AtomicLong unexpected = new AtomicLong();
  private final ConcurrentLinkedQueue<String> samples = new ConcurrentLinkedQueue<>();

  /**
   * @param timeout the longest wait for one answer; a call that takes longer is indeterminate
   */
  DocCalls(HttpClient http, Duration timeout) {
    this.http = http;
    this.timeout = timeout;
  }

  /** Makes one document call and records it. */
  Op<DocInput, DocOutput> call(int client, URI base, String key, DocInput in)
      throws InterruptedException {
    HttpRequest request = request(base, key, in);
    long invoked = System.nanoTime();
    HttpResponse<String> resp;
    try {
      resp = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      return Op.indeterminate(client, key, in, invoked);
    }
    long completed = System.nanoTime();
    int status = resp.statusCode();
    if (status >= 500) {
      return Op.indeterminate(client, key, in, invoked);
    }
    DocOutput out = classify(in.kind(), status, parse(resp.body()));
    if (out != null) {
      return Op.ok(client, key, in, out, invoked, completed);
    }
    note(in.kind() + " " + key + " answered " + status + ": " + abbreviate(resp.body()));
    return status >= 400
        ? Op.failed(client, key, in, invoked, completed)
        : Op.indeterminate(client, key, in, invoked);
  }

  /**
   * A {@code POST /history/_refresh} and then a {@code match_all} search for up to {@code size}
   * documents; null when either did not answer 200 (the check needs both).
   */
  RefreshVisibility.Search refreshThenSearch(int client, URI base, int size)
      throws InterruptedException {
    try {
      long refreshInvoked = System.nanoTime();
      HttpResponse<String> r =
          http.send(
              json(base.resolve("/" + INDEX + "/_refresh")).POST(noBody()).build(),
              HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      long refreshCompleted = System.nanoTime();
      if (r.statusCode() != 200) {
        if (r.statusCode() < 500) {
          note("refresh answered " + r.statusCode() + ": " + abbreviate(r.body()));
        }
        return null;
      }
      String body = "{\"size\":" + size + ",\"query\":{\"match_all\":{}}}";
      long searchInvoked = System.nanoTime();
      HttpResponse<String> s =
          http.send(
              json(base.resolve("/" + INDEX + "/_search"))
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      long searchCompleted = System.nanoTime();
      if (s.statusCode() != 200) {
        if (s.statusCode() < 500) {
          note("search answered " + s.statusCode() + ": " + abbreviate(s.body()));
        }
        return null;
      }
      Map<String, String> tokens = new LinkedHashMap<>();
      JsonNode hits = parse(s.body()).path("hits").path("hits");
      for (JsonNode hit : hits) {
        // A hit without a token shows a document no write of the history made: "" is no token.
        tokens.put(hit.path("_id").asText(), hit.path("_source").path("token").asText(""));
      }
      if (hits.size() >= size) {
        note("search returned " + hits.size() + " hits, the page size: more documents than ids");
      }
      return new RefreshVisibility.Search(
          client, refreshInvoked, refreshCompleted, searchInvoked, searchCompleted, tokens);
    } catch (IOException e) {
      return null; // the server went away: nothing to check
    }
  }

  /** How many answers were outside the outcome mapping. */
  long unexpected() {
    return unexpected.get();
  }

  /** The first few of them, as text. */
  List<String> unexpectedSamples() {
    return new ArrayList<>(samples);
  }

  private void note(String what) {
    if (unexpected.incrementAndGet() <= SAMPLES) {
      samples.add(what);
    }
  }

  private HttpRequest request(URI base, String key, DocInput in) {
    String doc = "/" + INDEX + "/_doc/" + key;
    return switch (in.kind()) {
      case PUT -> json(base.resolve(doc)).PUT(body(in.fields())).build();
      case CREATE -> json(base.resolve(doc + "?op_type=create")).PUT(body(in.fields())).build();
      case UPDATE ->
          json(base.resolve("/" + INDEX + "/_update/" + key))
              .POST(body(Map.of("doc", in.fields())))
              .build();
      case DELETE -> json(base.resolve(doc)).DELETE().build();
      case GET -> json(base.resolve(doc)).GET().build();
    };
  }

  private HttpRequest.Builder json(URI uri) {
    return HttpRequest.newBuilder(uri).timeout(timeout).header("Content-Type", "application/json");
  }

  private static HttpRequest.BodyPublisher noBody() {
    return HttpRequest.BodyPublishers.noBody();
  }

  private static HttpRequest.BodyPublisher body(Object tree) {
    try {
      return HttpRequest.BodyPublishers.ofString(Json.MAPPER.writeValueAsString(tree));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * What an answer says, by the outcome mapping; null when it is not one of the answers the mapping
   * expects for this call.
   */
  static DocOutput classify(DocInput.Kind kind, int status, JsonNode body) {
    String error = body.path("error").path("type").asText("");
    if (kind == DocInput.Kind.GET) {
      if (status == 200 && body.path("found").asBoolean(false) && body.path("_source").isObject()) {
        @SuppressWarnings("unchecked")
        Map<String, Object> source = (Map<String, Object>) tree(body.get("_source"));
        return DocOutput.found(source);
      }
      boolean absent = body.path("found").isBoolean() && !body.path("found").asBoolean();
      return status == 404 && absent ? DocOutput.notFound() : null;
    }
    if (status == 200 || status == 201) {
      DocOutput.Result r =
          switch (body.path("result").asText("")) {
            case "created" -> DocOutput.Result.CREATED;
            case "updated" -> DocOutput.Result.UPDATED;
            case "noop" -> DocOutput.Result.NOOP;
            case "deleted" -> DocOutput.Result.DELETED;
            case "not_found" -> DocOutput.Result.NOT_FOUND;
            default -> null;
          };
      return r == null ? null : DocOutput.of(r);
    }
    boolean notFound =
        status == 404
            && switch (kind) {
              case DELETE -> body.path("result").asText("").equals("not_found");
              case UPDATE -> error.equals("document_missing_exception");
              default -> false;
            };
    if (notFound) {
      return DocOutput.of(DocOutput.Result.NOT_FOUND);
    }
    if (status == 409 && kind == DocInput.Kind.CREATE) {
      return error.equals("version_conflict_engine_exception")
          ? DocOutput.of(DocOutput.Result.CONFLICT)
          : null;
    }
    return null;
  }

  /**
   * A JSON value as the checker's field tree: objects as insertion-ordered maps, arrays as lists,
   * integers as {@link Long} (or {@link BigDecimal} beyond it), other numbers as {@link Double}.
   */
  static Object tree(JsonNode n) {
    return switch (n.getNodeType()) {
      case OBJECT -> {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          m.put(e.getKey(), tree(e.getValue()));
        }
        yield m;
      }
      case ARRAY -> {
        List<Object> l = new ArrayList<>();
        n.forEach(v -> l.add(tree(v)));
        yield l;
      }
      case STRING -> n.textValue();
      case BOOLEAN -> n.booleanValue();
      case NUMBER -> {
        if (n.isIntegralNumber()) {
          yield n.canConvertToLong() ? (Object) n.longValue() : new BigDecimal(n.bigIntegerValue());
        }
        yield n.isBigDecimal() ? n.decimalValue() : (Object) n.doubleValue();
      }
      case NULL -> null;
      default -> n.asText();
    };
  }

  private static JsonNode parse(String body) {
    try {
      JsonNode n = Json.MAPPER.readTree(body);
      return n == null ? MissingNode.getInstance() : n;
    } catch (IOException e) {
      return MissingNode.getInstance();
    }
  }

  private static String abbreviate(String s) {
    String one = s.replace('\n', ' ');
    return one.length() > 200 ? one.substring(0, 197) + "..." : one;
  }
}
