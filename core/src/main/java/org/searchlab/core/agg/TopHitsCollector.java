package org.searchlab.core.agg;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.searchlab.core.Hit;
import org.searchlab.core.TotalHits;
import org.searchlab.core.agg.AggregationSource.KeywordDictionary;
import org.searchlab.core.agg.AggregationSource.NumericValues;
import org.searchlab.core.agg.AggregationSource.OrdinalValues;
import org.searchlab.core.agg.MatchSet.LeafMatches;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.FieldValues;
import org.searchlab.core.query.SortKey;

/**
 * {@code top_hits}: a bucket's best documents by score, or by its sort keys (a field's smallest
 * value ascending, largest descending unless {@code mode} says otherwise; documents without one
 * last), ties by leaf and document number as Elasticsearch breaks them by shard document order.
 * Stateless.
 */
final class TopHitsCollector {
  private TopHitsCollector() {}

  private record Entry(int leaf, int doc, float score, Object[] values) {}

  static AggregationResult topHits(
      Aggregation.TopHits t, Mapping mapping, AggregationSource source, MatchSet docs)
      throws IOException {
    List<SortKey> sort = t.sort().isEmpty() ? List.of(SortKey.BY_SCORE) : t.sort();
    List<Entry> entries = new ArrayList<>((int) Math.min(docs.size(), 1 << 20));
    KeywordDictionary[] dicts = new KeywordDictionary[sort.size()];
    for (int k = 0; k < sort.size(); k++) {
      if (mapping.leaf(sort.get(k).field()) instanceof FieldType.Keyword) {
        dicts[k] = source.dictionary(sort.get(k).field());
      }
    }
    for (LeafMatches l : docs.leaves()) {
      Object[] readers = new Object[sort.size()];
      for (int k = 0; k < sort.size(); k++) {
        FieldType f = mapping.leaf(sort.get(k).field());
        AggregationSource.Leaf leaf = source.leaves().get(l.leaf());
        readers[k] =
            f instanceof FieldType.Keyword
                ? leaf.ordinals(sort.get(k).field())
                : f != null ? leaf.numbers(sort.get(k).field()) : null;
      }
      for (int i = 0; i < l.count(); i++) {
        Object[] values = new Object[sort.size()];
        for (int k = 0; k < sort.size(); k++) {
          values[k] =
              sortValue(
                  sort.get(k),
                  readers[k],
                  AggregationEngine.isFloating(mapping.leaf(sort.get(k).field())),
                  l.docs()[i],
                  dicts[k]);
        }
        entries.add(new Entry(l.leaf(), l.docs()[i], l.scores()[i], values));
      }
    }
    Comparator<Entry> order = null;
    for (int k = 0; k < sort.size(); k++) {
      SortKey key = sort.get(k);
      int index = k;
      Comparator<Entry> one =
          switch (key.field()) {
            case SortKey.SCORE -> Comparator.comparingDouble(e -> e.score());
            case SortKey.DOC ->
                Comparator.<Entry>comparingInt(e -> e.leaf()).thenComparingInt(e -> e.doc());
            default -> (a, b) -> compareMissingLast(a.values()[index], b.values()[index], key);
          };
      boolean special = key.field().equals(SortKey.SCORE) || key.field().equals(SortKey.DOC);
      if (special && !key.ascending()) {
        one = one.reversed(); // a field's direction is applied in compareMissingLast
      }
      order = order == null ? one : order.thenComparing(one);
    }
    order = order.thenComparingInt((Entry e) -> e.leaf()).thenComparingInt((Entry e) -> e.doc());
    entries.sort(order);
    List<Hit> hits = new ArrayList<>();
    for (int i = t.from(); i < Math.min(entries.size(), t.from() + t.size()); i++) {
      Entry e = entries.get(i);
      hits.add(source.leaves().get(e.leaf()).hit(e.doc(), e.score()));
    }
    return new AggregationResult.TopHitsResult(TotalHits.exact(docs.size()), hits);
  }

  /** The value a document sorts by under {@code key}, or null when it has none. */
  private static Object sortValue(
      SortKey key, Object reader, boolean floating, int doc, KeywordDictionary dict)
      throws IOException {
    boolean max = key.usesMax();
    if (reader instanceof OrdinalValues ov) {
      if (!ov.advanceExact(doc)) {
        return null;
      }
      String best = null;
      for (int j = 0; j < ov.count(); j++) {
        String term = dict.term(ov.ord(j));
        if (best == null || (FieldValues.compareUtf8(term, best) > 0) == max) {
          best = term;
        }
      }
      return best;
    }
    if (reader instanceof NumericValues nv) {
      if (!nv.advanceExact(doc)) {
        return null;
      }
      int i = max ? nv.count() - 1 : 0;
      return floating ? (Object) nv.doubleValue(i) : (Object) nv.longValue(i);
    }
    return null;
  }

  /** Compares two sort values in the key's direction, documents without one last (or first). */
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
