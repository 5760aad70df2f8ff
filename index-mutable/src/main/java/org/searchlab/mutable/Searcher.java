// Over 500 lines: the product store's plans, top-k and every match, share the point-in-time view
// of a search (its serial, filter and accept predicate) and the lexical and vector parts built on
// it.
package org.searchlab.mutable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.IntPredicate;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Fusion;
import org.searchlab.core.Hit;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.Timings;
import org.searchlab.core.TotalHits;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.mutable.attributes.AttributeStore;
import org.searchlab.mutable.hnsw.AcceptBits;
import org.searchlab.mutable.memory.PagedBits;
import org.searchlab.mutable.postings.FilterBits;
import org.searchlab.mutable.postings.FilterIds;
import org.searchlab.mutable.postings.LexicalQuery;
import org.searchlab.mutable.postings.TopHits;

/**
 * Runs one {@link SearchRequest} against the mutable index with the semantics of DESIGN.md: lexical
 * = exact block-max MaxScore top k of max(BM25(title), BM25(description)); vector = the graph's
 * plan chooser; hybrid = sum or reciprocal rank fusion of both; unranked = every document passing
 * the filter, score 1.
 *
 * <p>Thread safety: any number of threads search concurrently, without locks. A search reads the
 * published serial once and sees exactly the documents visible at it ({@link LocalIds}); it holds a
 * {@link org.searchlab.mutable.memory.GenerationHandler} guard so no local id it may meet is reused
 * under it.
 */
final class Searcher {
  private final IndexParts parts;
  private final ExecutorService pool; // null for one thread per search
  private final int threads;

  Searcher(IndexParts parts, ExecutorService pool, int threads) {
    this.parts = parts;
    this.pool = pool;
    this.threads = threads;
  }

  /** What a search sees: its serial, its filter and the accept predicate built from them. */
  private final class View {
    final long serial = parts.ids.visibleSerial();
    final int limit = parts.ids.limit();
    final Filter filter;
    final int category;
    final boolean empty;
    final IntPredicate accept;

    View(Filter filter) {
      this.filter = filter;
      AttributeStore attrs = parts.attributes;
      int ord =
          filter.category() == null
              ? AttributeStore.NO_CATEGORY
              : attrs.ordinalOf(filter.category());
      this.category = ord;
      this.empty = filter.category() != null && ord < 0;
      LocalIds ids = parts.ids;
      long s = serial;
      if (filter.isMatchAll()) {
        accept = d -> ids.visible(d, s);
      } else if (ord >= 0 && filter.price() == null) {
        // A category alone is asked of its bit set (13 KB per 100,000 ids, in cache) before the
        // id's visibility, instead of the category column after it: a filtered graph search asks
        // about every node it scores above its floor, most of them outside a small category. On
        // the Debian corpus this cut filtered vector queries' CPU by about 7% (paired passes).
        PagedBits bits = attrs.bits(ord);
        accept = d -> bits.get(d) && ids.visible(d, s);
      } else {
        accept = d -> ids.visible(d, s) && attrs.matches(d, filter, ord);
      }
    }

    /**
     * The category's ids as a leap-frog iterator for the lexical loop, or {@link FilterIds#ALL}
     * without a category (a price range alone has no index; {@link #accept} checks it). A fresh one
     * per thread: it holds no state, but the bits are read at each call.
     */
    FilterIds filterIds() {
      if (category < 0) {
        return FilterIds.ALL;
      }
      PagedBits bits = parts.attributes.bits(category);
      int to = limit;
      return new FilterBits() {
        @Override
        public int advance(int target) {
          int d = bits.nextSetBit(target, to);
          return d < 0 ? FilterIds.NO_MORE : d;
        }

        @Override
        public long word(int index) {
          return bits.word(index);
        }

        @Override
        public int cardinality() {
          return bits.cardinality();
        }
      };
    }

    /**
     * {@link #accept} for the graph: an exact plan (chosen, or fallen back to) enumerates a
     * category's ids from its bit set (a few hundred or thousand ids) instead of asking the filter
     * about every node of the graph.
     */
    AcceptBits acceptBits() {
      if (category < 0) {
        return accept::test;
      }
      PagedBits bits = parts.attributes.bits(category);
      IntPredicate test = accept;
      return new AcceptBits() {
        @Override
        public boolean accept(int node) {
          return test.test(node);
        }

        @Override
        public int nextAccepted(int from, int to) {
          for (int d = bits.nextSetBit(from, to);
              d >= 0;
              d = d + 1 < to ? bits.nextSetBit(d + 1, to) : -1) {
            if (test.test(d)) {
              return d;
            }
          }
          return -1;
        }
      };
    }

    /** Candidate ids in ascending order: the category's bits, or every id. */
    VectorPart.IdStream candidates(int from, int to) {
      if (category >= 0) {
        PagedBits bits = parts.attributes.bits(category);
        int[] at = {from};
        return () -> {
          if (at[0] >= to) {
            return -1;
          }
          int d = bits.nextSetBit(at[0], to);
          at[0] = d < 0 ? to : d + 1;
          return d;
        };
      }
      int[] at = {from};
      return () -> at[0] < to ? at[0]++ : -1;
    }

    /**
     * How many ids pass the filter, for the vector plan's hit ratio. A category alone answers from
     * its bit set's cardinality in O(1): an estimate that also counts replaced versions the
     * compactor has not freed yet (Lucene's filter cost is an estimate too). With a price range the
     * count is exact, O(category size) or O(ids) for a price range alone.
     */
    int acceptedCount() {
      if (empty) {
        return 0;
      }
      if (filter.isMatchAll()) {
        return parts.ids.liveCount();
      }
      if (category >= 0 && filter.price() == null) {
        return parts.attributes.bits(category).cardinality();
      }
      int n = 0;
      VectorPart.IdStream c = candidates(0, limit);
      for (int d = c.next(); d >= 0; d = c.next()) {
        if (accept.test(d)) {
          n++;
        }
      }
      return n;
    }
  }

  SearchResult search(SearchRequest r) {
    long start = System.nanoTime();
    try (var guard = parts.generations.enter()) {
      View view = new View(r.filter());
      return switch (r.rankProfile()) {
        case BM25 -> lexicalOnly(r, view, start);
        case CLOSENESS -> vectorOnly(r, view, start);
        case HYBRID -> hybrid(r, view, start);
        case UNRANKED -> unranked(r, view, start);
      };
    }
  }

  // ------------------------------------------------------------------------------------------
  // Parts

  private record Lexical(TopHits.Sorted top, long matches, boolean exact, LexicalQuery query) {}

  private Lexical lexical(SearchRequest r, View view, int k) {
    return lexical(r, view, k, prepare(r), 0f);
  }

  private LexicalQuery prepare(SearchRequest r) {
    return LexicalQuery.prepare(parts.fields, TextAnalysis.tokens(r.text()));
  }

  /**
   * The lexical top k of {@code q}; documents whose score cannot reach {@code floor} are left
   * unscored: counted but not scored while matches are counted (in the windowed loop), skipped once
   * pruning may start (past the total-hits threshold).
   */
  private Lexical lexical(SearchRequest r, View view, int k, LexicalQuery q, float floor) {
    if (view.empty || q.isEmpty()) {
      return new Lexical(new TopHits(0).sorted(), 0, true, q);
    }
    int track = r.trackTotalHitsUpTo();
    LexicalQuery.SharedThreshold shared = new LexicalQuery.SharedThreshold();
    shared.raise(floor);
    if (threads <= 1 || view.limit < 2 * threads * 1024) {
      LexicalQuery.Outcome o =
          q.run(view.filterIds(), view.accept, k, track, 0, view.limit, shared);
      return new Lexical(o.top().sorted(), o.matches(), o.exact(), q);
    }
    int perThreadTrack = track <= 0 ? 0 : (track + threads - 1) / threads;
    List<LexicalQuery.Outcome> outs =
        parallel(
            view.limit,
            (from, to) ->
                q.run(view.filterIds(), view.accept, k, perThreadTrack, from, to, shared));
    TopHits all = new TopHits(k);
    long matches = 0;
    boolean exact = true;
    for (LexicalQuery.Outcome o : outs) {
      all.merge(o.top());
      matches += o.matches();
      exact &= o.exact();
    }
    return new Lexical(all.sorted(), matches, exact, q);
  }

  /**
   * The vector part's top {@code targetHits}, of which the caller reads the best {@code shown} (all
   * of them for fusion, the page for a vector-only query).
   */
  private VectorPart.Result vector(SearchRequest r, View view, int shown) {
    if (view.empty) {
      return new VectorPart.Result(new int[0], new float[0], QueryPlan.EXACT);
    }
    int k = r.targetHits();
    if (!r.approximate()) {
      TopHits top;
      if (threads <= 1 || view.limit < 2 * threads * 1024) {
        top = parts.vectors.scan(r.vector(), k, view.candidates(0, view.limit), view.accept);
      } else {
        top = new TopHits(k);
        for (TopHits t :
            parallel(
                view.limit,
                (from, to) ->
                    parts.vectors.scan(r.vector(), k, view.candidates(from, to), view.accept))) {
          top.merge(t);
        }
      }
      TopHits.Sorted s = top.sorted();
      return new VectorPart.Result(s.docs(), s.scores(), QueryPlan.EXACT);
    }
    return parts.vectors.search(
        r.vector(),
        k,
        Math.max(k, r.candidates()),
        view.acceptBits(),
        view.acceptedCount(),
        r.thresholds(),
        r.rescoreWindow(),
        Math.max(1, Math.min(k, shown)));
  }

  // ------------------------------------------------------------------------------------------
  // Profiles

  private SearchResult lexicalOnly(SearchRequest r, View view, long start) {
    Lexical lex = lexical(r, view, r.offset() + r.hits());
    long lexNanos = System.nanoTime() - start;
    List<Hit> hits = window(r, lex.top.docs(), lex.top.scores());
    return new SearchResult(
        hits,
        total(lex.matches, lex.exact, r.trackTotalHitsUpTo()),
        new QueryPlan(lexicalPlan(lex), QueryPlan.NONE),
        new Timings(System.nanoTime() - start, lexNanos, 0, 0));
  }

  private SearchResult vectorOnly(SearchRequest r, View view, long start) {
    // Only the page is shown: an exact plan ranks just that much by the floats; the total still
    // counts every hit of the top k.
    VectorPart.Result v = vector(r, view, r.offset() + r.hits());
    long nanos = System.nanoTime() - start;
    return new SearchResult(
        window(r, v.docs(), v.scores()),
        TotalHits.exact(v.found()),
        new QueryPlan(QueryPlan.NONE, v.plan()),
        new Timings(nanos, 0, nanos, 0));
  }

  /**
   * Hybrid: the vector part first, then the lexical part sharing its work. The lexical scores of
   * the vector hits are needed for the union anyway; with sum fusion they also give the k-th best
   * fused score among the vector hits, below which no document outside them can enter the top k
   * (its score is its lexical score alone), so the lexical run scores nothing below that floor,
   * while it counts matches as well as once it prunes.
   */
  private SearchResult hybrid(SearchRequest r, View view, long start) {
    VectorPart.Result v = vector(r, view, r.targetHits());
    long vecNanos = System.nanoTime() - start;
    int window = r.fusion() == Fusion.RRF ? r.rrfWindow() : r.offset() + r.hits();
    LexicalQuery q = prepare(r);
    int[] vecDocs = v.docs().clone();
    Arrays.sort(vecDocs);
    float[] vecLex = q.isEmpty() ? new float[vecDocs.length] : q.scoreDocs(vecDocs);
    Map<Integer, Float> lexScore = new HashMap<>();
    for (int i = 0; i < vecDocs.length; i++) {
      lexScore.put(vecDocs[i], vecLex[i]);
    }
    float floor = 0f;
    if (r.fusion() == Fusion.SUM && v.docs().length >= window) {
      float[] fusedVec = new float[v.docs().length];
      for (int i = 0; i < fusedVec.length; i++) {
        fusedVec[i] = lexScore.get(v.docs()[i]) + v.scores()[i];
      }
      Arrays.sort(fusedVec);
      floor = fusedVec[fusedVec.length - window];
    }
    Lexical lex = lexical(r, view, window, q, floor);
    long lexNanos = System.nanoTime() - start - vecNanos;
    long vectorOnlyMatches = 0;
    for (float s : vecLex) {
      if (s == 0) {
        vectorOnlyMatches++;
      }
    }
    Map<Integer, Float> fused = new HashMap<>();
    if (r.fusion() == Fusion.SUM) {
      for (int i = 0; i < lex.top.size(); i++) {
        fused.put(lex.top.docs()[i], lex.top.scores()[i]);
      }
      for (int i = 0; i < v.docs().length; i++) {
        int d = v.docs()[i];
        fused.put(d, lexScore.get(d) + v.scores()[i]);
      }
    } else {
      int c = r.rank().rankConstant(); // Elasticsearch's 60 unless the request names another
      for (int i = 0; i < Math.min(window, lex.top.size()); i++) {
        fused.merge(lex.top.docs()[i], 1f / (c + i + 1), Float::sum);
      }
      for (int i = 0; i < Math.min(window, v.docs().length); i++) {
        fused.merge(v.docs()[i], 1f / (c + i + 1), Float::sum);
      }
    }
    TopHits top = new TopHits(r.offset() + r.hits());
    fused.forEach(top::insert);
    TopHits.Sorted s = top.sorted();
    return new SearchResult(
        window(r, s.docs(), s.scores()),
        total(lex.matches + vectorOnlyMatches, lex.exact, r.trackTotalHitsUpTo()),
        new QueryPlan(lexicalPlan(lex), v.plan()),
        new Timings(System.nanoTime() - start, lexNanos, vecNanos, 0));
  }

  private SearchResult unranked(SearchRequest r, View view, long start) {
    int want = r.offset() + r.hits();
    List<Hit> hits = new ArrayList<>();
    long count = 0;
    if (!view.empty) {
      VectorPart.IdStream c = view.candidates(0, view.limit);
      for (int d = c.next(); d >= 0; d = c.next()) {
        if (view.accept.test(d)) {
          if (count >= r.offset() && count < want) {
            String id = parts.ids.external(d);
            if (id != null) {
              hits.add(hit(r, d, id, 1f));
            }
          }
          count++;
        }
      }
    }
    long nanos = System.nanoTime() - start;
    return new SearchResult(
        hits,
        TotalHits.exact(count),
        new QueryPlan(QueryPlan.FILTER_SCAN, QueryPlan.NONE),
        new Timings(nanos, 0, 0, 0));
  }

  // ------------------------------------------------------------------------------------------
  // Every match (aggregations, sorts)

  /**
   * A search that needs every match ({@link SearchRequest#needsEveryMatch()}: aggregations or a
   * sort), of a request whose query and kNN search have the benchmark's shape: every match with the
   * score the top-k path gives it ({@link #everyMatch}), then {@link EveryMatchSearch} aggregates
   * and sorts them. The top-k profiles above never run this.
   *
   * @throws org.searchlab.core.InvalidRequestException when the query and kNN search do not have
   *     the benchmark's shape
   */
  SearchResult searchEveryMatch(SearchRequest request, org.searchlab.core.mapping.Mapping mapping) {
    long start = System.nanoTime();
    SearchRequest plain = EveryMatchSearch.withoutAggregationsAndSort(request);
    try (var guard = parts.generations.enter()) {
      View view = new View(plain.filter());
      Matches matches = everyMatch(plain, view);
      return EveryMatchSearch.finish(
          request, parts, mapping, plain.filter(), view.category, view.limit, matches, start);
    }
  }

  /**
   * Every match in increasing local id order (the columns' order), each with the score the top-k
   * path gives it. Not ranked: aggregations read the set, and {@link EveryMatchSearch} ranks only
   * the page it returns.
   *
   * @param docs local ids, {@code docs[0..count)} increasing
   * @param scores their scores
   * @param count how many
   * @param plan the plan of each part
   */
  record Matches(int[] docs, float[] scores, int count, QueryPlan plan) {}

  /**
   * Every match of a request of the benchmark's shape, scored as the top-k path scores it: lexical
   * = every document matching a term that passes the filter; kNN = its top {@code k}
   * (Elasticsearch's rule: a kNN search matches its k nearest); hybrid = the union, the lexical
   * score (0 when it matches no term) plus the vector score (0 outside the k), or reciprocal rank
   * fusion over the windows, 0 for a document outside every window (it still matches, as in
   * Elasticsearch); unranked = every document passing the filter, score 1.
   */
  private Matches everyMatch(SearchRequest r, View view) {
    return switch (r.rankProfile()) {
      case BM25 -> {
        LexicalQuery.Matches lex = everyLexicalMatch(view, prepare(r));
        yield new Matches(
            lex.docs(),
            lex.scores(),
            lex.count(),
            new QueryPlan(QueryPlan.EXHAUSTIVE, QueryPlan.NONE));
      }
      case CLOSENESS -> {
        VectorPart.Result v = vector(r, view, r.targetHits());
        int n = v.docs().length;
        int[] docs = new int[n];
        float[] scores = new float[n];
        int[] order = byDoc(v.docs());
        for (int i = 0; i < n; i++) {
          docs[i] = v.docs()[order[i]];
          scores[i] = v.scores()[order[i]];
        }
        yield new Matches(docs, scores, n, new QueryPlan(QueryPlan.NONE, v.plan()));
      }
      case HYBRID -> everyHybridMatch(r, view);
      case UNRANKED -> {
        int[] docs = new int[16];
        int n = 0;
        if (!view.empty) {
          VectorPart.IdStream c = view.candidates(0, view.limit); // increasing ids
          for (int d = c.next(); d >= 0; d = c.next()) {
            if (view.accept.test(d)) {
              if (n == docs.length) {
                docs = Arrays.copyOf(docs, n * 2);
              }
              docs[n++] = d;
            }
          }
        }
        float[] ones = new float[n];
        Arrays.fill(ones, 1f);
        yield new Matches(docs, ones, n, new QueryPlan(QueryPlan.FILTER_SCAN, QueryPlan.NONE));
      }
    };
  }

  /**
   * Every lexical match in id order: the top-k path's scoring with nothing pruned (every match is
   * counted before any could be skipped), so each score is computed as that path computes it.
   */
  private LexicalQuery.Matches everyLexicalMatch(View view, LexicalQuery q) {
    if (view.empty || q.isEmpty()) {
      return LexicalQuery.Matches.NONE;
    }
    return q.collectAll(view.filterIds(), view.accept, 0, view.limit);
  }

  /** The positions of {@code docs} (distinct local ids) in increasing id order. */
  private static int[] byDoc(int[] docs) {
    long[] keys = new long[docs.length];
    for (int i = 0; i < docs.length; i++) {
      keys[i] = ((long) docs[i] << 32) | i;
    }
    Arrays.sort(keys);
    int[] order = new int[docs.length];
    for (int i = 0; i < docs.length; i++) {
      order[i] = (int) keys[i];
    }
    return order;
  }

  /**
   * {@link #hybrid}'s fusion over every lexical match instead of its top window, merged in id
   * order: each vector hit (at most k) is looked up in the lexical matches, never a map of every
   * match. Scores add as the top-k path adds them: the lexical part first, then the vector part.
   */
  private Matches everyHybridMatch(SearchRequest r, View view) {
    VectorPart.Result v = vector(r, view, r.targetHits());
    LexicalQuery q = prepare(r);
    LexicalQuery.Matches lex = everyLexicalMatch(view, q);
    int[] ld = lex.docs();
    int ln = lex.count();
    int vn = v.docs().length;
    int[] order = byDoc(v.docs());
    int[] vd = new int[vn];
    float[] vs = new float[vn];
    // The lexical part of each match, and the vector part of each vector hit (by id).
    float[] lexPart;
    if (r.fusion() == Fusion.SUM) {
      lexPart = Arrays.copyOf(lex.scores(), ln);
      for (int i = 0; i < vn; i++) {
        vd[i] = v.docs()[order[i]];
        vs[i] = v.scores()[order[i]];
      }
      // As the top-k path: a vector hit's lexical score is scored by id, not taken from the run.
      float[] lexOfVec = q.isEmpty() ? new float[vn] : q.scoreDocs(vd);
      for (int i = 0; i < vn; i++) {
        int at = Arrays.binarySearch(ld, 0, ln, vd[i]);
        if (at >= 0) {
          lexPart[at] = lexOfVec[i];
        }
      }
      return merge(ld, lexPart, ln, vd, vs, vn, lexOfVec, v.plan());
    }
    // Reciprocal rank fusion with the request's rank constant over each part's window; a match
    // outside both windows fuses to 0 and still matches.
    int window = r.rrfWindow();
    int c = r.rank().rankConstant();
    lexPart = new float[ln];
    TopHits top = new TopHits(Math.min(window, ln));
    for (int i = 0; i < ln; i++) {
      top.insert(ld[i], lex.scores()[i]);
    }
    TopHits.Sorted ranked = top.sorted();
    for (int rank = 0; rank < ranked.size(); rank++) {
      lexPart[Arrays.binarySearch(ld, 0, ln, ranked.docs()[rank])] = 1f / (c + rank + 1);
    }
    for (int i = 0; i < vn; i++) {
      int rank = order[i];
      vd[i] = v.docs()[rank];
      vs[i] = rank < window ? 1f / (c + rank + 1) : 0f;
    }
    return merge(ld, lexPart, ln, vd, vs, vn, new float[vn], v.plan());
  }

  /**
   * The union of two id-ordered lists: a lexical match's score is its lexical part, plus the vector
   * part when it is also a vector hit; a vector hit that matched no term scores {@code
   * vecOnlyLex[i]} plus its vector part.
   */
  private static Matches merge(
      int[] ld,
      float[] lp,
      int ln,
      int[] vd,
      float[] vs,
      int vn,
      float[] vecOnlyLex,
      String vectorPlan) {
    int[] docs = new int[ln + vn];
    float[] scores = new float[ln + vn];
    int n = 0;
    int i = 0;
    int j = 0;
    while (i < ln || j < vn) {
      if (j == vn || (i < ln && ld[i] < vd[j])) {
        docs[n] = ld[i];
        scores[n++] = lp[i++];
      } else if (i == ln || vd[j] < ld[i]) {
        docs[n] = vd[j];
        scores[n++] = vecOnlyLex[j] + vs[j++];
      } else {
        docs[n] = ld[i];
        scores[n++] = lp[i++] + vs[j++];
      }
    }
    return new Matches(docs, scores, n, new QueryPlan(QueryPlan.EXHAUSTIVE, vectorPlan));
  }

  // ------------------------------------------------------------------------------------------
  // Helpers

  private List<Hit> window(SearchRequest r, int[] docs, float[] scores) {
    int from = Math.min(r.offset(), docs.length);
    int to = Math.min(docs.length, r.offset() + r.hits());
    List<Hit> hits = new ArrayList<>(Math.max(0, to - from));
    for (int i = from; i < to; i++) {
      String id = parts.ids.external(docs[i]);
      assert id != null : "visible local id " + docs[i] + " has no external id";
      hits.add(hit(r, docs[i], id, scores[i]));
    }
    return hits;
  }

  /**
   * One hit; with its document when the request asks, read from {@code local}: the version that was
   * scored. The caller holds the generation guard, so a retired version's document is still there
   * (the compactor frees it only after every search that could see it has left).
   */
  private Hit hit(SearchRequest r, int local, String id, float score) {
    if (!r.fetchDocuments()) {
      return new Hit(id, score);
    }
    Document d = parts.document(local);
    assert d != null : "scored local id " + local + " has no stored document";
    return new Hit(id, score, d);
  }

  private static TotalHits total(long matches, boolean exact, int track) {
    if (exact && matches <= track) {
      return TotalHits.exact(matches);
    }
    return TotalHits.atLeast(Math.min(matches, track));
  }

  private static String lexicalPlan(Lexical lex) {
    return lex.exact ? QueryPlan.EXHAUSTIVE : QueryPlan.BLOCK_MAX_MAXSCORE;
  }

  @FunctionalInterface
  private interface RangeTask<T> {
    T run(int from, int to);
  }

  /** Splits [0, limit) into {@code threads} ranges, runs all but the first on the pool. */
  private <T> List<T> parallel(int limit, RangeTask<T> task) {
    int per = (limit + threads - 1) / threads;
    List<Future<T>> futures = new ArrayList<>();
    for (int t = 1; t < threads; t++) {
      int from = t * per;
      int to = Math.min(limit, from + per);
      futures.add(pool.submit(() -> task.run(from, to)));
    }
    List<T> out = new ArrayList<>();
    out.add(task.run(0, Math.min(limit, per)));
    try {
      for (Future<T> f : futures) {
        out.add(f.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("search interrupted", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("search thread failed", e.getCause());
    }
    return out;
  }
}
