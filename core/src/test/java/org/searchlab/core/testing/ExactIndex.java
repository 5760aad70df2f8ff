package org.searchlab.core.testing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Fusion;
import org.searchlab.core.Hit;
import org.searchlab.core.IndexStats;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.Timings;
import org.searchlab.core.TotalHits;
import org.searchlab.core.WriteResult;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.scoring.Bm25;
import org.searchlab.core.scoring.VectorScores;
import org.searchlab.core.wal.OperationCodec;
import org.searchlab.core.wal.WalConfig;
import org.searchlab.core.wal.WriteAheadLog;

/**
 * The brute-force reference store: every query scores every document exactly. Lexical scores are
 * computed with {@link Bm25} from per-field term frequencies and Lucene's one-byte norms; vector
 * scores are exact closeness over all vectors. It is real and persistent (the core write-ahead log
 * plus a snapshot on flush), so the conformance suite runs against it unchanged.
 *
 * <p>Thread-safe: writes take a write lock, reads a read lock. Searches are real-time.
 */
public final class ExactIndex implements SearchIndex {
  private static final String SNAPSHOT = "exact-snapshot.bin";

  private final Path dir;
  private final Schema schema;
  private final WriteAheadLog wal;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  // Guarded by lock. TreeMap: deterministic iteration for unranked results.
  private final Map<String, Entry> docs = new TreeMap<>();
  private final FieldStats[] fieldStats = {new FieldStats(), new FieldStats()};
  private long flushedSerial;
  private boolean closed;

  /** A document with its analysed text fields. */
  private record Entry(Document doc, Map<String, Integer>[] termFreqs, int[] lengths) {}

  /** Documents with ≥ 1 token in a field, total tokens, and per-term document frequencies. */
  private static final class FieldStats {
    long docCount;
    long sumTotalTermFreq;
    final Map<String, Integer> docFreq = new HashMap<>();
  }

  private ExactIndex(Path dir, Schema schema, WalConfig walConfig) throws IOException {
    this.dir = dir;
    this.schema = schema;
    Files.createDirectories(dir);
    loadSnapshot();
    this.wal = WriteAheadLog.open(dir.resolve("wal"), walConfig);
    wal.advanceTo(flushedSerial + 1);
    wal.replay(flushedSerial, (serial, payload) -> apply(OperationCodec.decode(payload)));
  }

  public static ExactIndex open(Path dir, Schema schema) throws IOException {
    return new ExactIndex(dir, schema, WalConfig.DEFAULT);
  }

  public static ExactIndex open(Path dir, Schema schema, WalConfig walConfig) throws IOException {
    return new ExactIndex(dir, schema, walConfig);
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public WriteResult put(Document doc) throws IOException {
    return write(schema.validate(Operation.put(doc)));
  }

  @Override
  public WriteResult update(PartialUpdate update) throws IOException {
    return write(schema.validate(Operation.update(update)));
  }

  @Override
  public WriteResult delete(String id) throws IOException {
    return write(schema.validate(Operation.delete(id)));
  }

  private WriteResult write(Operation op) throws IOException {
    long serial;
    WriteResult.Outcome outcome;
    lock.writeLock().lock();
    try {
      ensureOpen();
      outcome = outcomeOf(op);
      if (outcome == WriteResult.Outcome.NOT_FOUND) {
        return new WriteResult(op.id(), 0, outcome);
      }
      serial = wal.write(OperationCodec.encode(op));
      apply(op);
    } finally {
      lock.writeLock().unlock();
    }
    wal.sync(serial);
    return new WriteResult(op.id(), serial, outcome);
  }

  @Override
  public List<BulkItemResult> bulk(List<Operation> ops) throws IOException {
    if (ops == null || ops.isEmpty()) {
      throw new InvalidRequestException("bulk request has no operations");
    }
    List<BulkItemResult> results = new ArrayList<>(ops.size());
    long last = 0;
    lock.writeLock().lock();
    try {
      ensureOpen();
      for (Operation op : ops) {
        try {
          schema.validate(op);
        } catch (InvalidRequestException e) {
          results.add(BulkItemResult.failed(op, e));
          continue;
        }
        WriteResult.Outcome outcome = outcomeOf(op);
        if (outcome == WriteResult.Outcome.NOT_FOUND) {
          results.add(BulkItemResult.ok(op, new WriteResult(op.id(), 0, outcome)));
          continue;
        }
        last = wal.write(OperationCodec.encode(op));
        apply(op);
        results.add(BulkItemResult.ok(op, new WriteResult(op.id(), last, outcome)));
      }
    } finally {
      lock.writeLock().unlock();
    }
    if (last > 0) {
      wal.sync(last);
    }
    return results;
  }

  private WriteResult.Outcome outcomeOf(Operation op) {
    boolean exists = docs.containsKey(op.id());
    return switch (op) {
      case Operation.Put p -> exists ? WriteResult.Outcome.UPDATED : WriteResult.Outcome.CREATED;
      case Operation.Update u ->
          exists ? WriteResult.Outcome.UPDATED : WriteResult.Outcome.NOT_FOUND;
      case Operation.Delete d ->
          exists ? WriteResult.Outcome.DELETED : WriteResult.Outcome.NOT_FOUND;
    };
  }

  /** Under the write lock (or during open): applies an already-logged operation. */
  private void apply(Operation op) {
    switch (op) {
      case Operation.Put p -> {
        remove(p.id());
        add(p.document());
      }
      case Operation.Update u -> {
        Entry old = docs.get(u.id());
        if (old != null) {
          Document updated = u.update().applyTo(old.doc());
          remove(u.id());
          add(updated);
        }
      }
      case Operation.Delete d -> remove(d.id());
    }
  }

  @SuppressWarnings("unchecked")
  private void add(Document doc) {
    Map<String, Integer>[] tfs = new Map[2];
    int[] lengths = new int[2];
    for (int f = 0; f < 2; f++) {
      String text = f == 0 ? doc.title() : doc.description();
      List<String> tokens = TextAnalysis.tokens(text);
      Map<String, Integer> tf = new HashMap<>();
      for (String t : tokens) {
        tf.merge(t, 1, Integer::sum);
      }
      tfs[f] = tf;
      lengths[f] = tokens.size();
      if (!tokens.isEmpty()) {
        fieldStats[f].docCount++;
        fieldStats[f].sumTotalTermFreq += tokens.size();
        for (String t : tf.keySet()) {
          fieldStats[f].docFreq.merge(t, 1, Integer::sum);
        }
      }
    }
    docs.put(doc.id(), new Entry(doc, tfs, lengths));
  }

  private void remove(String id) {
    Entry e = docs.remove(id);
    if (e == null) {
      return;
    }
    for (int f = 0; f < 2; f++) {
      if (e.lengths[f] > 0) {
        fieldStats[f].docCount--;
        fieldStats[f].sumTotalTermFreq -= e.lengths[f];
        for (String t : e.termFreqs[f].keySet()) {
          fieldStats[f].docFreq.merge(t, -1, (a, b) -> a + b == 0 ? null : a + b);
        }
      }
    }
  }

  @Override
  public Optional<Document> get(String id) {
    lock.readLock().lock();
    try {
      ensureOpen();
      Entry e = docs.get(id);
      return e == null ? Optional.empty() : Optional.of(e.doc());
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public SearchResult search(SearchRequest request) {
    request.validate(schema);
    long start = System.nanoTime();
    lock.readLock().lock();
    try {
      ensureOpen();
      Filter filter = request.filter();
      Map<String, Float> lexical = request.hasLexicalPart() ? lexicalScores(request) : Map.of();
      List<Hit> vector = request.hasVectorPart() ? vectorHits(request) : List.of();
      List<Hit> ranked;
      long total;
      String lexPlan = request.hasLexicalPart() ? QueryPlan.EXHAUSTIVE : QueryPlan.NONE;
      String vecPlan = request.hasVectorPart() ? QueryPlan.EXACT : QueryPlan.NONE;
      switch (request.rankProfile()) {
        case BM25 -> {
          ranked = sorted(lexical);
          total = lexical.size();
        }
        case CLOSENESS -> {
          ranked = vector;
          total = vector.size();
        }
        case HYBRID -> {
          ranked = fuse(request, sorted(lexical), vector);
          total = ranked.size();
        }
        default -> {
          ranked = new ArrayList<>();
          for (Entry e : docs.values()) {
            if (filter.matches(e.doc())) {
              ranked.add(new Hit(e.doc().id(), 1f));
            }
          }
          total = ranked.size();
          lexPlan = QueryPlan.FILTER_SCAN;
        }
      }
      TotalHits totalHits =
          request.hasLexicalPart() && total > request.trackTotalHitsUpTo()
              ? TotalHits.atLeast(request.trackTotalHitsUpTo())
              : TotalHits.exact(total);
      int from = Math.min(request.offset(), ranked.size());
      int to = Math.min(from + request.hits(), ranked.size());
      long took = System.nanoTime() - start;
      return new SearchResult(
          ranked.subList(from, to),
          totalHits,
          new QueryPlan(lexPlan, vecPlan),
          new Timings(took, 0, 0, 0));
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Exact lexical scores of every matching document that passes the filter: max over fields of the
   * sum over query tokens (with repeats) of Lucene's BM25.
   */
  private Map<String, Float> lexicalScores(SearchRequest request) {
    List<String> query = TextAnalysis.tokens(request.text());
    Map<String, Float> scores = new HashMap<>();
    if (query.isEmpty()) {
      return scores;
    }
    float[][] weights = new float[2][query.size()];
    float[][] cache = new float[2][];
    for (int f = 0; f < 2; f++) {
      FieldStats fs = fieldStats[f];
      if (fs.docCount == 0) {
        continue;
      }
      cache[f] = Bm25.normInverseCache(Bm25.avgFieldLength(fs.sumTotalTermFreq, fs.docCount));
      for (int q = 0; q < query.size(); q++) {
        int df = fs.docFreq.getOrDefault(query.get(q), 0);
        weights[f][q] = df == 0 ? 0 : Bm25.idf(df, fs.docCount);
      }
    }
    for (Entry e : docs.values()) {
      if (!request.filter().matches(e.doc())) {
        continue;
      }
      float best = Float.NEGATIVE_INFINITY;
      for (int f = 0; f < 2; f++) {
        if (cache[f] == null) {
          continue;
        }
        float normInverse = cache[f][Bm25.encodeNorm(e.lengths[f]) & 0xFF];
        double sum = 0;
        boolean matched = false;
        for (int q = 0; q < query.size(); q++) {
          Integer tf = e.termFreqs[f].get(query.get(q));
          if (tf != null) {
            matched = true;
            sum += Bm25.score(weights[f][q], tf, normInverse);
          }
        }
        if (matched) {
          best = Math.max(best, (float) sum);
        }
      }
      if (best != Float.NEGATIVE_INFINITY) {
        scores.put(e.doc().id(), best);
      }
    }
    return scores;
  }

  /** Exact top-{@code targetHits} by closeness among documents with a vector passing the filter. */
  private List<Hit> vectorHits(SearchRequest request) {
    List<Hit> all = new ArrayList<>();
    for (Entry e : docs.values()) {
      Document d = e.doc();
      if (d.hasEmbedding() && request.filter().matches(d)) {
        all.add(new Hit(d.id(), VectorScores.closeness(request.vector(), d.embedding())));
      }
    }
    all.sort(BY_SCORE);
    return new ArrayList<>(all.subList(0, Math.min(request.targetHits(), all.size())));
  }

  /** Combines the parts as {@link Fusion} defines; candidates are the union of both lists. */
  static List<Hit> fuse(SearchRequest request, List<Hit> lexical, List<Hit> vector) {
    Map<String, Float> score = new LinkedHashMap<>();
    if (request.fusion() == Fusion.SUM) {
      for (Hit h : lexical) score.merge(h.id(), h.score(), Float::sum);
      for (Hit h : vector) score.merge(h.id(), h.score(), Float::sum);
    } else {
      int window = request.rrfWindow();
      for (List<Hit> part : List.of(lexical, vector)) {
        for (int i = 0; i < Math.min(window, part.size()); i++) {
          score.merge(part.get(i).id(), 1f / (Fusion.RRF_K + i + 1), Float::sum);
        }
      }
      // Candidates outside both windows still match; they rank after every fused one.
      for (Hit h : lexical) score.putIfAbsent(h.id(), 0f);
      for (Hit h : vector) score.putIfAbsent(h.id(), 0f);
    }
    return sorted(score);
  }

  static final Comparator<Hit> BY_SCORE =
      Comparator.comparingDouble((Hit h) -> -h.score()).thenComparing(Hit::id);

  private static List<Hit> sorted(Map<String, Float> scores) {
    List<Hit> hits = new ArrayList<>(scores.size());
    scores.forEach((id, s) -> hits.add(new Hit(id, s)));
    hits.sort(BY_SCORE);
    return hits;
  }

  /** The exact lexical score of one document for {@code text}, or NaN if it does not match. */
  public float lexicalScore(String id, String text) {
    SearchRequest r = SearchRequest.builder().text(text).build();
    lock.readLock().lock();
    try {
      return lexicalScores(r).getOrDefault(id, Float.NaN);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void refresh() {
    // Real-time: every acknowledged write is already visible.
  }

  @Override
  public void flush() throws IOException {
    lock.writeLock().lock();
    try {
      ensureOpen();
      long serial = wal.lastSerial();
      Path tmp = dir.resolve(SNAPSHOT + ".tmp");
      try (DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp)))) {
        out.writeLong(serial);
        out.writeInt(docs.size());
        for (Entry e : docs.values()) {
          OperationCodec.writeDocument(out, e.doc());
        }
      }
      try (var ch =
          java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
        ch.force(true);
      }
      Files.move(tmp, dir.resolve(SNAPSHOT), StandardCopyOption.ATOMIC_MOVE);
      flushedSerial = serial;
      wal.trimUpTo(serial);
    } finally {
      lock.writeLock().unlock();
    }
  }

  private void loadSnapshot() throws IOException {
    Path f = dir.resolve(SNAPSHOT);
    if (!Files.exists(f)) {
      return;
    }
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(f)))) {
      flushedSerial = in.readLong();
      int n = in.readInt();
      for (int i = 0; i < n; i++) {
        add(OperationCodec.readDocument(in));
      }
    }
  }

  @Override
  public void forceMerge(int maxSegments) {
    if (maxSegments < 1) {
      throw new InvalidRequestException("max_num_segments " + maxSegments + " must be ≥ 1");
    }
  }

  @Override
  public IndexStats stats() throws IOException {
    lock.readLock().lock();
    try {
      ensureOpen();
      return new IndexStats(
          "exact",
          docs.size(),
          0,
          1,
          List.of(),
          wal.lastSerial(),
          flushedSerial,
          wal.sizeBytes(),
          Map.of(),
          Map.of());
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void close() throws IOException {
    lock.writeLock().lock();
    try {
      if (!closed) {
        closed = true;
        wal.close();
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("index in " + dir + " is closed");
    }
  }
}
