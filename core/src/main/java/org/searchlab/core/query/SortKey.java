package org.searchlab.core.query;

import java.util.Objects;

/**
 * One key of a sort: a field ascending or descending, {@code _score} or {@code _doc}.
 *
 * @param field a numeric, date, boolean or keyword field, or {@code _score} or {@code _doc}
 * @param ascending the direction; Elasticsearch's default is descending for {@code _score} and
 *     ascending otherwise
 * @param missingFirst whether documents without a value come first; Elasticsearch's default ({@code
 *     _last}) puts them last whatever the direction
 * @param mode for a field with several values, which one sorts: {@code min} or {@code max}; null
 *     for Elasticsearch's default ({@code min} ascending, {@code max} descending)
 */
public record SortKey(String field, boolean ascending, boolean missingFirst, String mode) {
  public static final String SCORE = "_score";
  public static final String DOC = "_doc";
  public static final SortKey BY_SCORE = new SortKey(SCORE, false, false, null);

  public SortKey {
    Objects.requireNonNull(field, "field");
  }

  /** Whether a document's largest value sorts it. */
  public boolean usesMax() {
    return mode == null ? !ascending : mode.equals("max");
  }
}
