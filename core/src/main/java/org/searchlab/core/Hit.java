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
 */
public record Hit(String id, float score, Document document) {
  /** A hit without its document. */
  public Hit(String id, float score) {
    this(id, score, null);
  }
}
