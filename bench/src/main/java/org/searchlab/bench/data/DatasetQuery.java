package org.searchlab.bench.data;

/**
 * One benchmark query made from a sampled document, as the reference benchmark makes them.
 * Immutable by convention: the vector array is shared and must not be modified.
 *
 * @param index position in {@code queries.ndjson}, 0-based
 * @param docOrdinal ordinal of the document the query was made from
 * @param docId id of that document
 * @param text the first 8 words of the document's title, quotes removed (the lexical query)
 * @param vector the document's own embedding (the vector query); shared, do not modify
 * @param category the document's category (the filter), or {@code null} if it has none
 */
public record DatasetQuery(
    int index, int docOrdinal, String docId, String text, float[] vector, String category) {}
