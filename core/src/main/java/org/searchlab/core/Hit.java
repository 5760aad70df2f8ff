package org.searchlab.core;

/**
 * One search hit: the external id, its score under the request's rank profile and, when the request
 * asked for it ({@link SearchRequest#fetchDocuments()}), the stored document as it was in the
 * point-in-time view the hit was scored in. Immutable.
 *
 * @param id external document id
 * @param score the score; higher is better
 * @param document the version of the document that was scored, or {@code null} when the request did
 *     not ask for documents
 * @param sortValues for a sorted search, the values the hit sorted by, one per sort key
 *     (Elasticsearch's {@code sort} of a hit: a {@code Long} for integer, date and boolean fields,
 *     a {@code Double} for floating-point ones, a {@code String} for keywords, a {@code Float} for
 *     {@code _score}, a {@code Long} for {@code _doc}, null for a missing value); empty otherwise
 */
public record Hit(String id, float score, Document document, java.util.List<Object> sortValues) {
  public Hit {
    sortValues =
        sortValues == null || sortValues.isEmpty()
            ? java.util.List.of()
            : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(sortValues));
  }

  /** A hit of a search by score. */
  public Hit(String id, float score, Document document) {
    this(id, score, document, java.util.List.of());
  }

  /** A hit without its document. */
  public Hit(String id, float score) {
    this(id, score, null);
  }

  /** This hit with its document. */
  public Hit withDocument(Document doc) {
    return new Hit(id, score, doc, sortValues);
  }
}
