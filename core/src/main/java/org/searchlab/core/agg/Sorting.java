package org.searchlab.core.agg;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.searchlab.core.agg.AggregationSource.KeywordDictionary;
import org.searchlab.core.agg.AggregationSource.NumericValues;
import org.searchlab.core.agg.AggregationSource.OrdinalValues;
import org.searchlab.core.agg.MatchSet.LeafMatches;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.FieldValues;
import org.searchlab.core.query.SortKey;
import org.searchlab.core.query.SortValues;

/**
 * Sorts a match set by a request's sort keys, for a store without a sorting collector of its own
 * (the mutable store): each document's sort values as Elasticsearch reports them ({@link
 * SortValues}: the smallest value ascending, the largest descending, a missing number as the type's
 * extreme value, a missing keyword as null placed by {@code missing}), ties by leaf and document
 * number, then only the documents after {@code search_after}. Stateless.
 */
public final class Sorting {
  private Sorting() {}

  /** A sorted match: where it is, its score and its sort values. */
  public record Sorted(int leaf, int doc, float score, List<Object> values) {}

  /**
   * The first {@code n} matches in the keys' order that sort strictly after {@code searchAfter}
   * (empty for the first page).
   */
  public static List<Sorted> top(
      List<SortKey> keys,
      List<Object> searchAfter,
      Mapping mapping,
      AggregationSource source,
      MatchSet matches,
      int n)
      throws IOException {
    int k = keys.size();
    FieldType[] types = new FieldType[k];
    KeywordDictionary[] dicts = new KeywordDictionary[k];
    for (int i = 0; i < k; i++) {
      types[i] = mapping.leaf(keys.get(i).field());
      if (types[i] instanceof FieldType.Keyword) {
        dicts[i] = source.dictionary(keys.get(i).field());
      }
    }
    Object[] after = null;
    if (!searchAfter.isEmpty()) {
      after = new Object[k];
      for (int i = 0; i < k; i++) {
        after[i] = SortValues.coerce(keys.get(i), types[i], searchAfter.get(i));
      }
    }
    List<Sorted> all = new ArrayList<>();
    for (LeafMatches l : matches.leaves()) {
      Object[] readers = new Object[k];
      for (int i = 0; i < k; i++) {
        String f = keys.get(i).field();
        AggregationSource.Leaf leaf = source.leaves().get(l.leaf());
        readers[i] =
            types[i] instanceof FieldType.Keyword
                ? leaf.ordinals(f)
                : types[i] != null ? leaf.numbers(f) : null;
      }
      for (int j = 0; j < l.count(); j++) {
        Object[] values = new Object[k];
        for (int i = 0; i < k; i++) {
          values[i] =
              value(keys.get(i), types[i], readers[i], dicts[i], l.docs()[j], l.scores()[j]);
        }
        if (after != null && compare(keys, values, after) <= 0) {
          continue;
        }
        all.add(new Sorted(l.leaf(), l.docs()[j], l.scores()[j], Arrays.asList(values)));
      }
    }
    all.sort(
        (a, b) -> {
          int c = compare(keys, a.values().toArray(), b.values().toArray());
          if (c != 0) {
            return c;
          }
          return a.leaf() != b.leaf()
              ? Integer.compare(a.leaf(), b.leaf())
              : Integer.compare(a.doc(), b.doc());
        });
    return all.subList(0, Math.min(n, all.size()));
  }

  private static Object value(
      SortKey key, FieldType f, Object reader, KeywordDictionary dict, int doc, float score)
      throws IOException {
    if (key.field().equals(SortKey.SCORE)) {
      return score;
    }
    if (key.field().equals(SortKey.DOC)) {
      return (long) doc;
    }
    boolean max = key.usesMax();
    if (reader instanceof OrdinalValues ov && ov.advanceExact(doc)) {
      String best = null;
      for (int j = 0; j < ov.count(); j++) {
        String term = dict.term(ov.ord(j));
        if (best == null || (FieldValues.compareUtf8(term, best) > 0) == max) {
          best = term;
        }
      }
      return best;
    }
    if (reader instanceof NumericValues nv && nv.advanceExact(doc)) {
      int i = max ? nv.count() - 1 : 0;
      return AggregationEngine.isFloating(f)
          ? (Object) nv.doubleValue(i)
          : (Object) nv.longValue(i);
    }
    return SortValues.missing(key, f);
  }

  /** Orders two rows of sort values key by key, in each key's direction. */
  static int compare(List<SortKey> keys, Object[] a, Object[] b) {
    for (int i = 0; i < keys.size(); i++) {
      int c = compareMissingLast(a[i], b[i], keys.get(i));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  /** Compares two sort values in the key's direction, a missing keyword last (or first). */
  static int compareMissingLast(Object a, Object b, SortKey key) {
    if (a == null || b == null) {
      if (a == b) {
        return 0;
      }
      return (a == null) == key.missingFirst() ? -1 : 1;
    }
    int c = AggregationEngine.compareKeys(a, b);
    return key.ascending() ? c : -c;
  }
}
