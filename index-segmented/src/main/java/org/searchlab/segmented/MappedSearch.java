package org.searchlab.segmented;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.searchlab.core.Hit;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.Timings;
import org.searchlab.core.TotalHits;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.VectorSimilarity;
import org.searchlab.core.query.Knn;

/**
 * A search of any shape over any mapping: the query translated by {@link LuceneQueries}, each kNN
 * search run by {@link PlannedKnnQuery} on its own field (filter, {@code k} of {@code
 * num_candidates}, int8 rescoring, the {@code similarity} threshold after the merge, boost) and
 * fixed as a {@link FixedScoresQuery}; the parts summed as SHOULD clauses of one {@link
 * BooleanQuery} ({@code Rank.SUM}, the total the size of their union) or fused by reciprocal rank
 * with the request's constant and window. Scores equal Elasticsearch's because these are Lucene's
 * own queries over statistics of the whole reader. Stateless.
 */
final class MappedSearch {
  private MappedSearch() {}

  static SearchResult search(
      IndexSearcher searcher,
      SearchRequest req,
      Mapping mapping,
      DocumentFields fields,
      SegmentedConfig config,
      SegmentedAggregationSource.GlobalOrdinals ordinals,
      org.searchlab.core.VectorVisits visits)
      throws IOException {
    long start = System.nanoTime();
    LuceneQueries queries = new LuceneQueries(mapping);
    List<Query> parts = new ArrayList<>();
    long lexicalNanos = 0;
    if (req.query() != null) {
      parts.add(queries.translate(req.query()));
      lexicalNanos = System.nanoTime() - start;
    }
    long vectorStart = System.nanoTime();
    String vectorPlan = QueryPlan.NONE;
    for (Knn knn : req.knn()) {
      FieldType.DenseVector v = mapping.vector(knn.field());
      if (v != null && !v.indexed() && !req.approximate()) {
        // No graph and no Lucene vectors: a scan of the vectors as given (SearchRequest refuses
        // an approximate search of such a field, as Elasticsearch does).
        Query filter = knn.unfiltered() ? null : queries.translate(knn.filter());
        parts.add(fixed(searcher, scan(searcher, knn, v, filter), knn, v));
        vectorPlan = QueryPlan.EXACT;
        continue;
      }
      PlannedKnnQuery planned = planned(knn, req, mapping, queries, config, visits);
      parts.add(neighbours(searcher, planned, knn, v));
      vectorPlan = planned.plan();
    }
    long vectorNanos = req.knn().isEmpty() ? 0 : System.nanoTime() - vectorStart;
    if (parts.isEmpty()) {
      return new SearchResult(
          List.of(), TotalHits.exact(0), QueryPlan.EMPTY, new Timings(0, 0, 0, 0));
    }
    Query union;
    if (parts.size() == 1) {
      union = parts.get(0);
    } else {
      BooleanQuery.Builder b = new BooleanQuery.Builder();
      for (Query p : parts) {
        b.add(p, Occur.SHOULD);
      }
      union = b.build();
    }
    int window = Math.max(1, req.offset() + req.hits());
    ScoreDoc[] docs;
    TotalHits total;
    if (req.needsEveryMatch()) {
      return SortedSearch.search(
          searcher,
          req,
          mapping,
          fields,
          queries,
          ordinals,
          parts,
          union,
          start,
          new QueryPlan(req.query() == null ? QueryPlan.NONE : QueryPlan.EXHAUSTIVE, vectorPlan),
          lexicalNanos,
          vectorNanos);
    }
    if (!req.rank().isRrf()) {
      SegmentedSearcher.Part p = SegmentedSearcher.collect(searcher, union, window, req);
      docs = p.docs();
      total = p.total();
    } else {
      int rrfWindow = Math.max(1, req.rrfWindow());
      int constant = req.rank().rankConstant();
      Map<Integer, Float> fused = new HashMap<>();
      for (Query part : parts) {
        ScoreDoc[] top = SegmentedSearcher.collect(searcher, part, rrfWindow, req).docs();
        for (int i = 0; i < Math.min(rrfWindow, top.length); i++) {
          fused.merge(top[i].doc, 1f / (constant + i + 1), Float::sum);
        }
      }
      docs = new ScoreDoc[fused.size()];
      int i = 0;
      for (Map.Entry<Integer, Float> e : fused.entrySet()) {
        docs[i++] = new ScoreDoc(e.getKey(), e.getValue());
      }
      java.util.Arrays.sort(
          docs,
          (a, b) ->
              a.score != b.score ? Float.compare(b.score, a.score) : Integer.compare(a.doc, b.doc));
      total = SegmentedSearcher.collect(searcher, union, 1, req).total();
    }
    List<Hit> hits = SegmentedSearcher.hits(searcher, docs, req, fields);
    return new SearchResult(
        hits,
        total,
        new QueryPlan(
            req.query() == null
                ? QueryPlan.NONE
                : total.exact() ? QueryPlan.EXHAUSTIVE : QueryPlan.LUCENE_PRUNED,
            vectorPlan),
        new Timings(System.nanoTime() - start, lexicalNanos, vectorNanos, 0));
  }

  private static PlannedKnnQuery planned(
      Knn knn,
      SearchRequest req,
      Mapping mapping,
      LuceneQueries queries,
      SegmentedConfig config,
      org.searchlab.core.VectorVisits visits) {
    FieldType.DenseVector v = mapping.vector(knn.field());
    if (v == null) {
      throw new InvalidRequestException(
          "[knn] field [" + knn.field() + "] is not a [dense_vector] field of the mapping");
    }
    if (!v.indexed()) {
      throw new InvalidRequestException(
          "to perform knn search on field ["
              + knn.field()
              + "], its mapping must have [index] set to [true]");
    }
    Query filter = knn.unfiltered() ? null : queries.translate(knn.filter());
    String type = v.indexOptions().type();
    VectorQuantization q =
        type == null ? config.quantization() : VectorQuantization.fromEsIndexType(type);
    // Every quantized format rescores its window with the floats, as Elasticsearch's
    // rescore_vector does (searchlab always returns exact float scores).
    int rescore =
        q.quantized() ? SearchRequest.rescoreWindow(knn, Math.max(1, config.oversample())) : 0;
    return new PlannedKnnQuery(
        knn.field(),
        v.similarity().indexed(knn.vector()),
        knn.numCandidates(),
        filter,
        knn.k(),
        req.approximate(),
        rescore,
        visits);
  }

  /** The top k neighbours over every segment, at or above the threshold, boosted. */
  private static Query neighbours(
      IndexSearcher searcher, PlannedKnnQuery planned, Knn knn, FieldType.DenseVector v)
      throws IOException {
    return fixed(searcher, searcher.search(planned, Math.max(1, knn.k())).scoreDocs, knn, v);
  }

  /** The top k of {@code top} at or above the threshold, boosted, as a query. */
  private static Query fixed(
      IndexSearcher searcher, ScoreDoc[] top, Knn knn, FieldType.DenseVector v) {
    float floor =
        knn.similarity() == null
            ? Float.NEGATIVE_INFINITY
            : scoreFloor(v.similarity(), knn.similarity());
    List<ScoreDoc> kept = new ArrayList<>();
    for (ScoreDoc d : top) {
      if (d.score >= floor) {
        kept.add(new ScoreDoc(d.doc, d.score * knn.boost()));
      }
    }
    return new FixedScoresQuery(
        kept.toArray(new ScoreDoc[0]), searcher.getIndexReader().getContext().id());
  }

  /**
   * The exact top k by the field's similarity over the vectors as given ({@link LeafVectors}) among
   * the live documents passing {@code filter} (null for all), best first, ties by doc id.
   */
  private static ScoreDoc[] scan(
      IndexSearcher searcher, Knn knn, FieldType.DenseVector v, Query filter) throws IOException {
    Query accept = LuceneQueries.vectorExists(knn.field(), v);
    if (filter != null) {
      accept =
          new BooleanQuery.Builder().add(accept, Occur.FILTER).add(filter, Occur.FILTER).build();
    }
    org.apache.lucene.search.Weight weight =
        searcher.createWeight(
            searcher.rewrite(accept), org.apache.lucene.search.ScoreMode.COMPLETE_NO_SCORES, 1f);
    org.apache.lucene.search.HitQueue queue =
        new org.apache.lucene.search.HitQueue(Math.max(1, knn.k()), false);
    for (org.apache.lucene.index.LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      org.apache.lucene.search.Scorer scorer = weight.scorer(leaf);
      LeafVectors vectors = LeafVectors.open(leaf.reader(), knn.field());
      if (scorer == null || vectors == null) {
        continue;
      }
      org.apache.lucene.util.Bits live = leaf.reader().getLiveDocs();
      org.apache.lucene.search.DocIdSetIterator it = scorer.iterator();
      for (int doc = it.nextDoc();
          doc != org.apache.lucene.search.DocIdSetIterator.NO_MORE_DOCS;
          doc = it.nextDoc()) {
        float[] vector = live == null || live.get(doc) ? vectors.get(doc) : null;
        if (vector != null) {
          float score = v.similarity().score(knn.vector(), vector);
          queue.insertWithOverflow(new ScoreDoc(leaf.docBase + doc, score));
        }
      }
    }
    ScoreDoc[] out = new ScoreDoc[queue.size()];
    for (int i = out.length - 1; i >= 0; i--) {
      out[i] = queue.pop();
    }
    return out;
  }

  /**
   * The least {@code _score} for Elasticsearch's kNN {@code similarity}, which is in the
   * similarity's own terms: a cosine or dot product, an L2 distance (a most), a raw inner product.
   */
  static float scoreFloor(VectorSimilarity sim, float similarity) {
    return switch (sim) {
      case L2_NORM -> 1 / (1 + similarity * similarity);
      default -> sim.fromRaw(similarity);
    };
  }
}
