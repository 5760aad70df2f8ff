package org.searchlab.segmented;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.HitQueue;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSelector;
import org.apache.lucene.search.SortedNumericSortField;
import org.apache.lucene.search.SortedSetSelector;
import org.apache.lucene.search.SortedSetSortField;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.util.BytesRef;
import org.searchlab.core.Document;
import org.searchlab.core.Hit;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.Timings;
import org.searchlab.core.TotalHits;
import org.searchlab.core.agg.AggregationResult;
import org.searchlab.core.agg.Aggregations;
import org.searchlab.core.agg.MatchSet;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.SortKey;
import org.searchlab.core.query.SortValues;

/**
 * A search that must see every match: one with aggregations or a sort. Every match of the parts'
 * union is collected with its final score (the summed score; under reciprocal rank fusion its fused
 * score, 0 outside the windows) into a {@link MatchSet} for {@link Aggregations}; the hits are the
 * top by score, or by the request's sort through Lucene's own {@link TopFieldCollectorManager} (doc
 * values per segment, with {@code search_after} as a {@link FieldDoc} that every later hit sorts
 * after, ties by document number) as Elasticsearch sorts. Stateless.
 */
final class SortedSearch {
  private SortedSearch() {}

  static SearchResult search(
      IndexSearcher searcher,
      SearchRequest req,
      Mapping mapping,
      DocumentFields fields,
      LuceneQueries queries,
      SegmentedAggregationSource.GlobalOrdinals ordinals,
      List<Query> parts,
      Query union,
      long start,
      QueryPlan plan,
      long lexicalNanos,
      long vectorNanos)
      throws IOException {
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    Matches all = searcher.search(union, new AllMatches());
    if (req.rank().isRrf()) {
      Map<Integer, Float> fused = new HashMap<>();
      int window = Math.max(1, req.rrfWindow());
      for (Query part : parts) {
        ScoreDoc[] top = SegmentedSearcher.collect(searcher, part, window, req).docs();
        for (int i = 0; i < Math.min(window, top.length); i++) {
          fused.merge(top[i].doc, 1f / (req.rank().rankConstant() + i + 1), Float::sum);
        }
      }
      for (int i = 0; i < all.count; i++) {
        all.scores[i] = fused.getOrDefault(leaves.get(all.leaf[i]).docBase + all.doc[i], 0f);
      }
    }
    long n = all.count;
    TotalHits total =
        n > req.trackTotalHitsUpTo()
            ? TotalHits.atLeast(req.trackTotalHitsUpTo())
            : TotalHits.exact(n);
    List<Hit> hits;
    int window = req.offset() + req.hits();
    if (req.sorted()) {
      hits = sortedHits(searcher, req, mapping, fields, union, Math.max(1, window));
    } else {
      hits = scoredHits(searcher, req, fields, all, leaves);
    }
    Map<String, AggregationResult> aggs = Map.of();
    if (!req.aggregations().isEmpty()) {
      MatchSet.Builder b = new MatchSet.Builder();
      for (int i = 0; i < all.count; i++) {
        b.add(all.leaf[i], all.doc[i], all.scores[i]);
      }
      aggs =
          Aggregations.compute(
              req.aggregations(),
              mapping,
              new SegmentedAggregationSource(searcher, mapping, queries, fields, ordinals),
              b.build());
    }
    return new SearchResult(
        hits,
        total,
        plan,
        new Timings(System.nanoTime() - start, lexicalNanos, vectorNanos, 0),
        aggs);
  }

  /**
   * The page of the best scores, ties by document number (the order Lucene's top-k keeps): the best
   * {@code offset + hits} through Lucene's {@link HitQueue}, as its top-score collector keeps them,
   * not a sort of every match.
   */
  private static List<Hit> scoredHits(
      IndexSearcher searcher,
      SearchRequest req,
      DocumentFields fields,
      Matches all,
      List<LeafReaderContext> leaves)
      throws IOException {
    int window = Math.min(all.count, req.offset() + req.hits());
    if (window <= 0) {
      return SegmentedSearcher.hits(searcher, new ScoreDoc[0], req, fields);
    }
    HitQueue queue = new HitQueue(window, false);
    for (int i = 0; i < all.count; i++) {
      queue.insertWithOverflow(
          new ScoreDoc(leaves.get(all.leaf[i]).docBase + all.doc[i], all.scores[i]));
    }
    ScoreDoc[] docs = new ScoreDoc[queue.size()];
    for (int i = docs.length - 1; i >= 0; i--) {
      docs[i] = queue.pop();
    }
    return SegmentedSearcher.hits(searcher, docs, req, fields);
  }

  private static List<Hit> sortedHits(
      IndexSearcher searcher,
      SearchRequest req,
      Mapping mapping,
      DocumentFields fields,
      Query union,
      int window)
      throws IOException {
    Sort sort = sort(req.sort(), mapping);
    FieldDoc after = null;
    if (!req.searchAfter().isEmpty()) {
      Object[] values = new Object[req.sort().size()];
      for (int i = 0; i < values.length; i++) {
        SortKey k = req.sort().get(i);
        Object v = SortValues.coerce(k, mapping.leaf(k.field()), req.searchAfter().get(i));
        values[i] =
            switch (v) {
              case null -> null;
              case String s -> new BytesRef(s);
              case Long l when k.field().equals(SortKey.DOC) ->
                  (int) Math.min(l, Integer.MAX_VALUE);
              default -> v;
            };
      }
      // Every hit sorts after it, ties included: Elasticsearch's search_after without a PIT.
      after = new FieldDoc(Integer.MAX_VALUE, Float.NaN, values);
    }
    TopFieldDocs top =
        searcher.search(
            union, new TopFieldCollectorManager(sort, window, after, Integer.MAX_VALUE));
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    List<Hit> hits = new ArrayList<>();
    for (int i = req.offset(); i < top.scoreDocs.length && hits.size() < req.hits(); i++) {
      FieldDoc fd = (FieldDoc) top.scoreDocs[i];
      List<Object> values = new ArrayList<>(fd.fields.length);
      for (Object v : fd.fields) {
        values.add(
            switch (v) {
              case null -> null;
              case BytesRef b -> b.utf8ToString();
              case Integer d -> (long) d;
              default -> v;
            });
      }
      LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(fd.doc, leaves));
      String id;
      Document doc = null;
      if (req.fetchDocuments()) {
        doc = fields.load(leaf.reader(), fd.doc - leaf.docBase);
        id = doc.id();
      } else {
        LuceneMapping.IdVisitor visitor = new LuceneMapping.IdVisitor(fields.idField());
        searcher.storedFields().document(fd.doc, visitor);
        id = visitor.id;
      }
      hits.add(new Hit(id, fd.score, doc, values));
    }
    return hits;
  }

  /** The request's sort keys as Lucene sort fields over the mapping's doc values. */
  static Sort sort(List<SortKey> keys, Mapping mapping) {
    SortField[] out = new SortField[keys.size()];
    for (int i = 0; i < out.length; i++) {
      SortKey k = keys.get(i);
      if (k.field().equals(SortKey.SCORE)) {
        out[i] = new SortField(null, SortField.Type.SCORE, k.ascending());
        continue;
      }
      if (k.field().equals(SortKey.DOC)) {
        out[i] = new SortField(null, SortField.Type.DOC, !k.ascending());
        continue;
      }
      FieldType f = mapping.leaf(k.field());
      if (f instanceof FieldType.Keyword) {
        SortedSetSortField s =
            new SortedSetSortField(
                k.field(),
                !k.ascending(),
                k.usesMax() ? SortedSetSelector.Type.MAX : SortedSetSelector.Type.MIN);
        // Lucene places missing values in natural order, before reversing: Elasticsearch's
        // _last of a descending sort is Lucene's first.
        boolean naturalLast = !k.missingFirst() == k.ascending();
        s.setMissingValue(naturalLast ? SortField.STRING_LAST : SortField.STRING_FIRST);
        out[i] = s;
      } else {
        boolean floating = f instanceof FieldType.Numeric n && !n.type().integral();
        SortedNumericSortField s =
            new SortedNumericSortField(
                k.field(),
                floating ? SortField.Type.DOUBLE : SortField.Type.LONG,
                !k.ascending(),
                k.usesMax() ? SortedNumericSelector.Type.MAX : SortedNumericSelector.Type.MIN);
        s.setMissingValue(SortValues.missing(k, f));
        out[i] = s;
      }
    }
    return new Sort(out);
  }

  /** Every match: leaf, document and score, in growable arrays. */
  static final class Matches {
    int[] leaf = new int[64];
    int[] doc = new int[64];
    float[] scores = new float[64];
    int count;

    void add(int l, int d, float s) {
      if (count == doc.length) {
        leaf = Arrays.copyOf(leaf, count * 2);
        doc = Arrays.copyOf(doc, count * 2);
        scores = Arrays.copyOf(scores, count * 2);
      }
      leaf[count] = l;
      doc[count] = d;
      scores[count] = s;
      count++;
    }
  }

  /** Collects every match with its score, one collector per slice of segments. */
  static final class AllMatches implements CollectorManager<Collector, Matches> {
    private final List<Matches> slices = new ArrayList<>();

    @Override
    public Collector newCollector() {
      Matches m = new Matches();
      synchronized (slices) {
        slices.add(m);
      }
      return new Collector() {
        @Override
        public LeafCollector getLeafCollector(LeafReaderContext context) {
          int l = context.ord;
          return new LeafCollector() {
            private Scorable scorer;

            @Override
            public void setScorer(Scorable s) {
              scorer = s;
            }

            @Override
            public void collect(int d) throws IOException {
              m.add(l, d, scorer.score());
            }
          };
        }

        @Override
        public ScoreMode scoreMode() {
          return ScoreMode.COMPLETE;
        }
      };
    }

    /**
     * The slices' matches in (leaf, document) order: each slice visits its leaves in order and a
     * leaf's documents in order, so its matches are runs of one leaf each; the runs are put in leaf
     * order (a few per slice), so the {@link MatchSet} built from them finds them sorted.
     */
    @Override
    public Matches reduce(Collection<Collector> collectors) {
      List<int[]> runs = new ArrayList<>(); // {slice, from, to, leaf}
      List<Matches> all;
      synchronized (slices) {
        all = List.copyOf(slices);
      }
      for (int s = 0; s < all.size(); s++) {
        Matches m = all.get(s);
        for (int from = 0, i = 1; i <= m.count; i++) {
          if (i == m.count || m.leaf[i] != m.leaf[from]) {
            runs.add(new int[] {s, from, i, m.leaf[from]});
            from = i;
          }
        }
      }
      runs.sort((a, b) -> Integer.compare(a[3], b[3]));
      Matches out = new Matches();
      for (int[] run : runs) {
        Matches m = all.get(run[0]);
        for (int i = run[1]; i < run[2]; i++) {
          out.add(m.leaf[i], m.doc[i], m.scores[i]);
        }
      }
      return out;
    }
  }
}
