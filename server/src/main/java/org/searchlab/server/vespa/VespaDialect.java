package org.searchlab.server.vespa;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.searchlab.core.Document;
import org.searchlab.core.Hit;
import org.searchlab.core.Operation;
import org.searchlab.core.SearchResult;
import org.searchlab.server.AcceptHeader;
import org.searchlab.server.ApiException;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.ApiResponse;
import org.searchlab.server.Dialect;
import org.searchlab.server.Json;
import org.searchlab.server.ServerConfig;
import org.searchlab.server.ServerLimits;
import org.searchlab.server.index.IndexHandle;
import org.searchlab.server.index.Indices;

/**
 * The Vespa routes: {@code /document/v1/{namespace}/{doctype}/docid/{id}} and {@code /search/}. A
 * thin translator onto the services of the server's indexes: a document type is an index of the
 * same name ({@code serve --document-type} names the default index's), and a search's {@code from}
 * names its index ({@code sources *}: the default index, or the only one). Thread-safe (stateless
 * over the indexes).
 *
 * <p>Answers follow Vespa: a put, update or remove answers {@code {"pathId","id"}}; an update or
 * remove of a missing document is 200 (Vespa drops it without error); a get of a missing document
 * is 404; errors are {@code {"pathId","message"}} for documents and {@code
 * {"root":{"errors":[...]}}} for searches.
 *
 * <p>Every answer, errors included, is JSON or CBOR, whichever the {@code Accept} header prefers
 * ({@link AcceptHeader}): Vespa renders CBOR when asked, and pyvespa's {@code query()} asks for
 * {@code application/cbor} alone. The tree is the same in both.
 */
public final class VespaDialect implements Dialect {
  private static final String DOC_PREFIX = "/document/v1";

  /** JSON first: a client that takes anything gets JSON, as from Vespa. */
  private static final List<String> MEDIA_TYPES = List.of(ApiResponse.JSON, AcceptHeader.CBOR);

  private final Indices indices;
  private final ServerConfig config;
  private final ServerLimits limits;

  public VespaDialect(Indices indices, ServerConfig config) {
    this.indices = indices;
    this.config = config;
    this.limits = config.limits();
  }

  /** The index of a document type; a 400 in Vespa's words when there is none. */
  private IndexHandle indexOf(String type) {
    String name = type.equals(config.documentType()) ? config.indexName() : type;
    IndexHandle h = indices.get(name);
    if (h == null) {
      throw new ApiException(
          400,
          "bad_request",
          "Document type "
              + (type.length() > 60 ? type.substring(0, 57) + "..." : type)
              + " does not exist");
    }
    return h;
  }

  /** The document type a search answers in: its index's name, or the configured alias. */
  private String typeOf(IndexHandle h) {
    return h.name().equals(config.indexName()) ? config.documentType() : h.name();
  }

  /** The index a search reads: the one its {@code from} names, else the default or the only one. */
  private IndexHandle searchTarget(List<String> sources) {
    if (sources.size() > 1) {
      throw new ApiException(
          400, "bad_request", "a search here reads one document type; from names " + sources);
    }
    if (sources.size() == 1) {
      return indexOf(sources.get(0));
    }
    IndexHandle h = indices.get(config.indexName());
    if (h != null) {
      return h;
    }
    var all = indices.all();
    if (all.size() == 1) {
      return all.get(0);
    }
    throw new ApiException(
        400,
        "bad_request",
        "this server holds " + all.size() + " document types; name one after from");
  }

  @Override
  public String name() {
    return "vespa";
  }

  @Override
  public boolean owns(String path) {
    return path.startsWith(DOC_PREFIX) || path.equals("/search") || path.startsWith("/search/");
  }

  @Override
  public List<String> mediaTypes() {
    return MEDIA_TYPES;
  }

  @Override
  public Work work(ApiRequest r) {
    if (r.path().startsWith(DOC_PREFIX) && !r.method().equals(HttpMethod.GET)) {
      return Work.WRITE;
    }
    return Work.SEARCH;
  }

  @Override
  public ApiResponse handle(ApiRequest r) throws IOException {
    if (!r.path().startsWith(DOC_PREFIX)) {
      if (!r.path().equals("/search/") && !r.path().equals("/search")) {
        throw new ApiException(
            404, "not_found", "no search handler at " + r.path() + "; use /search/");
      }
      return search(r);
    }
    return join(document(r));
  }

  /**
   * A document write is answered when the store acknowledges it, without holding a write thread
   * meanwhile (Vespa's document API is asynchronous too): a feed client's many requests in flight
   * then reach the store together, and it logs and applies them in shared batches.
   */
  @Override
  public CompletableFuture<ApiResponse> handleAsync(ApiRequest r) throws IOException {
    if (!r.path().startsWith(DOC_PREFIX)) {
      return CompletableFuture.completedFuture(handle(r));
    }
    return document(r);
  }

  /** The answer of a future made by {@link #document}, rethrowing what failed it. */
  private static ApiResponse join(CompletableFuture<ApiResponse> f) throws IOException {
    try {
      return f.join();
    } catch (CompletionException e) {
      Throwable c = e.getCause();
      if (c instanceof IOException io) {
        throw io;
      }
      if (c instanceof RuntimeException re) {
        throw re;
      }
      throw e;
    }
  }

  private ApiResponse search(ApiRequest r) throws IOException {
    HttpMethod m = r.method();
    if (!m.equals(HttpMethod.GET) && !m.equals(HttpMethod.POST)) {
      throw new ApiException(405, "method_not_allowed", "use GET or POST on /search/");
    }
    long t0 = System.nanoTime();
    JsonNode body =
        m.equals(HttpMethod.POST) && r.hasBody() ? Json.parse(r.body(), "query body") : null;
    var params = VespaQueryTranslator.flatten(body, r.params());
    IndexHandle h = searchTarget(VespaQueryTranslator.sources(params, limits));
    String docType = typeOf(h);
    var mapping = h.index().mapping();
    VespaSearch q = VespaQueryTranslator.translate(params, docType, mapping, limits);
    // The summary comes from the same point-in-time view the hits were ranked in (the store's fetch
    // phase), never from a later version of the document.
    boolean summaries = !q.minimal() && needsDocument(q.fields());
    SearchResult result;
    try (IndexHandle.Lease l = h.lease()) {
      result = h.service().search(q.request().withFetchDocuments(summaries), q.embedTexts());
    }
    long searchNanos = System.nanoTime() - t0;
    ObjectNode out = Json.MAPPER.createObjectNode();
    ObjectNode root = out.putObject("root");
    root.put("id", "toplevel").put("relevance", 1.0);
    root.putObject("fields").put("totalCount", result.total().value());
    root.putObject("coverage")
        .put("coverage", 100)
        .put("full", true)
        .put("nodes", 1)
        .put("results", 1)
        .put("resultsFull", 1);
    if (!result.hits().isEmpty() || !q.grouping().isEmpty()) {
      ArrayNode children = root.putArray("children");
      // The grouping's root groups first: Vespa orders a result's children by relevance, and a
      // root group's is 1.0.
      q.grouping().render(result.aggregations(), children);
      for (Hit hit : result.hits()) {
        ObjectNode c = children.addObject();
        String id = docId(docType, docType, hit.id());
        // A search sorted by attributes alone scores nothing; Vespa shows such hits' relevance 0.
        float score = Float.isFinite(hit.score()) ? hit.score() : 0f;
        c.put("id", id).put("relevance", score).put("source", docType);
        ObjectNode fields = c.putObject("fields");
        fields.put("sddocname", docType).put("documentid", id);
        if (hit.document() != null) {
          fields.setAll(VespaDocuments.summary(hit.document(), mapping));
        }
        if (!q.fields().isEmpty()) {
          // As Vespa: a select list shows those summary fields only (unknown names show nothing).
          fields.retain(q.fields());
        }
      }
    }
    if (q.timing() || result.timings().embedNanos() > 0) {
      double total = (System.nanoTime() - t0) / 1e9;
      ObjectNode timing = out.putObject("timing");
      timing.put("querytime", searchNanos / 1e9);
      timing.put("summaryfetchtime", Math.max(0, total - searchNanos / 1e9));
      timing.put("searchtime", total);
      if (result.timings().embedNanos() > 0) {
        timing.put("embedtime", result.timings().embedNanos() / 1e9);
      }
    }
    return render(r, 200, out).tagged("search", q.queryType());
  }

  /** Whether a select list names a field beyond the two every hit has without a document fetch. */
  private static boolean needsDocument(List<String> selected) {
    if (selected.isEmpty()) {
      return true;
    }
    for (String f : selected) {
      if (!f.equals("sddocname") && !f.equals("documentid")) {
        return true;
      }
    }
    return false;
  }

  private static String docId(String namespace, String docType, String id) {
    return "id:" + namespace + ":" + docType + "::" + id;
  }

  private CompletableFuture<ApiResponse> document(ApiRequest r) throws IOException {
    // /document/v1/{namespace}/{doctype}/docid/{id}; the id is everything after docid/.
    String rest = r.path().substring(DOC_PREFIX.length());
    String[] parts = rest.replaceFirst("^/", "").split("/", 4);
    if (parts.length < 4 || !parts[2].equals("docid") || parts[3].isEmpty()) {
      throw new ApiException(
          400,
          "bad_request",
          "expected /document/v1/<namespace>/<document type>/docid/<id>, got "
              + r.path()
              + " (visiting and number/group ids are not supported)");
    }
    String namespace = parts[0];
    String type = parts[1];
    String id = parts[3];
    if (namespace.equals("feeder") && type.equals("handshake")) {
      return done(ok(r, namespace, type, id, "handshake"));
    }
    IndexHandle h = indexOf(type);
    var mapping = h.index().mapping();
    boolean dryRun = "true".equals(r.param("dryRun"));
    HttpMethod m = r.method();
    if (m.equals(HttpMethod.GET)) {
      Optional<Document> d;
      try (IndexHandle.Lease l = h.lease()) {
        d = h.service().get(id);
      }
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.put("pathId", r.path()).put("id", docId(namespace, type, id));
      if (d.isEmpty()) {
        return done(render(r, 404, o).tagged("document_get", "none"));
      }
      o.set("fields", VespaDocuments.fieldsOf(d.get(), mapping));
      return done(render(r, 200, o).tagged("document_get", "none"));
    }
    if (m.equals(HttpMethod.POST)) {
      Document doc =
          VespaDocuments.document(
              id,
              VespaDocuments.fields(Json.parse(r.body(), "document body"), "document body"),
              mapping);
      if (dryRun) {
        VespaDocuments.check(h, doc);
        return done(ok(r, namespace, type, id, "document_put"));
      }
      return write(h, Operation.put(doc))
          .thenApply(w -> ok(r, namespace, type, id, "document_put"));
    }
    if (m.equals(HttpMethod.PUT)) {
      var update =
          VespaDocuments.update(
              id,
              VespaDocuments.fields(Json.parse(r.body(), "update body"), "update body"),
              mapping);
      if (dryRun) {
        VespaDocuments.check(h, new Document(id, update.doc()));
        return done(ok(r, namespace, type, id, "document_update"));
      }
      return write(h, Operation.update(update))
          .thenApply(w -> ok(r, namespace, type, id, "document_update"));
    }
    if (m.equals(HttpMethod.DELETE)) {
      if (dryRun) {
        return done(ok(r, namespace, type, id, "document_remove"));
      }
      return write(h, Operation.delete(id))
          .thenApply(w -> ok(r, namespace, type, id, "document_remove"));
    }
    throw new ApiException(405, "method_not_allowed", "use GET, POST, PUT or DELETE on a document");
  }

  /**
   * A write through the index's service, holding a lease on the index until the store has
   * acknowledged it.
   */
  private static CompletableFuture<org.searchlab.core.WriteResult> write(
      IndexHandle h, Operation op) throws IOException {
    IndexHandle.Lease lease = h.lease();
    try {
      return h.service().writeAsync(op).whenComplete((w, e) -> lease.close());
    } catch (IOException | RuntimeException e) {
      lease.close();
      throw e;
    }
  }

  private static CompletableFuture<ApiResponse> done(ApiResponse r) {
    return CompletableFuture.completedFuture(r);
  }

  private ApiResponse ok(ApiRequest r, String namespace, String type, String id, String endpoint) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("pathId", r.path()).put("id", docId(namespace, type, id));
    return render(r, 200, o).tagged(endpoint, "none");
  }

  @Override
  public ApiResponse error(ApiRequest r, int status, String type, String reason) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    if (r.path().startsWith(DOC_PREFIX)) {
      o.put("pathId", r.path()).put("message", reason);
    } else {
      ObjectNode root = o.putObject("root");
      root.put("id", "toplevel").put("relevance", 1.0);
      root.putObject("fields").put("totalCount", 0);
      root.putArray("errors")
          .addObject()
          .put("code", status == 429 ? 12 : status >= 500 ? 8 : 4)
          .put(
              "summary",
              status == 429
                  ? "Overloaded"
                  : status >= 500 ? "Internal error" : "Invalid query parameter")
          .put("source", config.documentType())
          .put("message", reason);
    }
    return render(r, status, o).tagged("error", "none");
  }

  /**
   * {@code body} in the type the request's {@code Accept} prefers: CBOR when it asks for it,
   * otherwise JSON (also when it allows neither: the guard's 406 itself is JSON).
   */
  private static ApiResponse render(ApiRequest r, int status, ObjectNode body) {
    String type =
        AcceptHeader.choose(r.headers().get(HttpHeaderNames.ACCEPT), MEDIA_TYPES)
            .orElse(ApiResponse.JSON);
    if (type.equals(AcceptHeader.CBOR)) {
      return new ApiResponse(
          status, AcceptHeader.CBOR, Json.cborBytes(body), Map.of(), "unknown", "none");
    }
    return ApiResponse.json(status, Json.bytes(body));
  }
}
