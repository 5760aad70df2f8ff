package org.searchlab.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * An assignment to some fields of an existing document (Elasticsearch {@code _update} with {@code
 * doc}; Vespa {@code {"fields":{"price":{"assign":N}}}}): a partial source merged into the
 * document's as Elasticsearch merges a {@code doc} ({@link Source#merge}: objects key by key, other
 * values replaced, {@code null} included). Immutable by convention.
 *
 * <p>The benchmark's product fields have builders of their own ({@link #withPrice}, ...) and
 * accessors that answer null for a field the update does not assign.
 *
 * @param id the document's external id
 * @param doc the partial source
 */
public record PartialUpdate(String id, Map<String, Object> doc) {
  public PartialUpdate {
    doc = Collections.unmodifiableMap(Objects.requireNonNull(doc, "doc"));
  }

  /** An update that assigns nothing yet; add fields with the {@code with...} methods. */
  public static PartialUpdate of(String id) {
    return new PartialUpdate(id, Map.of());
  }

  /** This update with {@code field} (a top-level name) assigned {@code value}. */
  public PartialUpdate with(String field, Object value) {
    Map<String, Object> d = new LinkedHashMap<>(doc);
    d.put(field, value);
    return new PartialUpdate(id, d);
  }

  public PartialUpdate withTitle(String v) {
    return with(Schema.TITLE, v);
  }

  public PartialUpdate withDescription(String v) {
    return with(Schema.DESCRIPTION, v);
  }

  public PartialUpdate withCategory(String v) {
    return with(Schema.CATEGORY, v);
  }

  public PartialUpdate withPrice(int v) {
    return with(Schema.PRICE, (long) v);
  }

  public PartialUpdate withAverageRating(float v) {
    return with(Schema.AVERAGE_RATING, (double) v);
  }

  public PartialUpdate withEmbedding(float[] v) {
    return with(Schema.EMBEDDING, v);
  }

  /** The assigned {@code title}, or null. */
  public String title() {
    return doc.get(Schema.TITLE) instanceof String s ? s : null;
  }

  public String description() {
    return doc.get(Schema.DESCRIPTION) instanceof String s ? s : null;
  }

  public String category() {
    return doc.get(Schema.CATEGORY) instanceof String s ? s : null;
  }

  public Integer price() {
    return doc.get(Schema.PRICE) instanceof Number n ? n.intValue() : null;
  }

  public Float averageRating() {
    return doc.get(Schema.AVERAGE_RATING) instanceof Number n ? n.floatValue() : null;
  }

  public float[] embedding() {
    return Source.floats(doc.get(Schema.EMBEDDING));
  }

  /** True when no field is assigned. */
  public boolean isEmpty() {
    return doc.isEmpty();
  }

  /**
   * True when only the product's attribute fields (category, price, average_rating) are assigned:
   * such an update needs no text analysis and no vector index work.
   */
  public boolean onlyAttributes() {
    for (String k : doc.keySet()) {
      if (!k.equals(Schema.CATEGORY)
          && !k.equals(Schema.PRICE)
          && !k.equals(Schema.AVERAGE_RATING)) {
        return false;
      }
    }
    return true;
  }

  /** The document after this update. */
  public Document applyTo(Document d) {
    if (!d.id().equals(id)) {
      throw new IllegalArgumentException("update of '" + id + "' applied to '" + d.id() + "'");
    }
    return d.withSource(Source.merge(d.source(), doc));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartialUpdate u && id.equals(u.id) && Source.deepEquals(doc, u.doc);
  }

  @Override
  public int hashCode() {
    return id.hashCode() * 31 + Source.deepHash(doc);
  }
}
