package org.searchlab.bench.data;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.lucene.util.VectorUtil;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.embed.Embedder;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The ways of building a dataset ({@code debian}, {@code ndjson}, {@code synthetic}, {@code
 * debian-mixes}), each ending in {@link DatasetWriter}. Stateless; each call is one build.
 */
final class DatasetBuilds {
  private DatasetBuilds() {}

  /** Settings shared by every source. */
  record Common(
      Path out,
      Path cacheDir,
      int queries,
      long seed,
      int threads,
      Supplier<Embedder> embedder,
      String model,
      int modelDimension,
      PrintStream log) {}

  /**
   * The Debian catalogue.
   *
   * @param limit keep every ⌈n/limit⌉-th package (a deterministic spread sample), or 0 for all
   */
  static DatasetInfo debian(Common c, List<Path> packages, List<Path> translations, int limit)
      throws IOException {
    if (packages.isEmpty() != translations.isEmpty()) {
      throw new InvalidRequestException(
          "--packages and --translations go together; give both or neither");
    }
    if (packages.isEmpty()) {
      DebianLists.Lists lists = DebianLists.locate(c.cacheDir(), c.log());
      packages = lists.packages();
      translations = lists.translations();
    }
    List<Document> docs = DebianCatalogue.read(packages, translations);
    c.log().printf("debian: %d packages with English descriptions%n", docs.size());
    docs = spread(docs, limit);
    List<Document> embedded = embed(c, docs);
    return DatasetWriter.write(
        c.out(),
        c.cacheDir(),
        spec(c, "debian", 0, ""),
        embedded.size(),
        embedded.get(0).embedding().length,
        embedded.iterator(),
        c.log());
  }

  /** Every ⌈n/limit⌉-th document, or all when {@code limit} is 0 or at least n. */
  static List<Document> spread(List<Document> docs, int limit) {
    if (limit <= 0 || limit >= docs.size()) {
      return docs;
    }
    int step = (docs.size() + limit - 1) / limit;
    List<Document> out = new ArrayList<>();
    for (int i = 0; i < docs.size() && out.size() < limit; i += step) {
      out.add(docs.get(i));
    }
    return out;
  }

  /** A user's NDJSON file with the benchmark's fields; missing embeddings are computed. */
  static DatasetInfo ndjson(Common c, Path in) throws IOException {
    List<Document> docs = new ArrayList<>();
    int normalized = 0;
    try (BufferedReader r = CompressedFiles.open(in)) {
      int line = 0;
      for (String s = r.readLine(); s != null; s = r.readLine()) {
        line++;
        if (s.isBlank()) {
          continue;
        }
        Document d = DocumentJson.parse(s, in + ":" + line);
        if (d.hasEmbedding() && !isUnit(d.embedding())) {
          float[] v = d.embedding().clone();
          VectorUtil.l2normalize(v);
          d = DocumentEmbedder.withEmbedding(d, v);
          normalized++;
        }
        docs.add(d);
      }
    }
    if (docs.isEmpty()) {
      throw new InvalidRequestException(in + " holds no documents");
    }
    if (normalized > 0) {
      c.log()
          .printf("ndjson: %d provided embeddings were not unit length; normalised%n", normalized);
    }
    boolean anyMissing = docs.stream().anyMatch(d -> !d.hasEmbedding());
    boolean anyProvided = docs.stream().anyMatch(Document::hasEmbedding);
    List<Document> embedded = anyMissing ? embed(c, docs) : docs;
    String model = anyMissing ? c.model() + (anyProvided ? "+provided" : "") : "provided";
    return DatasetWriter.write(
        c.out(),
        c.cacheDir(),
        new DatasetWriter.Spec(
            "ndjson",
            model,
            anyMissing ? DocumentEmbedder.TEMPLATE : "",
            c.queries(),
            c.seed(),
            0,
            "",
            c.threads()),
        embedded.size(),
        embedded.get(0).embedding().length,
        embedded.iterator(),
        c.log());
  }

  private static boolean isUnit(float[] v) {
    double s = VectorUtil.dotProduct(v, v);
    return Math.abs(s - 1) <= org.searchlab.core.Schema.UNIT_TOLERANCE / 2;
  }

  /**
   * {@code docs} documents: variants of a base dataset ({@link SyntheticVariants}) when {@code
   * base} is given, else core's seeded {@link SyntheticCorpus} at {@code dimension}.
   */
  static DatasetInfo synthetic(Common c, int docs, Path base, double noise, int dimension)
      throws IOException {
    if (docs < 1) {
      throw new InvalidRequestException("--docs " + docs + " must be at least 1");
    }
    if (noise < 0 || noise > 1) {
      throw new InvalidRequestException("--noise " + noise + " is outside [0, 1]");
    }
    if (base == null) {
      SyntheticCorpus corpus = new SyntheticCorpus(c.seed(), dimension);
      Iterator<Document> it =
          new Iterator<>() {
            int i;

            @Override
            public boolean hasNext() {
              return i < docs;
            }

            @Override
            public Document next() {
              if (i >= docs) {
                throw new NoSuchElementException();
              }
              return corpus.document(i++);
            }
          };
      return DatasetWriter.write(
          c.out(),
          c.cacheDir(),
          new DatasetWriter.Spec(
              "synthetic", "synthetic-generator", "", c.queries(), c.seed(), 0, "", c.threads()),
          docs,
          dimension,
          it,
          c.log());
    }
    Base loaded = Base.read(base);
    List<Document> baseDocs = loaded.docs();
    int baseDimension = loaded.dimension();
    String baseModel = loaded.model();
    c.log()
        .printf(
            "synthetic: %d documents from a base of %d (noise %.3f)%n",
            docs, baseDocs.size(), noise);
    return DatasetWriter.write(
        c.out(),
        c.cacheDir(),
        new DatasetWriter.Spec(
            "synthetic",
            baseModel + "+noise",
            "",
            c.queries(),
            c.seed(),
            noise,
            base.toAbsolutePath().toString(),
            c.threads()),
        docs,
        baseDimension,
        new SyntheticVariants(baseDocs, docs, c.seed(), noise),
        c.log());
  }

  /** A built base dataset's documents (with embeddings), dimension and model. */
  record Base(List<Document> docs, int dimension, String model) {
    static Base read(Path dir) throws IOException {
      try (Dataset b = Dataset.open(dir);
          Stream<Document> s = b.documents()) {
        return new Base(s.toList(), b.dimension(), b.info().model());
      }
    }
  }

  private static DatasetWriter.Spec spec(Common c, String source, double noise, String base) {
    return new DatasetWriter.Spec(
        source,
        c.model(),
        DocumentEmbedder.TEMPLATE,
        c.queries(),
        c.seed(),
        noise,
        base,
        c.threads());
  }

  private static List<Document> embed(Common c, List<Document> docs) throws IOException {
    if (docs.stream().allMatch(Document::hasEmbedding)) {
      return docs;
    }
    try (EmbeddingCache cache = EmbeddingCache.open(c.cacheDir(), c.model(), c.modelDimension())) {
      return new DocumentEmbedder(c.embedder(), c.model(), cache, c.log()).embed(docs);
    }
  }

  /**
   * {@code docs} documents grown from a built base dataset by a {@link Grower} ({@link
   * TangentSteps} or {@link NeighbourMixes}): the base first, then documents made from each base
   * document and its nearest neighbours, streamed to disk.
   *
   * @param queryPool queries come from the first this many documents
   */
  static DatasetInfo mixes(Common c, int docs, Path base, Grower params, int queryPool)
      throws IOException {
    if (base == null) {
      throw new InvalidRequestException("--source debian-mixes needs --base DIR (a built dataset)");
    }
    if (queryPool < 1) {
      throw new InvalidRequestException("--query-pool " + queryPool + " must be at least 1");
    }
    Base loaded = Base.read(base);
    List<Document> baseDocs = loaded.docs();
    int baseDimension = loaded.dimension();
    String baseModel = loaded.model();
    if (docs < baseDocs.size()) {
      throw new InvalidRequestException(
          "--docs " + docs + " is below the base's " + baseDocs.size() + " documents");
    }
    if (params.neighbours() >= baseDocs.size()) {
      throw new InvalidRequestException(
          "--neighbours "
              + params.neighbours()
              + " must be below the base's "
              + baseDocs.size()
              + " documents");
    }
    float[][] vectors = new float[baseDocs.size()][];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = baseDocs.get(i).embedding();
    }
    int[][] neighbours =
        BaseNeighbours.cached(vectors, params.neighbours(), c.cacheDir(), c.threads(), c.log());
    c.log()
        .printf(
            "debian-mixes: %,d documents from a base of %,d (%s), queries from the first %,d%n",
            docs, baseDocs.size(), params, Math.min(queryPool, docs));
    return DatasetWriter.write(
        c.out(),
        c.cacheDir(),
        new DatasetWriter.Spec(
            "debian-mixes",
            baseModel + "+" + params,
            "",
            c.queries(),
            c.seed(),
            0,
            base.toAbsolutePath().toString(),
            c.threads(),
            queryPool),
        docs,
        baseDimension,
        params.open(baseDocs, neighbours, docs, c.seed()),
        c.log());
  }
}
