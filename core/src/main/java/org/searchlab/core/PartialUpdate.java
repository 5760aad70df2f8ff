package org.searchlab.core;

import java.util.Arrays;
import java.util.Objects;

/**
 * An assignment to some non-id fields of an existing document (Elasticsearch {@code _update} with
 * {@code doc}; Vespa {@code {"fields":{"price":{"assign":N}}}}). A {@code null} component means
 * "not assigned". Immutable by convention.
 */
public record PartialUpdate(
    String id,
    String title,
    String description,
    String category,
    Integer price,
    Float averageRating,
    float[] embedding) {

  /** An update that assigns nothing yet; add fields with the {@code with...} methods. */
  public static PartialUpdate of(String id) {
    return new PartialUpdate(id, null, null, null, null, null, null);
  }

  public PartialUpdate withTitle(String v) {
    return new PartialUpdate(id, v, description, category, price, averageRating, embedding);
  }

  public PartialUpdate withDescription(String v) {
    return new PartialUpdate(id, title, v, category, price, averageRating, embedding);
  }

  public PartialUpdate withCategory(String v) {
    return new PartialUpdate(id, title, description, v, price, averageRating, embedding);
  }

  public PartialUpdate withPrice(int v) {
    return new PartialUpdate(id, title, description, category, v, averageRating, embedding);
  }

  public PartialUpdate withAverageRating(float v) {
    return new PartialUpdate(id, title, description, category, price, v, embedding);
  }

  public PartialUpdate withEmbedding(float[] v) {
    return new PartialUpdate(id, title, description, category, price, averageRating, v);
  }

  /** True when no field is assigned. */
  public boolean isEmpty() {
    return title == null
        && description == null
        && category == null
        && price == null
        && averageRating == null
        && embedding == null;
  }

  /**
   * True when only attribute fields (category, price, average_rating) are assigned: such an update
   * needs no text analysis and no vector index work, and a mutable store applies it in place.
   */
  public boolean onlyAttributes() {
    return title == null && description == null && embedding == null;
  }

  /** The document after this update. */
  public Document applyTo(Document doc) {
    if (!doc.id().equals(id)) {
      throw new IllegalArgumentException("update of '" + id + "' applied to '" + doc.id() + "'");
    }
    return new Document(
        id,
        title != null ? title : doc.title(),
        description != null ? description : doc.description(),
        category != null ? category : doc.category(),
        price != null ? price : doc.price(),
        averageRating != null ? averageRating : doc.averageRating(),
        embedding != null ? embedding : doc.embedding());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartialUpdate u
        && id.equals(u.id)
        && Objects.equals(title, u.title)
        && Objects.equals(description, u.description)
        && Objects.equals(category, u.category)
        && Objects.equals(price, u.price)
        && Objects.equals(averageRating, u.averageRating)
        && Arrays.equals(embedding, u.embedding);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, title, description, category, price, averageRating)
        + 31 * Arrays.hashCode(embedding);
  }
}
