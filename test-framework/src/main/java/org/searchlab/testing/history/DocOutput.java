package org.searchlab.testing.history;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.searchlab.core.WriteResult;

/**
 * What the server answered to a {@link DocInput}: a write's {@code result} or a get's document.
 * Immutable and thread-safe.
 *
 * @param result the answer
 * @param document the document a GET found; present exactly when {@code result} is {@link
 *     Result#FOUND}
 */
public record DocOutput(Result result, Optional<Map<String, Object>> document) {

  /** The answers, as the Elasticsearch dialect names them. */
  public enum Result {
    /** 201 {@code created}. */
    CREATED,
    /** 200 {@code updated}. */
    UPDATED,
    /** 200 {@code noop}: an update that changed nothing (the segmented store detects these). */
    NOOP,
    /** 200 {@code deleted}. */
    DELETED,
    /**
     * 404: a GET that found nothing ({@code found: false}), a DELETE of an absent document ({@code
     * not_found}), or an UPDATE of one ({@code document_missing_exception}, no effect).
     */
    NOT_FOUND,
    /** 409 {@code version_conflict_engine_exception}: a CREATE of a document that exists. */
    CONFLICT,
    /** 200 {@code found: true}, with the document's {@code _source}. */
    FOUND
  }

  public DocOutput {
    Objects.requireNonNull(result, "result");
    if ((result == Result.FOUND) != document.isPresent()) {
      throw new IllegalArgumentException(
          "a document comes with FOUND and only then: result [" + result + "], " + document);
    }
    document = document.map(d -> DocInput.put(d).fields());
  }

  /** A write's answer. */
  public static DocOutput of(Result result) {
    return new DocOutput(result, Optional.empty());
  }

  /** A write's answer, from the store's outcome. */
  public static DocOutput of(WriteResult.Outcome outcome) {
    return of(
        switch (outcome) {
          case CREATED -> Result.CREATED;
          case UPDATED -> Result.UPDATED;
          case DELETED -> Result.DELETED;
          case NOT_FOUND -> Result.NOT_FOUND;
          case NOOP -> Result.NOOP;
        });
  }

  /** A GET that found the document. */
  public static DocOutput found(Map<String, Object> document) {
    return new DocOutput(Result.FOUND, Optional.of(document));
  }

  /** A GET that found nothing. */
  public static DocOutput notFound() {
    return of(Result.NOT_FOUND);
  }

  @Override
  public String toString() {
    return document.map(Object::toString).orElse(result.name().toLowerCase(java.util.Locale.ROOT));
  }
}
