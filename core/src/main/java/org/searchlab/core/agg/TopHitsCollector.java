package org.searchlab.core.agg;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.searchlab.core.Hit;
import org.searchlab.core.TotalHits;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.SortKey;

/**
 * {@code top_hits}: a bucket's best documents by score, or by its sort keys, ordered as {@link
 * Sorting} orders a search's hits (ties by leaf and document number, as Elasticsearch breaks them
 * by shard document order), then fetched. Stateless.
 */
final class TopHitsCollector {
  private TopHitsCollector() {}

  static AggregationResult topHits(
      Aggregation.TopHits t, Mapping mapping, AggregationSource source, MatchSet docs)
      throws IOException {
    List<SortKey> sort = t.sort().isEmpty() ? List.of(SortKey.BY_SCORE) : t.sort();
    List<Sorting.Sorted> top =
        Sorting.top(sort, List.of(), mapping, source, docs, t.from() + t.size());
    List<Hit> hits = new ArrayList<>();
    for (int i = t.from(); i < top.size(); i++) {
      Sorting.Sorted s = top.get(i);
      hits.add(source.leaves().get(s.leaf()).hit(s.doc(), s.score()));
    }
    return new AggregationResult.TopHitsResult(TotalHits.exact(docs.size()), hits);
  }
}
