package org.searchlab.core.agg;

import java.io.IOException;
import java.util.List;
import org.searchlab.core.Hit;
import org.searchlab.core.query.Query;

/**
 * What a store gives {@link Aggregations} to read its documents' values from, in the point-in-time
 * view of one search: its leaves (the segmented store's segments; the mutable store's one index),
 * each with per-field value readers, and a dictionary per keyword field that numbers its values
 * across all leaves (Elasticsearch's global ordinals; Vespa's enumerated attribute). This is the
 * one place the two architectures differ for aggregations: per-segment doc values mapped to global
 * ordinals, or one column over every document. One source per search; not thread-safe.
 */
public interface AggregationSource {
  /** The leaves, in the order {@link MatchSet} numbers them. */
  List<? extends Leaf> leaves();

  /**
   * The values of a keyword field across the whole view, numbered 0 to {@code size() − 1}, or null
   * when no document has a value.
   */
  KeywordDictionary dictionary(String field) throws IOException;

  /** One leaf: documents numbered from 0 to {@link #maxDoc()} − 1. */
  interface Leaf {
    /** One more than the largest document number. */
    int maxDoc();

    /**
     * A reader of a keyword field's values as ordinals of its {@link #dictionary}, or null when no
     * document of this leaf has one. Read documents in increasing order.
     */
    OrdinalValues ordinals(String field) throws IOException;

    /**
     * A reader of a numeric, date or boolean field's values (booleans as 1 and 0, dates as epoch
     * milliseconds), or null when no document of this leaf has one. Read documents in increasing
     * order.
     */
    NumericValues numbers(String field) throws IOException;

    /** Which documents of this leaf match a query; ask in increasing order. */
    DocMatcher matcher(Query query) throws IOException;

    /** A document as a hit for {@code top_hits}: its id, the score and its stored document. */
    Hit hit(int doc, float score) throws IOException;
  }

  /** A keyword field's values by ordinal. */
  interface KeywordDictionary {
    /** How many ordinals there are. */
    long size();

    /** The value of an ordinal. */
    String term(long ord) throws IOException;
  }

  /** One keyword field's values per document, as dictionary ordinals. */
  interface OrdinalValues {
    /** Positions on {@code doc}; whether it has a value. */
    boolean advanceExact(int doc) throws IOException;

    /** How many distinct values the current document has. */
    int count();

    /** Its {@code i}-th distinct ordinal, in no particular order. */
    long ord(int i) throws IOException;
  }

  /** One numeric field's values per document. */
  interface NumericValues {
    /** Positions on {@code doc}; whether it has a value. */
    boolean advanceExact(int doc) throws IOException;

    /** How many values the current document has, repeats included. */
    int count();

    /**
     * Its {@code i}-th value in ascending order: the long of an integer, date or boolean field, or
     * the double of a floating-point field as a double (call the one the mapping's type says).
     */
    long longValue(int i) throws IOException;

    /** Its {@code i}-th value as a double, in ascending order. */
    double doubleValue(int i) throws IOException;
  }

  /** Which documents of a leaf match one query. */
  interface DocMatcher {
    boolean matches(int doc) throws IOException;
  }
}
