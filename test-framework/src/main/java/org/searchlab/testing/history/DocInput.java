package org.searchlab.testing.history;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a client asked of one document over the HTTP API: the input of a {@link DocumentModel}
 * operation (the document id is the operation's key).
 *
 * <p>Field values are JSON trees of {@code null}, {@link String}, {@link Boolean}, {@link Long},
 * {@link Double}, {@link java.math.BigDecimal}, {@link List} and {@link Map} with string keys, all
 * with value {@code equals}: the checker compares and hashes states by it. Primitive arrays (the
 * compact forms {@code org.searchlab.core.Source} uses) are refused; a recorder converts them to
 * lists. Immutable and thread-safe.
 *
 * @param kind the call
 * @param fields the whole document (PUT, CREATE), the partial document (UPDATE), or empty (DELETE,
 *     GET)
 */
public record DocInput(Kind kind, Map<String, Object> fields) {

  /** The calls of the workload, each on one document. */
  public enum Kind {
    /** {@code PUT /{index}/_doc/{id}}: create or replace the whole document. */
    PUT,
    /** {@code PUT /{index}/_doc/{id}?op_type=create}: create only if absent, else 409. */
    CREATE,
    /**
     * {@code POST /{index}/_update/{id}} with a {@code doc}: merge into an existing document
     * (objects key by key, as {@code Source.merge}); 404 {@code document_missing_exception} when
     * absent.
     */
    UPDATE,
    /** {@code DELETE /{index}/_doc/{id}}. */
    DELETE,
    /**
     * {@code GET /{index}/_doc/{id}}: always real-time in both stores (the {@code realtime}
     * parameter is accepted and changes nothing), so it must see the latest acknowledged write.
     */
    GET
  }

  public DocInput {
    Objects.requireNonNull(kind, "kind");
    if ((kind == Kind.DELETE || kind == Kind.GET) && !fields.isEmpty()) {
      throw new IllegalArgumentException(kind + " takes no fields, got " + fields.keySet());
    }
    for (Map.Entry<String, Object> e : fields.entrySet()) {
      requireTree(e.getKey(), e.getValue());
    }
    fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
  }

  /** A whole-document write. */
  public static DocInput put(Map<String, Object> document) {
    return new DocInput(Kind.PUT, document);
  }

  /** A create-if-absent. */
  public static DocInput create(Map<String, Object> document) {
    return new DocInput(Kind.CREATE, document);
  }

  /** A partial update. */
  public static DocInput update(Map<String, Object> partial) {
    return new DocInput(Kind.UPDATE, partial);
  }

  /** A delete. */
  public static DocInput delete() {
    return new DocInput(Kind.DELETE, Map.of());
  }

  /** A real-time get. */
  public static DocInput get() {
    return new DocInput(Kind.GET, Map.of());
  }

  /** Whether this call can change the document. */
  public boolean writes() {
    return kind != Kind.GET;
  }

  private static void requireTree(String path, Object v) {
    switch (v) {
      case null -> {}
      case String s -> {}
      case Boolean b -> {}
      case Long l -> {}
      case Double d -> {}
      case java.math.BigDecimal d -> {}
      case List<?> list -> {
        for (Object o : list) {
          requireTree(path + "[]", o);
        }
      }
      case Map<?, ?> m -> {
        for (Map.Entry<?, ?> e : m.entrySet()) {
          if (!(e.getKey() instanceof String k)) {
            throw new IllegalArgumentException("field [" + path + "] has a non-string key");
          }
          requireTree(path + "." + k, e.getValue());
        }
      }
      default ->
          throw new IllegalArgumentException(
              "field ["
                  + path
                  + "] holds a "
                  + v.getClass().getSimpleName()
                  + "; only null, String, Boolean, Long, Double, BigDecimal, List and Map compare"
                  + " by value");
    }
  }

  @Override
  public String toString() {
    return kind.name().toLowerCase(java.util.Locale.ROOT) + (fields.isEmpty() ? "" : fields);
  }
}
