package org.searchlab.segmented;

/**
 * How the segmented store applies a partial update. Immutable.
 *
 * <ul>
 *   <li>{@link #REINDEX}: Elasticsearch's way: read the stored source, apply the assignment and
 *       re-index the whole document ({@code IndexWriter.updateDocument}), which re-analyses the
 *       text and re-inserts the vector into a new segment's HNSW graph.
 *   <li>{@link #DOCVALUES}: when the update assigns only {@code price} and/or {@code
 *       average_rating} (doc-values-only fields), rewrite just those doc values ({@code
 *       IndexWriter.updateDocValues}); any other update falls back to {@link #REINDEX}. Cheaper per
 *       update; Elasticsearch does not offer it.
 * </ul>
 */
public enum PartialUpdateMode {
  REINDEX,
  DOCVALUES;

  /** Parses {@code reindex} or {@code docvalues} (case-insensitive). */
  public static PartialUpdateMode parse(String name) {
    return CliNames.parse(PartialUpdateMode.class, "partial update mode", name);
  }
}
