package org.searchlab.bench.experiment;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.searchlab.bench.data.Dataset;
import org.searchlab.bench.data.DatasetInfo;
import org.searchlab.bench.data.DatasetQuery;
import org.searchlab.bench.data.SyntheticVariants;
import org.searchlab.core.Document;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The documents an experiment feeds and the queries it sends, held in memory so that every variant
 * gets the same bytes and exact search can run over them. Immutable.
 *
 * @param docs the documents, in feed order
 * @param queries benchmark queries: first 8 title words, own vector, category as filter
 * @param source where they came from, for the report
 * @param mapping the index the documents go into and the roles of its fields
 */
public record Corpus(
    List<Document> docs, List<BenchQuery> queries, String source, BenchMapping mapping) {
  /** Words of the title a query keeps, as the benchmark. */
  public static final int QUERY_WORDS = 8;

  public Corpus {
    docs = List.copyOf(docs);
    queries = List.copyOf(queries);
    java.util.Objects.requireNonNull(mapping, "mapping");
  }

  /** Products of the benchmark's mapping. */
  public Corpus(List<Document> docs, List<BenchQuery> queries, String source) {
    this(docs, queries, source, BenchMapping.PRODUCT);
  }

  /** The embedding dimension. */
  public int dimension() {
    if (!mapping.product()) {
      for (Document d : docs) {
        float[] v = mapping.vectorOf(d);
        if (v != null) {
          return v.length;
        }
      }
      throw new IllegalStateException(
          "no document has a vector in [" + mapping.vectorField() + "]");
    }
    return docs.get(0).embedding().length;
  }

  /** {@code n} queries sampled from {@code from} as this corpus's are, for its mapping. */
  public List<BenchQuery> queriesFrom(List<Document> from, int n, long seed) {
    return mapping.product()
        ? sampleQueries(from, n, seed)
        : mapped(from, mapping, n, seed, source).queries();
  }

  /**
   * Documents of another mapping, with {@code queryCount} queries sampled from them as the
   * benchmark's are from products: the first {@value #QUERY_WORDS} words of the first text field
   * that has some, the document's own vector, and its filter field's value (documents missing one
   * of them make no query).
   */
  public static Corpus mapped(
      List<Document> docs, BenchMapping mapping, int queryCount, long seed, String source) {
    List<Document> usable =
        docs.stream()
            .filter(
                d ->
                    mapping.filterOf(d) != null
                        && mapping.vectorOf(d) != null
                        && !mapping.queryTextOf(d, QUERY_WORDS).isBlank())
            .toList();
    if (usable.isEmpty()) {
      throw new IllegalArgumentException(
          "no document has text in "
              + mapping.textFields()
              + ", a value in ["
              + mapping.filterField()
              + "] and a vector in ["
              + mapping.vectorField()
              + "] to make queries from");
    }
    SplittableRandom random = new SplittableRandom(seed);
    List<BenchQuery> queries = new ArrayList<>(queryCount);
    for (int i = 0; i < queryCount; i++) {
      Document d = usable.get(random.nextInt(usable.size()));
      queries.add(
          new BenchQuery(
              mapping.queryTextOf(d, QUERY_WORDS),
              mapping.vectorOf(d),
              mapping.filterOf(d),
              d.id()));
    }
    return new Corpus(docs, queries, source, mapping);
  }

  /** The first {@code n} documents of a seeded synthetic corpus, and queries sampled from them. */
  public static Corpus synthetic(long seed, int n, int dimension, int queryCount) {
    SyntheticCorpus generator = new SyntheticCorpus(seed, dimension);
    List<Document> docs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      docs.add(generator.document(i));
    }
    return new Corpus(
        docs,
        sampleQueries(docs, queryCount, seed ^ 0x9E3779B97F4A7C15L),
        "synthetic (seed " + seed + ", " + dimension + "-d)");
  }

  /**
   * The first {@code n} documents of a built dataset, with its own queries when they come from
   * those documents (else queries sampled from them the same way). When the dataset holds fewer
   * than {@code n} documents, the rest are {@link SyntheticVariants} of its documents (recombined
   * real text, vectors {@code normalize(v + σ·g)} with σ = {@value
   * SyntheticVariants#DEFAULT_NOISE}), and the source says how many.
   */
  public static Corpus fromDataset(Path dir, int n, int queryCount, long seed) throws IOException {
    try (Dataset ds = Dataset.open(dir);
        Stream<Document> stream = ds.documents()) {
      int size = Math.min(n, ds.size());
      List<Document> docs = stream.limit(size).toList();
      List<BenchQuery> queries = new ArrayList<>();
      for (DatasetQuery q : ds.queries()) {
        if (q.docOrdinal() < size && q.category() != null && q.vector() != null) {
          queries.add(new BenchQuery(q.text(), q.vector(), q.category(), q.docId()));
        }
        if (queries.size() == queryCount) {
          break;
        }
      }
      if (queries.size() < Math.min(queryCount, size / 2)) {
        queries = sampleQueries(docs, queryCount, seed);
      }
      DatasetInfo info = ds.info();
      String source =
          String.format(
              Locale.ROOT,
              "%s dataset %s: %,d documents, %d categories, %d-d %s embeddings",
              info.source(),
              dir,
              size,
              info.categories(),
              info.dimension(),
              info.model());
      if (n > size) {
        docs = SyntheticVariants.first(docs, n, seed, SyntheticVariants.DEFAULT_NOISE);
        source +=
            String.format(
                Locale.ROOT,
                ", + %,d synthetic variants of them (recombined text, vectors normalize(v + σ·g),"
                    + " σ %.2f) to reach %,d",
                n - size,
                SyntheticVariants.DEFAULT_NOISE,
                n);
      }
      return new Corpus(docs, queries, source);
    }
  }

  /**
   * Samples {@code n} queries from documents with a title, a category and an embedding, with a
   * seeded generator (documents may repeat when the corpus is small).
   */
  public static List<BenchQuery> sampleQueries(List<Document> docs, int n, long seed) {
    List<Document> usable =
        docs.stream()
            .filter(d -> d.category() != null && d.hasEmbedding() && !d.title().isBlank())
            .toList();
    if (usable.isEmpty()) {
      throw new IllegalArgumentException(
          "no document has a title, a category and an embedding to make queries from");
    }
    SplittableRandom random = new SplittableRandom(seed);
    List<BenchQuery> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Document d = usable.get(random.nextInt(usable.size()));
      out.add(
          new BenchQuery(
              BenchQuery.queryText(d.title(), QUERY_WORDS), d.embedding(), d.category(), d.id()));
    }
    return out;
  }
}
