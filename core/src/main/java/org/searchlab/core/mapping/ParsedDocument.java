package org.searchlab.core.mapping;

import java.util.Collections;
import java.util.Map;
import org.searchlab.core.Document;

/**
 * A document read against a mapping: its source as stored (vectors as {@code float[]}), and the
 * values of each mapped leaf field it has, in the form both stores index:
 *
 * <ul>
 *   <li>{@code text} and {@code keyword} (and their multi-fields): {@code String[]}, one entry per
 *       value in source order (a keyword longer than its {@code ignore_above} left out);
 *   <li>integer types, {@code date} (epoch milliseconds) and {@code boolean} (1 or 0): {@code
 *       long[]};
 *   <li>{@code double} and {@code float} (rounded to float precision): {@code double[]};
 *   <li>{@code dense_vector}: {@code float[]}, as given (a store normalises a {@code cosine}
 *       field's copy).
 * </ul>
 *
 * A field without a value (absent, {@code null} or an empty array) has no entry. Immutable.
 *
 * @param document the document as stored
 * @param values the values by leaf path
 * @param mapping the mapping it was read against, with any dynamic additions
 * @param mappingChanged whether the document added fields to the mapping
 */
public record ParsedDocument(
    Document document, Map<String, Object> values, Mapping mapping, boolean mappingChanged) {
  public ParsedDocument {
    values = Collections.unmodifiableMap(values);
  }

  public String id() {
    return document.id();
  }

  /** The strings of a text or keyword field, or null. */
  public String[] strings(String path) {
    return values.get(path) instanceof String[] s ? s : null;
  }

  /** The values of an integer, date or boolean field, or null. */
  public long[] longs(String path) {
    return values.get(path) instanceof long[] l ? l : null;
  }

  /** The values of a double or float field, or null. */
  public double[] doubles(String path) {
    return values.get(path) instanceof double[] d ? d : null;
  }

  /** The vector of a dense_vector field, or null. */
  public float[] vector(String path) {
    return values.get(path) instanceof float[] f ? f : null;
  }
}
