package org.searchlab.bench.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.server.Json;
import org.searchlab.testing.history.DocInput;
import org.searchlab.testing.history.DocOutput;

/**
 * The outcome mapping of issue 70 on the Elasticsearch dialect's answers: which answers are the
 * model's outputs, and which are left to FAILED (a 4xx) or INDETERMINATE (the caller's choice for a
 * 2xx that says nothing) because they are not.
 */
class DocCallsTest {
  private static DocOutput classify(DocInput.Kind kind, int status, String body) throws Exception {
    return DocCalls.classify(kind, status, Json.MAPPER.readTree(body));
  }

  @Test
  void writesAreAnsweredByTheirResult() throws Exception {
    assertEquals(
        DocOutput.of(DocOutput.Result.CREATED),
        classify(DocInput.Kind.PUT, 201, "{\"result\":\"created\"}"));
    assertEquals(
        DocOutput.of(DocOutput.Result.UPDATED),
        classify(DocInput.Kind.PUT, 200, "{\"result\":\"updated\"}"));
    assertEquals(
        DocOutput.of(DocOutput.Result.NOOP),
        classify(DocInput.Kind.UPDATE, 200, "{\"result\":\"noop\"}"));
    assertEquals(
        DocOutput.of(DocOutput.Result.DELETED),
        classify(DocInput.Kind.DELETE, 200, "{\"result\":\"deleted\"}"));
    assertNull(classify(DocInput.Kind.PUT, 200, "{}"), "a 2xx that says nothing");
  }

  @Test
  void the404sAndThe409OfTheMappingAreAnswers() throws Exception {
    assertEquals(
        DocOutput.notFound(), classify(DocInput.Kind.GET, 404, "{\"_id\":\"d0\",\"found\":false}"));
    assertEquals(
        DocOutput.notFound(), classify(DocInput.Kind.DELETE, 404, "{\"result\":\"not_found\"}"));
    assertEquals(
        DocOutput.notFound(),
        classify(
            DocInput.Kind.UPDATE, 404, "{\"error\":{\"type\":\"document_missing_exception\"}}"));
    assertEquals(
        DocOutput.of(DocOutput.Result.CONFLICT),
        classify(
            DocInput.Kind.CREATE,
            409,
            "{\"error\":{\"type\":\"version_conflict_engine_exception\"}}"));
  }

  @Test
  void otherErrorsAreNotAnswers() throws Exception {
    String lostIndex = "{\"error\":{\"type\":\"index_not_found_exception\"},\"status\":404}";
    for (DocInput.Kind k : DocInput.Kind.values()) {
      assertNull(classify(k, 404, lostIndex), k + " on a missing index");
      assertNull(classify(k, 400, "{\"error\":{\"type\":\"mapper_parsing_exception\"}}"), k.name());
    }
    assertNull(
        classify(
            DocInput.Kind.PUT, 409, "{\"error\":{\"type\":\"version_conflict_engine_exception\"}}"),
        "a conflict is an answer to a create only");
  }

  @Test
  void aFoundDocumentIsTheSourceAsAFieldTree() throws Exception {
    DocOutput out =
        classify(
            DocInput.Kind.GET,
            200,
            "{\"found\":true,\"_source\":{\"token\":\"c1-2\",\"n\":7,\"o\":{\"x\":1.5,\"l\":[1]}}}");
    assertEquals(
        DocOutput.found(
            Map.of("token", "c1-2", "n", 7L, "o", Map.of("x", 1.5, "l", java.util.List.of(1L)))),
        out);
  }
}
