package org.searchlab.core;

import java.nio.charset.StandardCharsets;

/**
 * The one schema of the benchmark: {@code id} (string), {@code title} and {@code description}
 * (analysed text), {@code category} (keyword, filter only), {@code price} (int), {@code
 * average_rating} (float) and {@code embedding} (a float vector compared by dot product over unit
 * vectors; Elasticsearch {@code dot_product}, Vespa {@code prenormalized-angular}).
 *
 * <p>Immutable and thread-safe. Validation methods throw {@link InvalidRequestException} naming the
 * value and the limit, before anything is written.
 *
 * @param dimension the embedding dimension, 1 to {@value #MAX_DIMENSION}; the benchmark uses 384
 */
public record Schema(int dimension) {
  public static final String ID = "id";
  public static final String TITLE = "title";
  public static final String DESCRIPTION = "description";
  public static final String CATEGORY = "category";
  public static final String PRICE = "price";
  public static final String AVERAGE_RATING = "average_rating";
  public static final String EMBEDDING = "embedding";

  /** The text fields, in the order scoring visits them. */
  public static final java.util.List<String> TEXT_FIELDS = java.util.List.of(TITLE, DESCRIPTION);

  /** Lucene's limit for vector dimensions, which Elasticsearch also enforces (4096). */
  public static final int MAX_DIMENSION = 4096;

  /** Elasticsearch's limit on {@code _id}: 512 bytes of UTF-8. */
  public static final int MAX_ID_BYTES = 512;

  /**
   * Tolerance on the squared magnitude of a vector, as Elasticsearch checks {@code dot_product}
   * vectors: {@code |‖v‖² − 1| ≤ 1e-4}.
   */
  public static final float UNIT_TOLERANCE = 1e-4f;

  public static final int DEFAULT_DIMENSION = 384;

  public static final Schema DEFAULT = new Schema(DEFAULT_DIMENSION);

  public Schema {
    if (dimension < 1 || dimension > MAX_DIMENSION) {
      throw new InvalidRequestException(
          "embedding dimension " + dimension + " is outside [1, " + MAX_DIMENSION + "]");
    }
  }

  /**
   * The benchmark's mapping with this dimension ({@link
   * org.searchlab.core.mapping.Mapping#product}).
   */
  public org.searchlab.core.mapping.Mapping mapping() {
    return MAPPINGS.computeIfAbsent(dimension, org.searchlab.core.mapping.Mapping::product);
  }

  private static final java.util.concurrent.ConcurrentHashMap<
          Integer, org.searchlab.core.mapping.Mapping>
      MAPPINGS = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Reads a source against the benchmark's mapping, which is strict: a field it does not define, a
   * value that does not fit its field, a keyword too long to index are refused as Elasticsearch
   * refuses them.
   */
  private void parse(String id, java.util.Map<String, Object> source) {
    org.searchlab.core.mapping.DocumentParser.parse(
        mapping(), org.searchlab.core.analysis.TextAnalysis.NAME, new Document(id, source));
  }

  /** Rejects an id that is null, empty or longer than {@value #MAX_ID_BYTES} UTF-8 bytes. */
  public static String validateId(String id) {
    if (id == null || id.isEmpty()) {
      throw new InvalidRequestException("document id is missing; every document needs an id");
    }
    validateText("document id", id);
    int bytes = id.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_ID_BYTES) {
      throw new InvalidRequestException(
          "document id is " + bytes + " bytes long; the limit is " + MAX_ID_BYTES + " bytes");
    }
    return id;
  }

  /**
   * Rejects a string holding a lone UTF-16 surrogate: it has no UTF-8 form, so the log would store
   * {@code ?} in its place and a restart would bring back another document ({@code "x"} and the
   * surrogate U+D800 becoming {@code "x?"}). JSON allows a parser to refuse them (RFC 8259, section
   * 8.2).
   */
  public static String validateText(String what, String s) {
    if (s == null) {
      return null;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new InvalidRequestException(
            what
                + " holds a lone UTF-16 surrogate \\u"
                + Integer.toHexString(c)
                + " at index "
                + i
                + "; text must be valid Unicode");
      }
    }
    return s;
  }

  /**
   * Rejects a vector of the wrong dimension, with a NaN or infinite component, or that is not unit
   * length within {@link #UNIT_TOLERANCE} (dot product is only a similarity on unit vectors).
   */
  public float[] validateVector(String what, float[] vector) {
    if (vector == null) {
      throw new InvalidRequestException(what + " is missing");
    }
    if (vector.length != dimension) {
      throw new InvalidRequestException(
          what + " has " + vector.length + " dimensions; the schema has " + dimension);
    }
    double squared = 0;
    for (int i = 0; i < vector.length; i++) {
      float v = vector[i];
      if (!Float.isFinite(v)) {
        throw new InvalidRequestException(
            what + "[" + i + "] is " + v + "; only finite values are allowed");
      }
      squared += (double) v * v;
    }
    if (Math.abs(squared - 1.0) > UNIT_TOLERANCE) {
      throw new InvalidRequestException(
          what
              + " has squared magnitude "
              + (float) squared
              + "; dot-product similarity needs unit vectors (|‖v‖² − 1| ≤ "
              + UNIT_TOLERANCE
              + ")");
    }
    return vector;
  }

  /** Validates a whole document; returns it unchanged. */
  public Document validate(Document doc) {
    if (doc == null) {
      throw new InvalidRequestException("document is missing");
    }
    validateId(doc.id());
    validateText("title of document '" + doc.id() + "'", doc.title());
    validateText("description of document '" + doc.id() + "'", doc.description());
    validateText("category of document '" + doc.id() + "'", doc.category());
    if (doc.embedding() != null) {
      validateVector("embedding of document '" + doc.id() + "'", doc.embedding());
    }
    if (!Float.isFinite(doc.averageRating())) {
      throw new InvalidRequestException(
          "average_rating of document '"
              + doc.id()
              + "' is "
              + doc.averageRating()
              + "; only finite values are allowed");
    }
    parse(doc.id(), doc.source());
    return doc;
  }

  /** Validates a partial update; returns it unchanged. */
  public PartialUpdate validate(PartialUpdate update) {
    if (update == null) {
      throw new InvalidRequestException("update is missing");
    }
    validateId(update.id());
    if (update.isEmpty()) {
      throw new InvalidRequestException(
          "update of document '" + update.id() + "' assigns no field");
    }
    validateText("title of update '" + update.id() + "'", update.title());
    validateText("description of update '" + update.id() + "'", update.description());
    validateText("category of update '" + update.id() + "'", update.category());
    if (update.embedding() != null) {
      validateVector("embedding of update '" + update.id() + "'", update.embedding());
    }
    if (update.averageRating() != null && !Float.isFinite(update.averageRating())) {
      throw new InvalidRequestException(
          "average_rating of update '"
              + update.id()
              + "' is "
              + update.averageRating()
              + "; only finite values are allowed");
    }
    parse(update.id(), update.doc());
    return update;
  }

  /** Validates any operation; returns it unchanged. */
  public Operation validate(Operation op) {
    if (op == null) {
      throw new InvalidRequestException("operation is missing");
    }
    switch (op) {
      case Operation.Put put -> validate(put.document());
      case Operation.Update upd -> validate(upd.update());
      case Operation.Delete del -> validateId(del.id());
    }
    return op;
  }
}
