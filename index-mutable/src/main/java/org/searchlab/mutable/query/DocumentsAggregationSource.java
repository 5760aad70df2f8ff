package org.searchlab.mutable.query;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.searchlab.core.Hit;
import org.searchlab.core.agg.AggregationSource;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.ParsedDocument;
import org.searchlab.core.query.Query;

/**
 * The mutable store's values for aggregations and sorts: one leaf, the whole index, its documents
 * by local ordinal; a keyword field's values numbered by its dictionary of live values (the
 * keyword's own value map when the field is indexed, else the values of every live document), in no
 * particular order. Values are read from each document's parsed fields under the store's read lock.
 * One per search; not thread-safe.
 */
final class DocumentsAggregationSource implements AggregationSource {
  private final Documents docs;
  private final Evaluator evaluator;
  private final Map<String, Dictionary> dictionaries = new HashMap<>();
  private final List<Leaf> leaves = List.of(new WholeIndex());

  DocumentsAggregationSource(Documents docs, Evaluator evaluator) {
    this.docs = docs;
    this.evaluator = evaluator;
  }

  @Override
  public List<? extends Leaf> leaves() {
    return leaves;
  }

  @Override
  public KeywordDictionary dictionary(String field) {
    Dictionary d = dictionaries.computeIfAbsent(field, this::build);
    return d.terms.isEmpty() ? null : d;
  }

  private Dictionary build(String field) {
    Dictionary d = new Dictionary();
    Documents.KeywordField kf = docs.keywordField(field);
    if (kf != null) {
      for (String v : kf.docFreq.keySet()) {
        d.add(v);
      }
    } else {
      for (int ord = 0; ord < docs.ordinals(); ord++) {
        ParsedDocument p = docs.at(ord);
        String[] s = p == null ? null : p.strings(field);
        for (String v : s == null ? new String[0] : s) {
          d.add(v);
        }
      }
    }
    return d;
  }

  /** A keyword field's values, numbered as first met. */
  private static final class Dictionary implements KeywordDictionary {
    final List<String> terms = new ArrayList<>();
    final Map<String, Integer> ordOf = new HashMap<>();

    void add(String v) {
      if (ordOf.putIfAbsent(v, terms.size()) == null) {
        terms.add(v);
      }
    }

    @Override
    public long size() {
      return terms.size();
    }

    @Override
    public String term(long ord) {
      return terms.get((int) ord);
    }
  }

  private final class WholeIndex implements Leaf {
    @Override
    public int maxDoc() {
      return docs.ordinals();
    }

    @Override
    public OrdinalValues ordinals(String field) {
      if (!(docs.mapping().leaf(field) instanceof FieldType.Keyword)) {
        return null;
      }
      Dictionary dict = dictionaries.computeIfAbsent(field, DocumentsAggregationSource.this::build);
      return new OrdinalValues() {
        private long[] ords = new long[0];

        @Override
        public boolean advanceExact(int doc) {
          ParsedDocument p = docs.at(doc);
          String[] s = p == null ? null : p.strings(field);
          if (s == null || s.length == 0) {
            ords = new long[0];
            return false;
          }
          LinkedHashSet<String> distinct = new LinkedHashSet<>(Arrays.asList(s));
          ords = new long[distinct.size()];
          int i = 0;
          for (String v : distinct) {
            Integer o = dict.ordOf.get(v);
            if (o == null) { // a value the dictionary's map never counted: add it
              dict.add(v);
              o = dict.ordOf.get(v);
            }
            ords[i++] = o;
          }
          return true;
        }

        @Override
        public int count() {
          return ords.length;
        }

        @Override
        public long ord(int i) {
          return ords[i];
        }
      };
    }

    @Override
    public NumericValues numbers(String field) {
      return new NumericValues() {
        private long[] longs;
        private double[] doubles;

        @Override
        public boolean advanceExact(int doc) {
          ParsedDocument p = docs.at(doc);
          longs = p == null ? null : p.longs(field);
          doubles = p == null ? null : p.doubles(field);
          if (longs != null && longs.length > 1) {
            longs = longs.clone();
            Arrays.sort(longs);
          }
          if (doubles != null && doubles.length > 1) {
            doubles = doubles.clone();
            Arrays.sort(doubles);
          }
          return (longs != null && longs.length > 0) || (doubles != null && doubles.length > 0);
        }

        @Override
        public int count() {
          return longs != null ? longs.length : doubles.length;
        }

        @Override
        public long longValue(int i) {
          return longs[i];
        }

        @Override
        public double doubleValue(int i) {
          return longs != null ? longs[i] : doubles[i];
        }
      };
    }

    @Override
    public DocMatcher matcher(Query query) {
      return doc -> docs.at(doc) != null && evaluator.matches(query, doc);
    }

    @Override
    public Hit hit(int doc, float score) {
      ParsedDocument p = docs.at(doc);
      return new Hit(p.id(), score, p.document());
    }
  }
}
