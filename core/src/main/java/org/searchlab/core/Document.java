package org.searchlab.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One document: an external id and its source, the JSON object a client sent (Elasticsearch's
 * {@code _source}, Vespa's {@code fields}), as a {@link Source} tree. What the fields mean is the
 * index's mapping's business: a store reads the source against it ({@link
 * org.searchlab.core.mapping.DocumentParser}). Immutable by convention: the source and its arrays
 * must not be modified after construction; stores may share them.
 *
 * <p>The benchmark's product fields have accessors and a constructor of their own ({@link
 * #title()}, {@link #price()}, ...), which read and write the source's {@code title}, {@code
 * description}, {@code category}, {@code price}, {@code average_rating} and {@code embedding}.
 */
public final class Document {
  private final String id;
  private final Map<String, Object> source;

  /**
   * @param id external id, 1 to 512 UTF-8 bytes
   * @param source the fields, as a {@link Source} tree
   */
  public Document(String id, Map<String, Object> source) {
    this.id = id;
    this.source = Collections.unmodifiableMap(Objects.requireNonNull(source, "source"));
  }

  /**
   * A product of the benchmark: {@code title}, {@code description}, {@code category} (omitted when
   * null), {@code price}, {@code average_rating} (the float's value) and {@code embedding} (omitted
   * when null).
   */
  public Document(
      String id,
      String title,
      String description,
      String category,
      int price,
      float averageRating,
      float[] embedding) {
    this(id, product(title, description, category, price, averageRating, embedding));
  }

  private static Map<String, Object> product(
      String title,
      String description,
      String category,
      int price,
      float averageRating,
      float[] embedding) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put(Schema.TITLE, title == null ? "" : title);
    s.put(Schema.DESCRIPTION, description == null ? "" : description);
    if (category != null) {
      s.put(Schema.CATEGORY, category);
    }
    s.put(Schema.PRICE, (long) price);
    s.put(Schema.AVERAGE_RATING, (double) averageRating);
    if (embedding != null) {
      s.put(Schema.EMBEDDING, embedding);
    }
    return s;
  }

  public String id() {
    return id;
  }

  /** The source tree, unmodifiable. */
  public Map<String, Object> source() {
    return source;
  }

  /** The source value at a dotted path, or null ({@link Source#get}). */
  public Object value(String path) {
    return Source.get(source, path);
  }

  /** This document with another source. */
  public Document withSource(Map<String, Object> newSource) {
    return new Document(id, newSource);
  }

  /** The product's {@code title}, {@code ""} when absent. */
  public String title() {
    return source.get(Schema.TITLE) instanceof String s ? s : "";
  }

  /** The product's {@code description}, {@code ""} when absent. */
  public String description() {
    return source.get(Schema.DESCRIPTION) instanceof String s ? s : "";
  }

  /** The product's {@code category}, or null. */
  public String category() {
    return source.get(Schema.CATEGORY) instanceof String s ? s : null;
  }

  /** The product's {@code price}, 0 when absent. */
  public int price() {
    return source.get(Schema.PRICE) instanceof Number n ? n.intValue() : 0;
  }

  /** The product's {@code average_rating}, 0 when absent. */
  public float averageRating() {
    return source.get(Schema.AVERAGE_RATING) instanceof Number n ? n.floatValue() : 0f;
  }

  /** The product's {@code embedding}, or null. */
  public float[] embedding() {
    return Source.floats(source.get(Schema.EMBEDDING));
  }

  /** Whether the product has an {@code embedding}. */
  public boolean hasEmbedding() {
    return source.get(Schema.EMBEDDING) != null;
  }

  /** A copy with the product's {@code price} set, for tests and updates. */
  public Document withPrice(int newPrice) {
    Map<String, Object> s = new LinkedHashMap<>(source);
    s.put(Schema.PRICE, (long) newPrice);
    return new Document(id, s);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Document d && id.equals(d.id) && Source.deepEquals(source, d.source);
  }

  @Override
  public int hashCode() {
    return id.hashCode() * 31 + Source.deepHash(source);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("Document[id=").append(id);
    for (Map.Entry<String, Object> e : source.entrySet()) {
      Object v = e.getValue();
      String shown =
          switch (v) {
            case float[] f -> f.length + "-d";
            case double[] d -> d.length + " numbers";
            case long[] l -> l.length + " integers";
            case String s -> s.length() > 40 ? s.substring(0, 37) + "..." : s;
            case null -> "null";
            default -> String.valueOf(v);
          };
      sb.append(", ").append(e.getKey()).append('=').append(shown);
      if (sb.length() > 400) {
        sb.append(", ...");
        break;
      }
    }
    return sb.append(']').toString();
  }
}
