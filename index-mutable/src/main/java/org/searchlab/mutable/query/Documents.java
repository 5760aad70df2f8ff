// Over 500 lines: the documents with every per-field structure the evaluator reads (text
// postings and norms, keyword values, vector graphs), which change together on each write.
package org.searchlab.mutable.query;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import org.searchlab.core.Document;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.Fusion;
import org.searchlab.core.Hit;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.Timings;
import org.searchlab.core.TotalHits;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.mapping.DocumentParser;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.ParsedDocument;
import org.searchlab.core.query.Knn;
import org.searchlab.core.scoring.Bm25;
import org.searchlab.mutable.hnsw.AcceptBits;
import org.searchlab.mutable.hnsw.GraphHits;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.mutable.hnsw.MutableHnswGraph;
import org.searchlab.mutable.hnsw.VectorStore;

/**
 * The documents of a mutable store of any mapping, by local ordinal, with the collection statistics
 * BM25 needs, which {@link Evaluator} runs every query type over:
 *
 * <ul>
 *   <li>a {@code text} field: per term the documents and frequencies, per document the one-byte
 *       norm of its length (all its values' tokens), the documents with a token and the total
 *       tokens, as Lucene keeps them, analysed with the field's analyzer;
 *   <li>a {@code keyword} field: per value the live document frequency, the documents with a value
 *       and the sum of distinct values per document;
 *   <li>every other field: the parsed values of each document (its attribute columns).
 * </ul>
 *
 * Ties rank by the order documents were added (then by id for fused lists). A removed document's
 * ordinal is dead, skipped by searches, and reclaimed when dead ordinals outnumber live ones;
 * collection statistics count live documents only.
 *
 * <p>Not thread-safe: the store serialises writes against searches with a read-write lock.
 */
public final class Documents {
  private Mapping mapping;
  private final String defaultAnalyzer;
  private final Map<String, Integer> ordinalOf = new HashMap<>();
  private final List<ParsedDocument> docs = new ArrayList<>(); // by ordinal; null when dead
  private final Map<String, TextField> text = new HashMap<>();
  private final Map<String, KeywordField> keywords = new HashMap<>();
  private final Map<String, MutableHnswGraph> graphs = new HashMap<>();
  private final HnswConfig hnsw;
  // Every graph search of the index's vector fields passes graphKnn, on any search thread.
  private final org.searchlab.core.VectorVisits visits = new org.searchlab.core.VectorVisits();
  private long handedOver;
  private int live;
  // Where quantized fields map their floats; null keeps them on the heap.
  private final java.nio.file.Path scratch;

  /**
   * Documents of {@code mapping}, which grows as documents add fields to it; an indexed vector
   * field's graph takes {@code hnsw}'s settings where the field's index options leave them unset.
   * Quantized fields keep their floats on the heap ({@link #Documents(Mapping, String, HnswConfig,
   * java.nio.file.Path)} maps them).
   */
  public Documents(Mapping mapping, String defaultAnalyzer, HnswConfig hnsw) {
    this(mapping, defaultAnalyzer, hnsw, null);
  }

  /**
   * As {@link #Documents(Mapping, String, HnswConfig)}, with the floats of every quantized vector
   * field (int8 or 1-bit codes) in a mapped scratch file under {@code scratch}, as the product
   * index keeps its own: the graph walks the codes on the heap and only the rerank and the build
   * read the floats.
   */
  public Documents(
      Mapping mapping, String defaultAnalyzer, HnswConfig hnsw, java.nio.file.Path scratch) {
    this.mapping = mapping;
    this.defaultAnalyzer = defaultAnalyzer;
    this.hnsw = hnsw;
    this.scratch = scratch;
  }

  /** Vectors a new version kept unchanged, handed over to it without graph work. */
  public long vectorsHandedOver() {
    return handedOver;
  }

  /** Releases the graphs' vector stores. */
  public void close() throws java.io.IOException {
    closeGraphs();
  }

  private void closeGraphs() {
    for (MutableHnswGraph g : graphs.values()) {
      try {
        g.vectors().close();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    graphs.clear();
  }

  /** The mapping, with every field documents added so far. */
  public Mapping mapping() {
    return mapping;
  }

  /** Adds {@code update}'s fields to the mapping ({@code PUT _mapping}). */
  public void merge(Mapping update) {
    mapping = mapping.merge(update);
  }

  /** Reads later documents against {@code newer}, a grown copy of this corpus's mapping. */
  public void useMapping(Mapping newer) {
    mapping = newer;
  }

  /** Adds or replaces a document, read against the mapping (which may grow). */
  public void put(Document doc) {
    ParsedDocument p = DocumentParser.parse(mapping, defaultAnalyzer, doc);
    mapping = p.mapping();
    put(p);
  }

  /** Adds or replaces an already parsed document. */
  public void put(ParsedDocument p) {
    int ord = docs.size();
    Integer old = ordinalOf.get(p.id());
    Set<String> handed =
        old == null ? Set.of() : handOverUnchangedVectors(docs.get(old), p, old, ord);
    unindex(p.id());
    docs.add(p);
    ordinalOf.put(p.id(), ord);
    live++;
    index(ord, p, true, handed);
    maybeCompact();
  }

  /**
   * Moves the graph node of every indexed vector the new version {@code p} keeps unchanged from the
   * old version's ordinal to the new one, as the product store does on a re-put: no neighbour
   * search, no unlinking (an update of a price or a tag costs no graph work). Returns the fields
   * handed over.
   */
  private Set<String> handOverUnchangedVectors(
      ParsedDocument before, ParsedDocument p, int old, int ord) {
    Set<String> handed = new HashSet<>();
    for (Map.Entry<String, MutableHnswGraph> e : graphs.entrySet()) {
      float[] v = p.vector(e.getKey());
      MutableHnswGraph g = e.getValue();
      if (v != null && Arrays.equals(v, before.vector(e.getKey())) && g.contains(old)) {
        g.vectors().set(ord, mapping.vector(e.getKey()).similarity().indexed(v));
        g.handOver(old, ord);
        handed.add(e.getKey());
        handedOver++;
      }
    }
    return handed;
  }

  /**
   * Adds a document of a snapshot at the ordinal it had there (past every ordinal so far), its
   * vectors already in the graphs {@link #restoreGraph} installs.
   */
  public void restore(int ord, ParsedDocument p) {
    if (ord < docs.size() || ordinalOf.containsKey(p.id())) {
      throw new IllegalArgumentException(
          "snapshot ordinal " + ord + " of " + p.id() + " is not past " + docs.size());
    }
    while (docs.size() < ord) {
      docs.add(null);
    }
    docs.add(p);
    ordinalOf.put(p.id(), ord);
    live++;
    index(ord, p, false, Set.of());
  }

  /**
   * Adds the document at {@code ord} to the text and keyword fields and, with {@code vectors}, to
   * the graphs of its vector fields other than {@code handed} (already there).
   */
  private void index(int ord, ParsedDocument p, boolean vectors, Set<String> handed) {
    for (Map.Entry<String, Object> e : p.values().entrySet()) {
      FieldType t = mapping.leaf(e.getKey());
      if (t instanceof FieldType.Text tt && tt.indexed()) {
        List<String> tokens = tokens(tt, (String[]) e.getValue());
        if (!tokens.isEmpty()) {
          text.computeIfAbsent(e.getKey(), k -> new TextField()).add(ord, tokens);
        }
      } else if (t instanceof FieldType.Keyword k && k.indexed()) {
        keywords
            .computeIfAbsent(e.getKey(), x -> new KeywordField())
            .add(ord, (String[]) e.getValue(), +1);
      } else if (vectors
          && t instanceof FieldType.DenseVector v
          && v.indexed()
          && !handed.contains(e.getKey())) {
        graph(e.getKey(), v).insert(ord, v.similarity().indexed((float[]) e.getValue()));
      }
    }
  }

  /** Removes a document; returns whether it was there. */
  public boolean remove(String id) {
    boolean removed = unindex(id);
    maybeCompact();
    return removed;
  }

  /** Removes a document from every structure, leaving its ordinal dead. */
  private boolean unindex(String id) {
    Integer ord = ordinalOf.remove(id);
    if (ord == null) {
      return false;
    }
    ParsedDocument p = docs.set(ord, null);
    live--;
    for (Map.Entry<String, Object> e : p.values().entrySet()) {
      FieldType t = mapping.leaf(e.getKey());
      if (t instanceof FieldType.Text tt && tt.indexed()) {
        List<String> tokens = tokens(tt, (String[]) e.getValue());
        if (!tokens.isEmpty()) {
          text.get(e.getKey()).remove(tokens);
        }
      } else if (t instanceof FieldType.Keyword k && k.indexed()) {
        keywords.get(e.getKey()).add(ord, (String[]) e.getValue(), -1);
      } else if (t instanceof FieldType.DenseVector v && v.indexed()) {
        MutableHnswGraph g = graphs.get(e.getKey());
        if (g != null) {
          g.remove(ord);
        }
      }
    }
    return true;
  }

  /** Renumbers when dead ordinals outnumber live ones (and 1,024). */
  private void maybeCompact() {
    if (docs.size() - live > Math.max(1024, live)) {
      compact();
    }
  }

  private static List<String> tokens(FieldType.Text t, String[] values) {
    List<String> out = new ArrayList<>();
    for (String v : values) {
      out.addAll(TextAnalysis.tokens(t.analyzer(), v));
    }
    return out;
  }

  /** The document with this id, or null. */
  public Document get(String id) {
    Integer ord = ordinalOf.get(id);
    return ord == null ? null : docs.get(ord).document();
  }

  /** The parsed document with this id, or null. */
  public ParsedDocument parsed(String id) {
    Integer ord = ordinalOf.get(id);
    return ord == null ? null : docs.get(ord);
  }

  /** The ordinal of a live document's id, or -1. */
  int ordinal(String id) {
    Integer ord = ordinalOf.get(id);
    return ord == null ? -1 : ord;
  }

  /** Live documents. */
  public int size() {
    return live;
  }

  /** Live documents in id order. */
  public List<Document> documents() {
    TreeMap<String, Document> byId = new TreeMap<>();
    for (ParsedDocument d : docs) {
      if (d != null) {
        byId.put(d.id(), d.document());
      }
    }
    return new ArrayList<>(byId.values());
  }

  // ----------------------------------------------------------------------------------------------
  // Reads for Evaluator

  /** One past the highest ordinal given so far, live or dead. */
  public int ordinals() {
    return docs.size();
  }

  /** The live document at {@code ord}, or null when the ordinal is dead. */
  public ParsedDocument at(int ord) {
    return docs.get(ord);
  }

  TextField textField(String path) {
    return text.get(path);
  }

  KeywordField keywordField(String path) {
    return keywords.get(path);
  }

  // ----------------------------------------------------------------------------------------------
  // Search

  /** Answers a request exactly; the request must already be valid for the mapping. */
  public SearchResult search(SearchRequest request) {
    long start = System.nanoTime();
    Evaluator evaluator = new Evaluator(this, mapping);
    Evaluator.Result r = evaluator.search(request);
    String vecPlan = r.vectorPlan();
    List<Hit> ranked = r.ranked();
    Map<String, org.searchlab.core.agg.AggregationResult> aggs = Map.of();
    if (request.needsEveryMatch()) {
      // Every match, as one leaf of local ordinals, for the shared aggregations and sorting.
      DocumentsAggregationSource source = new DocumentsAggregationSource(this, evaluator);
      org.searchlab.core.agg.MatchSet.Builder b = new org.searchlab.core.agg.MatchSet.Builder();
      for (Hit h : ranked) {
        b.add(0, ordinalOf.get(h.id()), h.score());
      }
      org.searchlab.core.agg.MatchSet matches = b.build();
      try {
        org.searchlab.core.agg.Aggregations.Outcome o =
            org.searchlab.core.agg.Aggregations.apply(request, mapping, source, matches);
        aggs = o.aggregations();
        if (o.sorted() != null) {
          List<Hit> sorted = new ArrayList<>();
          for (org.searchlab.core.agg.Sorting.Sorted x : o.sorted()) {
            sorted.add(new Hit(docs.get(x.doc()).id(), x.score(), null, x.values()));
          }
          ranked = sorted;
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e); // reads of the heap only; never thrown
      }
    }
    TotalHits totalHits =
        request.query() != null && r.total() > request.trackTotalHitsUpTo()
            ? TotalHits.atLeast(request.trackTotalHitsUpTo())
            : TotalHits.exact(r.total());
    String lexPlan = request.query() == null ? QueryPlan.NONE : QueryPlan.EXHAUSTIVE;
    int from = Math.min(request.offset(), ranked.size());
    int to = Math.min(from + request.hits(), ranked.size());
    List<Hit> page = ranked.subList(from, to);
    if (request.fetchDocuments()) {
      page = page.stream().map(h -> h.withDocument(get(h.id()))).toList();
    }
    return new SearchResult(
        page,
        totalHits,
        new QueryPlan(lexPlan, vecPlan),
        new Timings(System.nanoTime() - start, 0, 0, 0),
        aggs);
  }

  private List<Hit> hits(TopK top, int k) {
    float[][] scores = new float[1][];
    int[] ords = top.drainBestFirst(scores);
    List<Hit> hits = new ArrayList<>(ords.length);
    for (int i = 0; i < ords.length && i < k; i++) {
      hits.add(new Hit(docs.get(ords[i]).id(), scores[0][i]));
    }
    return hits;
  }

  /** Combines the parts as {@link Fusion} defines; candidates are the union of both lists. */
  static List<Hit> fuse(SearchRequest request, List<Hit> lexical, List<Hit> vector) {
    return fuse(request, List.of(lexical, vector));
  }

  /** Combines ranked parts by the request's rank: summed scores, or reciprocal rank fusion. */
  static List<Hit> fuse(SearchRequest request, List<List<Hit>> parts) {
    Map<String, Float> score = new LinkedHashMap<>();
    if (!request.rank().isRrf()) {
      for (List<Hit> part : parts) {
        for (Hit h : part) {
          score.merge(h.id(), h.score(), Float::sum);
        }
      }
    } else {
      int window = request.rrfWindow();
      int c = request.rank().rankConstant();
      for (List<Hit> part : parts) {
        for (int i = 0; i < Math.min(window, part.size()); i++) {
          score.merge(part.get(i).id(), 1f / (c + i + 1), Float::sum);
        }
      }
      // Candidates outside every window still match; they rank after every fused one.
      for (List<Hit> part : parts) {
        for (Hit h : part) {
          score.putIfAbsent(h.id(), 0f);
        }
      }
    }
    return sorted(score);
  }

  /** Best first: higher score, then lower id. */
  public static final Comparator<Hit> BY_SCORE =
      Comparator.comparingDouble((Hit h) -> -h.score()).thenComparing(Hit::id);

  static List<Hit> sorted(Map<String, Float> scores) {
    List<Hit> hits = new ArrayList<>(scores.size());
    scores.forEach((id, s) -> hits.add(new Hit(id, s)));
    hits.sort(BY_SCORE);
    return hits;
  }

  /** Renumbers live documents densely and rebuilds the statistics without dead entries. */
  /**
   * The approximate top {@code k} through the field's graph, with the filter's matches as a
   * pre-filter and the graph's plan chooser (exact scan of a selective filter, filter-first or
   * plain graph walk); each hit's score is its exact score (int8 codes are rescored by the floats).
   */
  private List<Hit> graphKnn(
      Knn knn,
      FieldType.DenseVector f,
      MutableHnswGraph graph,
      IntPredicate accept,
      FilterThresholds thresholds,
      List<String> plans) {
    AcceptBits bits;
    int count;
    if (knn.unfiltered()) {
      bits = AcceptBits.ALL;
      count = graph.size();
    } else {
      BitSet set = new BitSet(docs.size());
      for (int ord = 0; ord < docs.size(); ord++) {
        if (docs.get(ord) != null && graph.contains(ord) && accept.test(ord)) {
          set.set(ord);
        }
      }
      count = set.cardinality();
      bits =
          new AcceptBits() {
            @Override
            public boolean accept(int node) {
              return set.get(node);
            }

            @Override
            public int nextAccepted(int from, int to) {
              int n = set.nextSetBit(from);
              return n >= 0 && n < to ? n : -1;
            }
          };
    }
    if (count == 0 || graph.size() == 0) {
      plans.add(QueryPlan.EXACT);
      return List.of();
    }
    float floor =
        knn.similarity() == null
            ? Float.NEGATIVE_INFINITY
            : Evaluator.scoreFloor(f.similarity(), knn.similarity());
    int k = Math.max(1, knn.k());
    GraphHits h =
        graph.search(
            f.similarity().indexed(knn.vector()),
            k,
            Math.max(k, knn.numCandidates()),
            bits,
            count,
            thresholds,
            knn.rescoreWindow(),
            k);
    visits.searched(h.visited());
    plans.add(h.plan());
    List<Hit> hits = new ArrayList<>(h.size());
    for (int i = 0; i < h.size() && hits.size() < k; i++) {
      ParsedDocument d = docs.get(h.nodes()[i]);
      if (d != null && h.scores()[i] >= floor) {
        hits.add(new Hit(d.id(), h.scores()[i] * knn.boost()));
      }
    }
    hits.sort(BY_SCORE);
    return hits;
  }

  /** The field's graph, created the first time the field gets a value. */
  private MutableHnswGraph graph(String path, FieldType.DenseVector f) {
    return graphs.computeIfAbsent(
        path,
        x -> MutableHnswGraph.create(VectorStore.create(f.dims(), config(f), scratch), config(f)));
  }

  private VectorQuantization quantization(FieldType.DenseVector f) {
    String type = f.indexOptions().type();
    return type == null ? hnsw.quantization() : VectorQuantization.fromEsIndexType(type);
  }

  /** The field's graph settings: its index options, the store's where they are unset (0/null). */
  private HnswConfig config(FieldType.DenseVector f) {
    FieldType.IndexOptions o = f.indexOptions();
    return hnsw.toBuilder()
        .similarity(f.similarity())
        .m(o.m() > 0 ? o.m() : hnsw.m())
        .efConstruction(o.efConstruction() > 0 ? o.efConstruction() : hnsw.efConstruction())
        .quantization(quantization(f))
        .build();
  }

  /** The graph searches of every vector field and the vectors they scored. */
  public org.searchlab.core.VectorVisits visits() {
    return visits;
  }

  /** The graph of every indexed vector field with a value so far, by path (for snapshots). */
  public Map<String, MutableHnswGraph> graphs() {
    return java.util.Collections.unmodifiableMap(graphs);
  }

  /** Installs the graph of the vector field {@code path} from a snapshot's file. */
  public void restoreGraph(String path, java.nio.file.Path file) throws java.io.IOException {
    FieldType.DenseVector f = mapping.vector(path);
    if (f == null || !f.indexed() || graphs.containsKey(path)) {
      throw new java.io.IOException("snapshot graph " + file + " of " + path + " fits no field");
    }
    graphs.put(path, MutableHnswGraph.load(file, config(f), scratch));
  }

  private void compact() {
    List<ParsedDocument> keep = new ArrayList<>(live);
    for (ParsedDocument d : docs) {
      if (d != null) {
        keep.add(d);
      }
    }
    docs.clear();
    ordinalOf.clear();
    text.clear();
    keywords.clear();
    closeGraphs();
    live = 0;
    keep.forEach(this::put);
  }

  // ----------------------------------------------------------------------------------------------

  /** One text field's postings, norms and statistics, as Lucene keeps them. */
  static final class TextField {
    final Map<String, Postings> postings = new HashMap<>();
    byte[] norms = new byte[16];
    long docCount;
    long sumTotalTermFreq;

    void add(int ord, List<String> tokens) {
      if (norms.length <= ord) {
        norms = Arrays.copyOf(norms, Math.max(ord + 1, norms.length * 2));
      }
      docCount++;
      sumTotalTermFreq += tokens.size();
      norms[ord] = Bm25.encodeNorm(tokens.size());
      for (Map.Entry<String, Integer> e : termFreqs(tokens).entrySet()) {
        postings.computeIfAbsent(e.getKey(), t -> new Postings()).add(ord, e.getValue());
      }
    }

    void remove(List<String> tokens) {
      docCount--;
      sumTotalTermFreq -= tokens.size();
      for (String t : termFreqs(tokens).keySet()) {
        postings.get(t).docFreq--;
      }
    }

    byte norm(int ord) {
      return ord < norms.length ? norms[ord] : 0;
    }

    float[] normInverseCache(FieldType.Bm25Similarity sim) {
      return Bm25.normInverseCache(
          Bm25.avgFieldLength(sumTotalTermFreq, docCount), sim.k1(), sim.b());
    }

    /** The term's frequency in the document at {@code ord}, 0 when absent. */
    int freq(String term, int ord) {
      Postings p = postings.get(term);
      if (p == null) {
        return 0;
      }
      int i = Arrays.binarySearch(p.ords, 0, p.size, ord);
      return i < 0 ? 0 : p.freqs[i];
    }

    int docFreq(String term) {
      Postings p = postings.get(term);
      return p == null ? 0 : p.docFreq;
    }
  }

  /** One keyword field's document frequencies and statistics (no norms, no frequencies). */
  static final class KeywordField {
    final Map<String, Integer> docFreq = new HashMap<>();
    // Per value the ordinals that had it when added (a removed document's stay until compaction).
    final Map<String, Postings> ords = new HashMap<>();
    long docCount;
    long sumDocFreq;

    void add(int ord, String[] values, int sign) {
      java.util.Set<String> distinct = new java.util.LinkedHashSet<>(Arrays.asList(values));
      if (distinct.isEmpty()) {
        return;
      }
      docCount += sign;
      sumDocFreq += sign * distinct.size();
      for (String v : distinct) {
        docFreq.merge(v, sign, Integer::sum);
        if (sign > 0) {
          ords.computeIfAbsent(v, x -> new Postings()).add(ord, 1);
        }
      }
    }
  }

  private static Map<String, Integer> termFreqs(List<String> tokens) {
    Map<String, Integer> tf = new HashMap<>();
    for (String t : tokens) {
      tf.merge(t, 1, Integer::sum);
    }
    return tf;
  }

  /** (ordinal, freq) pairs in ordinal order, and the number of live documents among them. */
  static final class Postings {
    int[] ords = new int[4];
    int[] freqs = new int[4];
    int size;
    int docFreq;

    void add(int ord, int freq) {
      if (size == ords.length) {
        ords = Arrays.copyOf(ords, size * 2);
        freqs = Arrays.copyOf(freqs, size * 2);
      }
      ords[size] = ord;
      freqs[size++] = freq;
      docFreq++;
    }
  }

  /** For {@link Evaluator}: the kNN top {@code k} of one search, exact. */
  List<Hit> knn(
      Knn knn,
      IntPredicate accept,
      boolean approximate,
      FilterThresholds thresholds,
      List<String> plans) {
    FieldType.DenseVector f = mapping.vector(knn.field());
    if (f == null) {
      return List.of();
    }
    MutableHnswGraph graph = graphs.get(knn.field());
    if (approximate && graph != null && f.indexed()) {
      return graphKnn(knn, f, graph, accept, thresholds, plans);
    }
    plans.add(QueryPlan.EXACT);
    TopK top = new TopK(Math.max(1, knn.k()));
    float floor =
        knn.similarity() == null
            ? Float.NEGATIVE_INFINITY
            : Evaluator.scoreFloor(f.similarity(), knn.similarity());
    for (int ord = 0; ord < docs.size(); ord++) {
      ParsedDocument d = docs.get(ord);
      if (d == null) {
        continue;
      }
      float[] v = d.vector(knn.field());
      if (v == null || !accept.test(ord)) {
        continue;
      }
      float s = f.similarity().score(knn.vector(), v);
      if (s < floor) {
        continue;
      }
      s *= knn.boost();
      if (s >= top.threshold()) {
        top.offer(s, ord);
      }
    }
    return hits(top, knn.k());
  }
}
