package org.searchlab.core;

import java.util.Arrays;
import java.util.Objects;

/**
 * One product: the benchmark's fields. Immutable by convention (the embedding array must not be
 * modified after construction; stores may share it).
 *
 * @param id external id, 1 to 512 UTF-8 bytes
 * @param title analysed text; never null ({@code ""} when absent)
 * @param description analysed text; never null ({@code ""} when absent)
 * @param category keyword used only as a filter; {@code null} when the document has none (it then
 *     matches no category filter)
 * @param price price in cents
 * @param averageRating finite rating
 * @param embedding unit-length vector of the schema's dimension, or {@code null} when the document
 *     has none (it then never appears among vector hits)
 */
public record Document(
    String id,
    String title,
    String description,
    String category,
    int price,
    float averageRating,
    float[] embedding) {

  public Document {
    title = title == null ? "" : title;
    description = description == null ? "" : description;
  }

  /** Whether the document has a vector. */
  public boolean hasEmbedding() {
    return embedding != null;
  }

  /** A copy with one field set, for tests and updates. */
  public Document withPrice(int newPrice) {
    return new Document(id, title, description, category, newPrice, averageRating, embedding);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Document d
        && price == d.price
        && Float.compare(averageRating, d.averageRating) == 0
        && id.equals(d.id)
        && title.equals(d.title)
        && description.equals(d.description)
        && Objects.equals(category, d.category)
        && Arrays.equals(embedding, d.embedding);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, title, description, category, price, averageRating)
        + 31 * Arrays.hashCode(embedding);
  }

  @Override
  public String toString() {
    return "Document[id="
        + id
        + ", title="
        + title
        + ", category="
        + category
        + ", price="
        + price
        + ", average_rating="
        + averageRating
        + ", embedding="
        + (embedding == null ? "none" : embedding.length + "-d")
        + "]";
  }
}
