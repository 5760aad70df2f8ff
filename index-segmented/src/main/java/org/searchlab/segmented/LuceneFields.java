package org.searchlab.segmented;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.DelegatingAnalyzerWrapper;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.PerFieldSimilarityWrapper;
import org.apache.lucene.search.similarities.Similarity;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.scoring.Bm25;

/**
 * What Lucene's writer and searchers need to know of a mapping, field by field: the analyzer of
 * each text field, its BM25 parameters at search time, and each vector field's format. Immutable
 * and thread-safe; the per-field lookups read the mapping as it is when Lucene asks.
 *
 * @param analyzer the index-time analyzer (per field for a mapping)
 * @param similarity the search-time similarity (per-field BM25 for a mapping)
 * @param vectors a vector field's type by its name, or null for the benchmark's one field
 */
record LuceneFields(
    Analyzer analyzer, Similarity similarity, Function<String, FieldType.DenseVector> vectors) {

  /** The benchmark's fields: one analyzer, default BM25, the {@code embedding} format. */
  static final LuceneFields PRODUCT =
      new LuceneFields(TextAnalysis.analyzer(), new BM25Similarity(Bm25.K1, Bm25.B), null);

  /** The fields of the mapping {@code mapping} supplies (the newest one at each call). */
  static LuceneFields of(Supplier<Mapping> mapping) {
    return new LuceneFields(
        new PerFieldAnalyzer(mapping), new PerFieldBm25(mapping), f -> mapping.get().vector(f));
  }

  /** Each text field's own index-time analyzer; the project's analyzer for any other field. */
  static final class PerFieldAnalyzer extends DelegatingAnalyzerWrapper {
    private final Supplier<Mapping> mapping;

    PerFieldAnalyzer(Supplier<Mapping> mapping) {
      super(PER_FIELD_REUSE_STRATEGY);
      this.mapping = mapping;
    }

    @Override
    protected Analyzer getWrappedAnalyzer(String fieldName) {
      return mapping.get().leaf(fieldName) instanceof FieldType.Text t
          ? TextAnalysis.analyzer(t.analyzer())
          : TextAnalysis.analyzer();
    }
  }

  /**
   * BM25 with each text field's k1 and b (Elasticsearch's per-field {@code similarity}); default
   * BM25 for keywords. Norms do not depend on k1 and b, so changing them needs no reindex.
   */
  static final class PerFieldBm25 extends PerFieldSimilarityWrapper {
    private static final BM25Similarity DEFAULT = new BM25Similarity(Bm25.K1, Bm25.B);
    private final Supplier<Mapping> mapping;
    private final Map<FieldType.Bm25Similarity, BM25Similarity> bySettings =
        new ConcurrentHashMap<>();

    PerFieldBm25(Supplier<Mapping> mapping) {
      this.mapping = mapping;
    }

    @Override
    public Similarity get(String name) {
      if (mapping.get().leaf(name) instanceof FieldType.Text t
          && (t.similarity().k1() != Bm25.K1 || t.similarity().b() != Bm25.B)) {
        return bySettings.computeIfAbsent(t.similarity(), s -> new BM25Similarity(s.k1(), s.b()));
      }
      return DEFAULT;
    }
  }
}
