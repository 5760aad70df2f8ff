package org.searchlab.bench.experiment;

/**
 * One benchmark query, made as the benchmark made them from a sampled product: the first 8 words of
 * its title (quotes removed), its own embedding and its category as the filter. Immutable by
 * convention (the vector must not be modified).
 *
 * @param text query text for the lexical part
 * @param vector unit query vector for the vector part
 * @param category category for the filtered variant
 * @param sourceId id of the product the query was made from
 */
public record BenchQuery(String text, float[] vector, String category, String sourceId) {

  /** The benchmark's query text: the first {@code words} whitespace words, quotes removed. */
  public static String queryText(String title, int words) {
    String[] w = title.replace("\"", "").trim().split("\\s+");
    return String.join(" ", java.util.Arrays.copyOf(w, Math.min(words, w.length)));
  }
}
