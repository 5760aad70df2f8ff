package org.searchlab.segmented;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.OrdinalMap;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.LongValues;
import org.apache.lucene.util.NumericUtils;
import org.apache.lucene.util.packed.PackedInts;
import org.searchlab.core.Document;
import org.searchlab.core.Hit;
import org.searchlab.core.agg.AggregationSource;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.Query;

/**
 * The segmented store's values for aggregations, read as Elasticsearch reads them: per segment from
 * doc values ({@code SortedSetDocValues} of keywords, {@code SortedNumericDocValues} of numbers,
 * doubles decoded from their sortable longs), with a keyword's segment ordinals mapped to global
 * ordinals through Lucene's {@link OrdinalMap}. Global ordinals are built once per reader and field
 * and kept until the reader closes ({@link GlobalOrdinals}), as Elasticsearch caches them per
 * refresh; the first aggregation after a refresh pays for the build. One per search; not
 * thread-safe.
 */
final class SegmentedAggregationSource implements AggregationSource {
  private final IndexSearcher searcher;
  private final Mapping mapping;
  private final LuceneQueries queries;
  private final DocumentFields fields;
  private final GlobalOrdinals globalOrdinals;
  private final List<SegmentLeaf> leaves = new ArrayList<>();

  SegmentedAggregationSource(
      IndexSearcher searcher,
      Mapping mapping,
      LuceneQueries queries,
      DocumentFields fields,
      GlobalOrdinals globalOrdinals) {
    this.searcher = searcher;
    this.mapping = mapping;
    this.queries = queries;
    this.fields = fields;
    this.globalOrdinals = globalOrdinals;
    for (LeafReaderContext c : searcher.getIndexReader().leaves()) {
      leaves.add(new SegmentLeaf(c));
    }
  }

  @Override
  public List<? extends Leaf> leaves() {
    return leaves;
  }

  @Override
  public KeywordDictionary dictionary(String field) throws IOException {
    GlobalOrdinals.Entry e = globalOrdinals.get(searcher.getIndexReader(), field);
    if (e == null) {
      return null;
    }
    return new KeywordDictionary() {
      @Override
      public long size() {
        return e.size();
      }

      @Override
      public String term(long ord) throws IOException {
        return e.term(ord);
      }
    };
  }

  /**
   * Global ordinals of keyword fields, per reader: the {@link OrdinalMap} of each field's segments,
   * built on first use and dropped when the reader closes. Thread-safe.
   */
  static final class GlobalOrdinals {
    private final Map<IndexReader.CacheKey, Map<String, Entry>> byReader =
        new ConcurrentHashMap<>();

    /** One field's global ordinals over one reader. */
    record Entry(IndexReader reader, String field, OrdinalMap map, long size) {
      /** A segment's ordinal to the global one. */
      LongValues globalOrds(int leaf) {
        return map == null ? LongValues.IDENTITY : map.getGlobalOrds(leaf);
      }

      String term(long ord) throws IOException {
        int leaf = map == null ? firstLeaf() : map.getFirstSegmentNumber(ord);
        long segmentOrd = map == null ? ord : map.getFirstSegmentOrd(ord);
        SortedSetDocValues dv = DocValues.getSortedSet(reader.leaves().get(leaf).reader(), field);
        return dv.lookupOrd(segmentOrd).utf8ToString();
      }

      private int firstLeaf() throws IOException {
        for (LeafReaderContext c : reader.leaves()) {
          if (c.reader().getSortedSetDocValues(field) != null) {
            return c.ord;
          }
        }
        return 0;
      }
    }

    Entry get(IndexReader reader, String field) throws IOException {
      IndexReader.CacheHelper helper = reader.getReaderCacheHelper();
      if (helper == null) {
        return build(reader, field);
      }
      Map<String, Entry> fieldsOf =
          byReader.computeIfAbsent(
              helper.getKey(),
              k -> {
                helper.addClosedListener(byReader::remove);
                return new ConcurrentHashMap<>();
              });
      Entry e = fieldsOf.get(field);
      if (e == null) {
        e = build(reader, field);
        if (e != null) {
          fieldsOf.putIfAbsent(field, e);
        }
      }
      return e;
    }

    private static Entry build(IndexReader reader, String field) throws IOException {
      List<LeafReaderContext> leaves = reader.leaves();
      SortedSetDocValues[] values = new SortedSetDocValues[leaves.size()];
      int present = 0;
      int only = -1;
      for (int i = 0; i < leaves.size(); i++) {
        SortedSetDocValues v = leaves.get(i).reader().getSortedSetDocValues(field);
        values[i] = v == null ? DocValues.emptySortedSet() : v;
        if (v != null) {
          present++;
          only = i;
        }
      }
      if (present == 0) {
        return null;
      }
      if (leaves.size() == 1) {
        return new Entry(reader, field, null, values[only].getValueCount());
      }
      OrdinalMap map =
          OrdinalMap.build(
              reader.getReaderCacheHelper() == null ? null : reader.getReaderCacheHelper().getKey(),
              values,
              PackedInts.DEFAULT);
      return new Entry(reader, field, map, map.getValueCount());
    }
  }

  /** One segment. */
  private final class SegmentLeaf implements Leaf {
    private final LeafReaderContext context;

    SegmentLeaf(LeafReaderContext context) {
      this.context = context;
    }

    @Override
    public int maxDoc() {
      return context.reader().maxDoc();
    }

    @Override
    public OrdinalValues ordinals(String field) throws IOException {
      SortedSetDocValues dv = context.reader().getSortedSetDocValues(field);
      if (dv == null) {
        return null;
      }
      LongValues global =
          globalOrdinals.get(searcher.getIndexReader(), field).globalOrds(context.ord);
      return new OrdinalValues() {
        private long[] ords = new long[4];
        private int count;

        @Override
        public boolean advanceExact(int doc) throws IOException {
          count = 0;
          if (!dv.advanceExact(doc)) {
            return false;
          }
          int n = dv.docValueCount();
          if (ords.length < n) {
            ords = new long[n];
          }
          for (int i = 0; i < n; i++) {
            ords[i] = global.get(dv.nextOrd());
          }
          count = n;
          return true;
        }

        @Override
        public int count() {
          return count;
        }

        @Override
        public long ord(int i) {
          return ords[i];
        }
      };
    }

    @Override
    public NumericValues numbers(String field) throws IOException {
      FieldType f = mapping.leaf(field);
      boolean floating = f instanceof FieldType.Numeric n && !n.type().integral();
      // An index: false field keeps single values as numeric doc values and several under its
      // multi-valued name (MappedDocuments); read both.
      SortedNumericDocValues single = DocValues.getSortedNumeric(context.reader(), field);
      SortedNumericDocValues multi =
          context.reader().getSortedNumericDocValues(MappedDocuments.MULTI_VALUED + field);
      if (context.reader().getFieldInfos().fieldInfo(field) == null && multi == null) {
        return null;
      }
      return new NumericValues() {
        private long[] values = new long[4];
        private int count;

        @Override
        public boolean advanceExact(int doc) throws IOException {
          count = 0;
          SortedNumericDocValues dv =
              single.advanceExact(doc)
                  ? single
                  : multi != null && multi.advanceExact(doc) ? multi : null;
          if (dv == null) {
            return false;
          }
          int n = dv.docValueCount();
          if (values.length < n) {
            values = new long[n];
          }
          for (int i = 0; i < n; i++) {
            values[i] = dv.nextValue();
          }
          count = n;
          return true;
        }

        @Override
        public int count() {
          return count;
        }

        @Override
        public long longValue(int i) {
          return values[i];
        }

        @Override
        public double doubleValue(int i) {
          return floating ? NumericUtils.sortableLongToDouble(values[i]) : values[i];
        }
      };
    }

    @Override
    public DocMatcher matcher(Query query) throws IOException {
      org.apache.lucene.search.Query q = searcher.rewrite(queries.translate(query));
      Weight w = searcher.createWeight(q, ScoreMode.COMPLETE_NO_SCORES, 1f);
      Scorer s = w.scorer(context);
      if (s == null) {
        return doc -> false;
      }
      DocIdSetIterator it = s.iterator();
      return doc -> {
        if (it.docID() < doc) {
          it.advance(doc);
        }
        return it.docID() == doc;
      };
    }

    @Override
    public Hit hit(int doc, float score) throws IOException {
      Document d = fields.load(context.reader(), doc);
      return new Hit(d.id(), score, d);
    }
  }
}
