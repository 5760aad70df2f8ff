// Over 500 lines: the four value-bucketing aggregations share their candidate, ordering and
// sub-aggregation steps here; metrics and cardinality live in their own files.
package org.searchlab.core.agg;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.searchlab.core.agg.Aggregation.BucketOrder;
import org.searchlab.core.agg.AggregationResult.Bucket;
import org.searchlab.core.agg.AggregationResult.Buckets;
import org.searchlab.core.agg.AggregationSource.DocMatcher;
import org.searchlab.core.agg.AggregationSource.KeywordDictionary;
import org.searchlab.core.agg.AggregationSource.NumericValues;
import org.searchlab.core.agg.AggregationSource.OrdinalValues;
import org.searchlab.core.agg.MatchSet.LeafMatches;
import org.searchlab.core.mapping.Dates;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.FieldValues;

/**
 * One search's aggregations: walks the request's tree over a {@link MatchSet}, counting buckets in
 * one pass and running sub-aggregations over each returned bucket's documents. Keeps the response's
 * bucket count against {@link Aggregation#MAX_BUCKETS}. Not thread-safe; one per search.
 */
final class AggregationEngine {
  private final Mapping mapping;
  private final AggregationSource source;
  private long buckets;

  AggregationEngine(Mapping mapping, AggregationSource source) {
    this.mapping = mapping;
    this.source = source;
  }

  Map<String, AggregationResult> all(Map<String, Aggregation> aggs, MatchSet docs)
      throws IOException {
    Map<String, AggregationResult> out = new LinkedHashMap<>();
    for (Map.Entry<String, Aggregation> e : aggs.entrySet()) {
      out.put(e.getKey(), one(e.getValue(), docs));
    }
    return java.util.Collections.unmodifiableMap(out);
  }

  AggregationResult one(Aggregation a, MatchSet docs) throws IOException {
    return switch (a) {
      case Aggregation.Terms t -> terms(t, docs);
      case Aggregation.Range r -> range(r, docs);
      case Aggregation.Histogram h -> histogram(h, docs);
      case Aggregation.DateHistogram d -> dateHistogram(d, docs);
      case Aggregation.Filter f -> filter(f, docs);
      case Aggregation.Filters f -> filters(f, docs);
      case Aggregation.Metric m -> Metrics.metric(m, mapping.leaf(m.field()), source, docs);
      case Aggregation.Cardinality c ->
          Cardinalities.cardinality(c, mapping.leaf(c.field()), source, docs);
      case Aggregation.TopHits t -> TopHitsCollector.topHits(t, mapping, source, docs);
    };
  }

  private void addBuckets(long n) {
    buckets += n;
    if (buckets > Aggregation.MAX_BUCKETS) {
      throw Aggregations.tooManyBuckets(buckets);
    }
  }

  // ----------------------------------------------------------------------------------------------
  // Candidate buckets: a key, its count, and (when sub-aggregations need them) its documents.

  /** A bucket before ordering: its key and count, and its documents once grouped. */
  private static final class Candidate {
    final Object key;
    String keyAsString;
    long count;
    MatchSet.Builder docs;
    Map<String, AggregationResult> subs;

    Candidate(Object key, String keyAsString) {
      this.key = key;
      this.keyAsString = keyAsString;
    }
  }

  /** Reads which candidates each document of a leaf falls in. */
  private interface KeysOfDoc {
    /** Calls {@code sink} once per distinct candidate key of {@code doc}. */
    void keys(int leaf, int doc, KeySink sink) throws IOException;
  }

  private interface KeySink {
    void key(Object key) throws IOException;
  }

  /** Groups the documents of {@code docs} by the candidates' keys, for their sub-aggregations. */
  private static void group(MatchSet docs, Map<Object, Candidate> byKey, KeysOfDoc keys)
      throws IOException {
    for (Candidate c : byKey.values()) {
      c.docs = new MatchSet.Builder();
    }
    for (LeafMatches l : docs.leaves()) {
      for (int i = 0; i < l.count(); i++) {
        int doc = l.docs()[i];
        float score = l.scores()[i];
        int leaf = l.leaf();
        keys.keys(
            leaf,
            doc,
            k -> {
              Candidate c = byKey.get(k);
              if (c != null) {
                c.docs.add(leaf, doc, score);
              }
            });
      }
    }
  }

  private Map<String, AggregationResult> subs(Map<String, Aggregation> subs, Candidate c)
      throws IOException {
    if (subs.isEmpty()) {
      return Map.of();
    }
    if (c.subs == null) {
      c.subs = all(subs, c.docs == null ? MatchSet.EMPTY : c.docs.build());
    }
    return c.subs;
  }

  private Map<String, AggregationResult> subs(Map<String, Aggregation> subs, MatchSet docs)
      throws IOException {
    return subs.isEmpty() ? Map.of() : all(subs, docs);
  }

  // ----------------------------------------------------------------------------------------------
  // terms

  private AggregationResult terms(Aggregation.Terms t, MatchSet docs) throws IOException {
    FieldType f = mapping.leaf(t.field());
    Map<Object, Candidate> byKey = new LinkedHashMap<>();
    KeysOfDoc keys;
    if (f == null) {
      return new Buckets("terms", List.of(), false, 0);
    } else if (f instanceof FieldType.Keyword) {
      keys = keywordTerms(t, docs, byKey);
    } else {
      keys = numericTerms(t, f, docs, byKey);
    }
    List<Candidate> candidates = new ArrayList<>();
    long minCount = Math.max(t.minDocCount(), 1);
    for (Candidate c : byKey.values()) {
      if (c.count >= minCount || (t.minDocCount() == 0 && c.count == 0)) {
        candidates.add(c);
      }
    }
    boolean bySub = false;
    for (BucketOrder o : t.order()) {
      bySub |= !o.path().equals(BucketOrder.COUNT) && !o.path().equals(BucketOrder.KEY);
    }
    if (bySub) {
      // Ordering by a sub-aggregation needs it on every candidate, so every candidate's documents.
      Map<Object, Candidate> all = new HashMap<>();
      for (Candidate c : candidates) {
        all.put(c.key, c);
      }
      group(docs, all, keys);
      for (Candidate c : candidates) {
        subs(t.subAggregations(), c);
      }
    }
    candidates.sort(order(t.order(), t.subAggregations()));
    int n = Math.min(t.size(), candidates.size());
    addBuckets(n);
    long other = 0;
    for (int i = n; i < candidates.size(); i++) {
      other += candidates.get(i).count;
    }
    List<Candidate> kept = candidates.subList(0, n);
    if (!bySub && !t.subAggregations().isEmpty()) {
      Map<Object, Candidate> chosen = new HashMap<>();
      for (Candidate c : kept) {
        chosen.put(c.key, c);
      }
      group(docs, chosen, keys);
    }
    List<Bucket> out = new ArrayList<>(n);
    for (Candidate c : kept) {
      out.add(new Bucket(c.key, c.keyAsString, c.count, null, null, subs(t.subAggregations(), c)));
    }
    return new Buckets("terms", out, false, other);
  }

  private KeysOfDoc keywordTerms(Aggregation.Terms t, MatchSet docs, Map<Object, Candidate> byKey)
      throws IOException {
    KeywordDictionary dict = source.dictionary(t.field());
    long size = dict == null ? 0 : dict.size();
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("dictionary of " + size + " values");
    }
    long[] counts = new long[(int) size];
    String missing = t.missing() == null ? null : String.valueOf(t.missing());
    long missingCount = 0;
    Readers<OrdinalValues> readers = new Readers<>(leaf -> leaf.ordinals(t.field()));
    for (LeafMatches l : docs.leaves()) {
      for (int i = 0; i < l.count(); i++) {
        OrdinalValues ov = readers.at(l.leaf(), l.docs()[i]);
        if (ov != null && ov.advanceExact(l.docs()[i])) {
          for (int j = 0, c = ov.count(); j < c; j++) {
            counts[(int) ov.ord(j)]++;
          }
        } else if (missing != null) {
          missingCount++;
        }
      }
    }
    for (int ord = 0; ord < size; ord++) {
      if (counts[ord] > 0 || t.minDocCount() == 0) {
        String term = dict.term(ord);
        Candidate c = new Candidate(term, null);
        c.count = counts[ord];
        byKey.put(term, c);
      }
    }
    if (missingCount > 0) {
      byKey.computeIfAbsent(missing, k -> new Candidate(k, null)).count += missingCount;
    }
    return (leaf, doc, sink) -> {
      OrdinalValues ov = readers.at(leaf, doc);
      if (ov != null && ov.advanceExact(doc)) {
        for (int j = 0, c = ov.count(); j < c; j++) {
          sink.key(dict.term(ov.ord(j)));
        }
      } else if (missing != null) {
        sink.key(missing);
      }
    };
  }

  private KeysOfDoc numericTerms(
      Aggregation.Terms t, FieldType f, MatchSet docs, Map<Object, Candidate> byKey)
      throws IOException {
    boolean floating = isFloating(f);
    Object missing = t.missing() == null ? null : FieldValues.termValue(f, t.field(), t.missing());
    Readers<NumericValues> readers = new Readers<>(leaf -> leaf.numbers(t.field()));
    KeysOfDoc keys =
        (leaf, doc, sink) -> {
          NumericValues nv = readers.at(leaf, doc);
          if (nv != null && nv.advanceExact(doc)) {
            Object previous = null;
            for (int j = 0, c = nv.count(); j < c; j++) {
              Object k = floating ? (Object) nv.doubleValue(j) : (Object) nv.longValue(j);
              if (!k.equals(previous)) {
                sink.key(k);
              }
              previous = k;
            }
          } else if (missing != null) {
            sink.key(missing);
          }
        };
    for (LeafMatches l : docs.leaves()) {
      for (int i = 0; i < l.count(); i++) {
        keys.keys(
            l.leaf(),
            l.docs()[i],
            k -> byKey.computeIfAbsent(k, x -> new Candidate(x, keyAsString(f, x))).count++);
      }
    }
    if (t.minDocCount() == 0) {
      // Every value the view holds, listed with a count of 0 as Elasticsearch lists them.
      List<? extends AggregationSource.Leaf> leaves = source.leaves();
      for (int leaf = 0; leaf < leaves.size(); leaf++) {
        NumericValues nv = leaves.get(leaf).numbers(t.field());
        for (int doc = 0, max = leaves.get(leaf).maxDoc(); nv != null && doc < max; doc++) {
          if (nv.advanceExact(doc)) {
            for (int j = 0, c = nv.count(); j < c; j++) {
              Object k = floating ? (Object) nv.doubleValue(j) : (Object) nv.longValue(j);
              byKey.computeIfAbsent(k, x -> new Candidate(x, keyAsString(f, x)));
            }
          }
        }
      }
    }
    return keys;
  }

  /** Opens one reader per leaf. */
  private interface ReaderOpener<R> {
    R open(AggregationSource.Leaf leaf) throws IOException;
  }

  /**
   * Per-leaf readers positioned for the next document: readers read forwards only, so a pass that
   * starts over (grouping after counting) gets fresh ones.
   */
  private final class Readers<R> {
    private final ReaderOpener<R> opener;
    private final Object[] readers = new Object[source.leaves().size()];
    private final int[] lastDoc = new int[readers.length];
    private final boolean[] opened = new boolean[readers.length];

    Readers(ReaderOpener<R> opener) {
      this.opener = opener;
    }

    @SuppressWarnings("unchecked")
    R at(int leaf, int doc) throws IOException {
      if (!opened[leaf] || doc <= lastDoc[leaf]) {
        readers[leaf] = opener.open(source.leaves().get(leaf));
        opened[leaf] = true;
      }
      lastDoc[leaf] = doc;
      return (R) readers[leaf];
    }
  }

  /** Whether a field's values read as doubles. */
  static boolean isFloating(FieldType f) {
    return f instanceof FieldType.Numeric n && !n.type().integral();
  }

  /** The key as the field's format writes it: dates as ISO-8601, booleans as words; else null. */
  static String keyAsString(FieldType f, Object key) {
    return switch (f) {
      case FieldType.Date d -> DateRounding.format(((Number) key).longValue(), "UTC", d.format());
      case FieldType.Bool b -> ((Number) key).longValue() != 0 ? "true" : "false";
      default -> null;
    };
  }

  /** The request's bucket order, then key ascending for ties. */
  private Comparator<Candidate> order(List<BucketOrder> orders, Map<String, Aggregation> subs) {
    Comparator<Candidate> c = null;
    boolean byKey = false;
    for (BucketOrder o : orders) {
      Comparator<Candidate> one;
      if (o.path().equals(BucketOrder.COUNT)) {
        one = Comparator.comparingLong(x -> x.count);
      } else if (o.path().equals(BucketOrder.KEY)) {
        one = (a, b) -> compareKeys(a.key, b.key);
        byKey = true;
      } else {
        // Elasticsearch's compareDiscardNaN: a NaN (an empty bucket's avg) sorts last either way.
        String path = o.path();
        boolean asc = o.ascending();
        one =
            (a, b) -> {
              double x = SubOrder.value(path, a.subs);
              double y = SubOrder.value(path, b.subs);
              if (Double.isNaN(x) || Double.isNaN(y)) {
                return Boolean.compare(Double.isNaN(x), Double.isNaN(y));
              }
              return asc ? Double.compare(x, y) : Double.compare(y, x);
            };
        c = c == null ? one : c.thenComparing(one);
        continue;
      }
      one = o.ascending() ? one : one.reversed();
      c = c == null ? one : c.thenComparing(one);
    }
    if (!byKey) {
      c = c.thenComparing((a, b) -> compareKeys(a.key, b.key));
    }
    return c;
  }

  /** Orders keys as Lucene orders the values: strings by UTF-8 bytes, numbers numerically. */
  static int compareKeys(Object a, Object b) {
    if (a instanceof String x && b instanceof String y) {
      return FieldValues.compareUtf8(x, y);
    }
    if (a instanceof Long x && b instanceof Long y) {
      return Long.compare(x, y);
    }
    return Double.compare(((Number) a).doubleValue(), ((Number) b).doubleValue());
  }

  // ----------------------------------------------------------------------------------------------
  // range

  private AggregationResult range(Aggregation.Range r, MatchSet docs) throws IOException {
    FieldType f = mapping.leaf(r.field());
    List<Aggregation.RangeSpec> ranges = new ArrayList<>(r.ranges());
    ranges.sort(
        Comparator.comparingDouble((Aggregation.RangeSpec x) -> lower(x))
            .thenComparingDouble(x -> upper(x)));
    addBuckets(ranges.size());
    long[] counts = new long[ranges.size()];
    List<MatchSet.Builder> groups = new ArrayList<>();
    for (int i = 0; i < ranges.size(); i++) {
      groups.add(r.subAggregations().isEmpty() ? null : new MatchSet.Builder());
    }
    List<? extends AggregationSource.Leaf> leaves = source.leaves();
    for (LeafMatches l : f == null ? List.<LeafMatches>of() : docs.leaves()) {
      NumericValues nv = leaves.get(l.leaf()).numbers(r.field());
      if (nv == null) {
        continue;
      }
      for (int i = 0; i < l.count(); i++) {
        if (!nv.advanceExact(l.docs()[i])) {
          continue;
        }
        int c = nv.count();
        for (int k = 0; k < ranges.size(); k++) {
          double lo = lower(ranges.get(k));
          double hi = upper(ranges.get(k));
          for (int j = 0; j < c; j++) {
            double v = nv.doubleValue(j);
            if (v >= lo && v < hi) {
              counts[k]++;
              if (groups.get(k) != null) {
                groups.get(k).add(l.leaf(), l.docs()[i], l.scores()[i]);
              }
              break;
            }
          }
        }
      }
    }
    List<Bucket> out = new ArrayList<>();
    for (int k = 0; k < ranges.size(); k++) {
      Aggregation.RangeSpec s = ranges.get(k);
      String key = s.key() != null ? s.key() : rangeKey(f, s.from()) + "-" + rangeKey(f, s.to());
      MatchSet sub = groups.get(k) == null ? MatchSet.EMPTY : groups.get(k).build();
      out.add(new Bucket(key, null, counts[k], s.from(), s.to(), subs(r.subAggregations(), sub)));
    }
    return new Buckets("range", out, r.keyed(), 0);
  }

  private static double lower(Aggregation.RangeSpec s) {
    return s.from() == null ? Double.NEGATIVE_INFINITY : s.from();
  }

  private static double upper(Aggregation.RangeSpec s) {
    return s.to() == null ? Double.POSITIVE_INFINITY : s.to();
  }

  /** A bound as Elasticsearch writes it in a range key: {@code *} when open, dates formatted. */
  private static String rangeKey(FieldType f, Double bound) {
    if (bound == null || bound.isInfinite()) {
      return "*";
    }
    if (f instanceof FieldType.Date) {
      return DateRounding.format(bound.longValue(), "UTC", ((FieldType.Date) f).format());
    }
    return Double.toString(bound);
  }

  // ----------------------------------------------------------------------------------------------
  // histogram and date_histogram

  private AggregationResult histogram(Aggregation.Histogram h, MatchSet docs) throws IOException {
    double interval = h.interval();
    double offset = h.offset();
    java.util.function.DoubleUnaryOperator round =
        v -> Math.floor((v - offset) / interval) * interval + offset;
    TreeMap<Double, Candidate> byKey = new TreeMap<>();
    KeysOfDoc keys = numericKeys(h.field(), v -> round.applyAsDouble(v));
    countInto(docs, keys, byKey);
    if (h.minDocCount() == 0) {
      Double lo = byKey.isEmpty() ? null : byKey.firstKey();
      Double hi = byKey.isEmpty() ? null : byKey.lastKey();
      if (h.extendedMin() != null) {
        double e = round.applyAsDouble(h.extendedMin());
        lo = lo == null ? e : Math.min(lo, e);
      }
      if (h.extendedMax() != null) {
        double e = round.applyAsDouble(h.extendedMax());
        hi = hi == null ? e : Math.max(hi, e);
      }
      if (lo != null && hi != null) {
        double span = (hi - lo) / interval + 1;
        if (span > Aggregation.MAX_BUCKETS - buckets) {
          throw Aggregations.tooManyBuckets(buckets + (long) Math.min(span, 1e18));
        }
        for (double k = lo; k <= hi; ) {
          byKey.computeIfAbsent(k, x -> new Candidate(x, null));
          // Elasticsearch's next key: rounding k + interval can give k back when the interval is
          // not exact in binary (1/3 after 10.0), so it rounds from half an interval further.
          double next = round.applyAsDouble(k + interval + interval / 2);
          if (next <= k) {
            break; // an interval below the keys' precision: no further key is representable
          }
          k = next;
        }
      }
    }
    return histogramResult(
        "histogram", byKey, h.minDocCount(), h.keyed(), h.subAggregations(), docs, keys);
  }

  private AggregationResult dateHistogram(Aggregation.DateHistogram d, MatchSet docs)
      throws IOException {
    DateRounding rounding = DateRounding.of(d);
    TreeMap<Long, Candidate> byKey = new TreeMap<>();
    FieldType f = mapping.leaf(d.field());
    KeysOfDoc keys =
        f == null ? (leaf, doc, sink) -> {} : numericKeysLong(d.field(), rounding::round);
    countInto(docs, keys, byKey);
    if (d.minDocCount() == 0) {
      Long lo = byKey.isEmpty() ? null : byKey.firstKey();
      Long hi = byKey.isEmpty() ? null : byKey.lastKey();
      if (d.extendedMin() != null) {
        long e = rounding.round(d.extendedMin());
        lo = lo == null ? e : Math.min(lo, e);
      }
      if (d.extendedMax() != null) {
        long e = rounding.round(d.extendedMax());
        hi = hi == null ? e : Math.max(hi, e);
      }
      if (lo != null && hi != null) {
        long n = 0;
        for (long k = lo; k <= hi; k = rounding.next(k)) {
          if (++n > Aggregation.MAX_BUCKETS - buckets) {
            throw Aggregations.tooManyBuckets(buckets + rounding.estimate(lo, hi));
          }
          byKey.computeIfAbsent(k, x -> new Candidate(x, null));
        }
      }
    }
    String format =
        d.format() != null
            ? d.format()
            : f instanceof FieldType.Date date ? date.format() : Dates.DEFAULT_FORMAT;
    for (Candidate c : byKey.values()) {
      c.keyAsString = DateRounding.format((Long) c.key, d.timeZone(), format);
    }
    return histogramResult(
        "date_histogram", byKey, d.minDocCount(), d.keyed(), d.subAggregations(), docs, keys);
  }

  private <K> AggregationResult histogramResult(
      String type,
      TreeMap<K, Candidate> byKey,
      long minDocCount,
      boolean keyed,
      Map<String, Aggregation> subAggs,
      MatchSet docs,
      KeysOfDoc keys)
      throws IOException {
    List<Candidate> kept = new ArrayList<>();
    for (Candidate c : byKey.values()) {
      if (c.count >= minDocCount) {
        kept.add(c);
      }
    }
    addBuckets(kept.size());
    if (!subAggs.isEmpty()) {
      Map<Object, Candidate> chosen = new HashMap<>();
      for (Candidate c : kept) {
        chosen.put(c.key, c);
      }
      group(docs, chosen, keys);
    }
    List<Bucket> out = new ArrayList<>(kept.size());
    for (Candidate c : kept) {
      out.add(new Bucket(c.key, c.keyAsString, c.count, null, null, subs(subAggs, c)));
    }
    return new Buckets(type, out, keyed, 0);
  }

  private static <K> void countInto(MatchSet docs, KeysOfDoc keys, TreeMap<K, Candidate> byKey)
      throws IOException {
    for (LeafMatches l : docs.leaves()) {
      for (int i = 0; i < l.count(); i++) {
        keys.keys(
            l.leaf(),
            l.docs()[i],
            k -> {
              @SuppressWarnings("unchecked")
              K key = (K) k;
              byKey.computeIfAbsent(key, x -> new Candidate(x, null)).count++;
            });
      }
    }
  }

  /** Keys of a numeric field's values through {@code round}, each distinct key once per doc. */
  private KeysOfDoc numericKeys(String field, java.util.function.DoubleUnaryOperator round) {
    Readers<NumericValues> readers = new Readers<>(leaf -> leaf.numbers(field));
    return (leaf, doc, sink) -> {
      NumericValues nv = readers.at(leaf, doc);
      if (nv != null && nv.advanceExact(doc)) {
        double previous = Double.NaN;
        for (int j = 0, c = nv.count(); j < c; j++) {
          double k = round.applyAsDouble(nv.doubleValue(j));
          if (j == 0 || Double.compare(k, previous) != 0) {
            sink.key(k);
          }
          previous = k;
        }
      }
    };
  }

  private KeysOfDoc numericKeysLong(String field, java.util.function.LongUnaryOperator round) {
    Readers<NumericValues> readers = new Readers<>(leaf -> leaf.numbers(field));
    return (leaf, doc, sink) -> {
      NumericValues nv = readers.at(leaf, doc);
      if (nv != null && nv.advanceExact(doc)) {
        long previous = 0;
        for (int j = 0, c = nv.count(); j < c; j++) {
          long k = round.applyAsLong(nv.longValue(j));
          if (j == 0 || k != previous) {
            sink.key(k);
          }
          previous = k;
        }
      }
    };
  }

  // ----------------------------------------------------------------------------------------------
  // filter and filters

  private AggregationResult filter(Aggregation.Filter f, MatchSet docs) throws IOException {
    MatchSet in = docs.filter(matcher(f.filter()));
    addBuckets(1);
    return new AggregationResult.SingleBucket("filter", in.size(), subs(f.subAggregations(), in));
  }

  private AggregationResult filters(Aggregation.Filters f, MatchSet docs) throws IOException {
    List<Bucket> out = new ArrayList<>();
    List<MatchSet.LeafFilter> matchers = new ArrayList<>();
    addBuckets(f.filters().size() + (f.otherBucketKey() == null ? 0 : 1));
    for (Map.Entry<String, org.searchlab.core.query.Query> e : f.filters().entrySet()) {
      // One matcher for this bucket's pass, another for the other bucket's: each reads forwards.
      MatchSet in = docs.filter(matcher(e.getValue()));
      matchers.add(matcher(e.getValue()));
      out.add(new Bucket(e.getKey(), null, in.size(), null, null, subs(f.subAggregations(), in)));
    }
    if (f.otherBucketKey() != null) {
      MatchSet other =
          docs.filter(
              (leaf, index, doc) -> {
                for (MatchSet.LeafFilter m : matchers) {
                  if (m.keep(leaf, index, doc)) {
                    return false;
                  }
                }
                return true;
              });
      out.add(
          new Bucket(
              f.otherBucketKey(),
              null,
              other.size(),
              null,
              null,
              subs(f.subAggregations(), other)));
    }
    return new Buckets("filters", out, f.keyed(), 0);
  }

  /** A filter over a match set's documents: one matcher per leaf, asked in increasing order. */
  private MatchSet.LeafFilter matcher(org.searchlab.core.query.Query q) {
    Map<Integer, DocMatcher> byLeaf = new HashMap<>();
    return (leaf, index, doc) -> {
      DocMatcher m = byLeaf.get(leaf);
      if (m == null) {
        m = source.leaves().get(leaf).matcher(q);
        byLeaf.put(leaf, m);
      }
      return m.matches(doc);
    };
  }
}
