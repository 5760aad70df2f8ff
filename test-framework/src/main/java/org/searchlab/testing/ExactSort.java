package org.searchlab.testing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.FieldValues;
import org.searchlab.core.query.SortKey;

/**
 * The reference for {@code sort} and {@code search_after}, as Elasticsearch defines them: a field
 * sorts by its smallest value ascending and its largest descending (or by {@code mode}); a document
 * without a value sorts last (or first with {@code missing: _first}) and reports the value
 * Elasticsearch substitutes for it (the type's largest or smallest number; null for a keyword);
 * {@code _score} descending by default. Ties after every key are broken by id here; a store breaks
 * them by its own document order, so tests compare sort values, not ids, where keys tie. Stateless.
 */
final class ExactSort {
  private ExactSort() {}

  /** A document's values of a field, ascending. */
  interface Values {
    List<Object> of(int ord, String field);
  }

  /** The sort values of a document, one per key. */
  static List<Object> sortValues(
      List<SortKey> keys, Mapping mapping, Values values, int ord, float score, String id) {
    List<Object> out = new ArrayList<>(keys.size());
    for (SortKey k : keys) {
      out.add(sortValue(k, mapping, values, ord, score));
    }
    return out;
  }

  static Object sortValue(SortKey k, Mapping mapping, Values values, int ord, float score) {
    if (k.field().equals(SortKey.SCORE)) {
      return score;
    }
    if (k.field().equals(SortKey.DOC)) {
      return (long) ord;
    }
    FieldType f = mapping.leaf(k.field());
    List<Object> vs = values.of(ord, k.field());
    if (vs.isEmpty()) {
      if (f instanceof FieldType.Keyword || f == null) {
        return null;
      }
      boolean high = k.ascending() != k.missingFirst();
      if (f instanceof FieldType.Numeric n && !n.type().integral()) {
        return high ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
      }
      return high ? Long.MAX_VALUE : Long.MIN_VALUE;
    }
    List<Object> sorted = new ArrayList<>(vs);
    sorted.sort(ExactAggregations::compare);
    return k.usesMax() ? sorted.get(sorted.size() - 1) : sorted.get(0);
  }

  /** Compares two sort values under a key: direction applied, keyword nulls last or first. */
  static int compare(SortKey k, Object a, Object b) {
    if (a == null || b == null) {
      if (a == b) {
        return 0;
      }
      return (a == null) == k.missingFirst() ? -1 : 1;
    }
    int c =
        a instanceof String x && b instanceof String y
            ? FieldValues.compareUtf8(x, y)
            : ExactAggregations.compare(a, b);
    return k.ascending() ? c : -c;
  }

  /** Orders a whole list of sort values key by key. */
  static int compare(List<SortKey> keys, List<Object> a, List<Object> b) {
    for (int i = 0; i < keys.size(); i++) {
      int c = compare(keys.get(i), a.get(i), b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  /** A comparator of matches by the keys, then by id. */
  static Comparator<ExactAggregations.Match> comparator(
      List<SortKey> keys, Mapping mapping, Values values, ExactCorpus corpus) {
    return (x, y) -> {
      int c =
          compare(
              keys,
              sortValues(keys, mapping, values, x.ord(), x.score(), null),
              sortValues(keys, mapping, values, y.ord(), y.score(), null));
      return c != 0 ? c : corpus.at(x.ord()).id().compareTo(corpus.at(y.ord()).id());
    };
  }
}
