package org.searchlab.segmented;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.QueryTimeout;
import org.apache.lucene.search.AcceptDocs;
import org.apache.lucene.search.ConjunctionUtils;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopDocsCollector;
import org.apache.lucene.search.knn.KnnCollectorManager;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.VectorVisits;

/**
 * Lucene's {@link KnnFloatVectorQuery} as Elasticsearch runs it, plus a record of the plan:
 *
 * <ul>
 *   <li>it explores {@code k = targetHits + exploreAdditionalHits} candidates per segment (the
 *       Elasticsearch {@code num_candidates} passed as Lucene's k) and keeps the best {@code
 *       targetHits} over all segments when merging the per-segment results (Elasticsearch's {@code
 *       ESKnnFloatVectorQuery} does the same), so a hybrid query adds exactly {@code targetHits}
 *       vector hits;
 *   <li>it counts the segments Lucene searched exactly: those whose filter passes at most k
 *       documents, and those where the graph search hit its visit limit (the filter's cardinality)
 *       and fell back to a scan. Lucene makes both decisions inside {@code rewrite}; this class
 *       learns of them by overriding the {@code exactSearch} hook Lucene keeps for that purpose;
 *   <li>with {@code approximate == false} every segment is scanned exactly;
 *   <li>over a quantized format ({@code rescoreWindow > 0}: the request's window, else {@code
 *       targetHits × oversample}) it explores at least {@code rescoreWindow} candidates, rescores
 *       each segment's best {@code rescoreWindow} with the segment's float vectors and scans
 *       exactly with the floats too, so every score it returns is the exact closeness
 *       (Elasticsearch's {@code rescore_vector}, done per segment before the merge; a global top
 *       {@code rescoreWindow} is within the union of the per-segment ones);
 *   <li>an approximate search counts itself once when it is rewritten (Lucene runs the search
 *       there) and the vectors it scored in {@link VectorVisits}: per segment, the approximate
 *       search's {@code totalHits} (Lucene's {@code KnnCollector.visitedCount}: the graph nodes
 *       whose distance it computed) and an exact scan's {@code totalHits} (the accepted vectors it
 *       scored), both of them where the graph search gave up and scanned. The float rescoring of a
 *       quantized window is not counted, as the mutable store does not count its own.
 * </ul>
 *
 * <p>Thread-safety: one instance serves one search; its records are concurrent sets because Lucene
 * may search segments on several threads.
 */
final class PlannedKnnQuery extends KnnFloatVectorQuery {
  private final int targetHits;
  private final boolean approximate;
  // 0 without quantization; else how many of each segment's best candidates are rescored.
  private final int rescoreWindow;
  // Segment ordinals; concurrent sets because segments may be searched on several threads.
  private final Set<Integer> graphSegments = ConcurrentHashMap.newKeySet();
  private final Set<Integer> exactSegments = ConcurrentHashMap.newKeySet();
  private final VectorVisits visits;

  PlannedKnnQuery(
      String field,
      float[] target,
      int candidates,
      Query filter,
      int targetHits,
      boolean approx,
      int rescoreWindow,
      VectorVisits visits) {
    super(field, target, Math.max(candidates, rescoreWindow), filter);
    assert targetHits <= candidates : targetHits + " > " + candidates;
    assert rescoreWindow == 0 || rescoreWindow >= targetHits : rescoreWindow + " < " + targetHits;
    this.targetHits = targetHits;
    this.approximate = approx;
    this.rescoreWindow = rescoreWindow;
    this.visits = visits;
  }

  @Override
  public Query rewrite(IndexSearcher searcher) throws IOException {
    if (approximate) {
      visits.searchStarted();
    }
    return super.rewrite(searcher);
  }

  @Override
  protected TopDocs approximateSearch(
      LeafReaderContext context,
      AcceptDocs acceptDocs,
      int visitedLimit,
      KnnCollectorManager knnCollectorManager)
      throws IOException {
    if (!approximate) {
      FloatVectorValues values = context.reader().getFloatVectorValues(field);
      if (values == null) {
        return TopDocsCollector.EMPTY_TOPDOCS;
      }
      DocIdSetIterator withVectors =
          ConjunctionUtils.intersectIterators(List.of(acceptDocs.iterator(), values.iterator()));
      return exactSearch(context, withVectors, null);
    }
    graphSegments.add(context.ord);
    TopDocs approx =
        super.approximateSearch(context, acceptDocs, visitedLimit, knnCollectorManager);
    visits.visited(approx.totalHits.value());
    return rescoreWindow == 0 ? approx : rescore(context, approx);
  }

  @Override
  protected TopDocs exactSearch(
      LeafReaderContext context, DocIdSetIterator acceptIterator, QueryTimeout queryTimeout)
      throws IOException {
    exactSegments.add(context.ord);
    // Lucene's exact search over a quantized field may score by the codes; an exact scan must not.
    TopDocs exact =
        rescoreWindow == 0
            ? super.exactSearch(context, acceptIterator, queryTimeout)
            : FloatRescorer.scan(context, field, target, acceptIterator, getK());
    if (approximate) {
      // A scan the plan chose or fell back to; a requested exact search is not counted.
      visits.visited(exact.totalHits.value());
    }
    return exact;
  }

  /** The segment's best {@code rescoreWindow} hits, rescored by their floats. */
  private TopDocs rescore(LeafReaderContext context, TopDocs approx) throws IOException {
    return FloatRescorer.rescore(context, field, target, approx, rescoreWindow);
  }

  @Override
  protected TopDocs mergeLeafResults(TopDocs[] perLeafResults) {
    return TopDocs.merge(targetHits, perLeafResults);
  }

  /**
   * The plan as {@link QueryPlan} names it: {@code hnsw}, {@code exact}, or {@code
   * hnsw:exact-fallback E/S segments} when E of the S segments that had candidates were scanned.
   */
  String plan() {
    int exact = exactSegments.size();
    Set<Integer> searched = new HashSet<>(graphSegments);
    searched.addAll(exactSegments);
    if (exact == 0) {
      return QueryPlan.HNSW;
    }
    if (exact == searched.size()) {
      return QueryPlan.EXACT;
    }
    return QueryPlan.HNSW + ":exact-fallback " + exact + "/" + searched.size() + " segments";
  }
}
