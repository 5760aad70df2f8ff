package org.searchlab.bench.data;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Schema;

/**
 * Writes a dataset directory in {@link org.searchlab.bench.data the package's format} from a stream
 * of embedded documents: documents and vectors first, then queries and ground truth, and {@code
 * dataset.json} last, so a directory with {@code dataset.json} is complete. Memory stays bounded by
 * the queries and one category number per document, so the stream can hold millions. Not
 * thread-safe; one writer per build.
 */
final class DatasetWriter {
  /** Neighbours kept per query in the ground truth. */
  static final int GROUND_TRUTH_K = 100;

  private DatasetWriter() {}

  /**
   * What to write besides the documents.
   *
   * @param queryPool queries are sampled from the first this many documents (all of them when it is
   *     at least the corpus size), so corpora of several sizes grown from one base can share their
   *     queries
   */
  record Spec(
      String source,
      String model,
      String template,
      int queries,
      long seed,
      double noise,
      String base,
      int threads,
      int queryPool) {
    /** Queries sampled from every document. */
    Spec(
        String source,
        String model,
        String template,
        int queries,
        long seed,
        double noise,
        String base,
        int threads) {
      this(source, model, template, queries, seed, noise, base, threads, Integer.MAX_VALUE);
    }
  }

  /**
   * Writes the dataset.
   *
   * @param cacheDir where computed ground truth is kept, keyed by a hash of the vectors, the
   *     categories and the queries, so a rebuild of the same data copies it instead of recomputing
   * @param n the exact number of documents {@code docs} yields
   * @param dimension the embedding dimension every document has
   * @param docs documents with unit embeddings, in ordinal order
   */
  static DatasetInfo write(
      Path dir,
      Path cacheDir,
      Spec spec,
      int n,
      int dimension,
      Iterator<Document> docs,
      PrintStream log)
      throws IOException {
    Files.createDirectories(dir);
    Files.deleteIfExists(dir.resolve(Dataset.INFO_FILE));
    Schema schema = new Schema(dimension);
    int pool = Math.min(spec.queryPool(), n);
    int queries = Math.min(spec.queries(), pool);
    int[] sampled = QuerySampler.sample(pool, queries, spec.seed());
    Map<Integer, Integer> queryOfOrdinal = new HashMap<>();
    for (int q = 0; q < sampled.length; q++) {
      queryOfOrdinal.put(sampled[q], q);
    }
    Document[] queryDocs = new Document[queries];
    Map<String, Integer> categoryNumbers = new HashMap<>();
    int[] docCategories = new int[n];

    int written = 0;
    Progress progress = new Progress("writing documents", n, log);
    java.util.Set<String> ids = new java.util.HashSet<>();
    try (BufferedWriter out =
            Files.newBufferedWriter(dir.resolve(Dataset.DOCS_FILE), StandardCharsets.UTF_8);
        VecsFiles.Writer vectors = new VecsFiles.Writer(dir.resolve(Dataset.VECTORS_FILE))) {
      while (docs.hasNext()) {
        Document d = schema.validate(docs.next());
        if (!d.hasEmbedding()) {
          throw new InvalidRequestException("document '" + d.id() + "' has no embedding");
        }
        if (!ids.add(d.id())) {
          throw new InvalidRequestException("document id '" + d.id() + "' appears twice");
        }
        if (written >= n) {
          throw new IllegalStateException("more than the announced " + n + " documents");
        }
        out.write(DocumentJson.toLine(d));
        out.write('\n');
        vectors.write(d.embedding());
        docCategories[written] =
            d.category() == null
                ? -1
                : categoryNumbers.computeIfAbsent(d.category(), c -> categoryNumbers.size());
        Integer q = queryOfOrdinal.get(written);
        if (q != null) {
          queryDocs[q] = d;
        }
        written++;
        if ((written & 0xfff) == 0) {
          progress.advance(0x1000);
        }
      }
    }
    progress.advance(written & 0xfff);
    if (written != n) {
      throw new IllegalStateException("announced " + n + " documents, got " + written);
    }
    logCategories(categoryNumbers, docCategories, log);

    float[][] queryVectors = new float[queries][];
    int[] queryCategories = new int[queries];
    try (BufferedWriter out =
        Files.newBufferedWriter(dir.resolve(Dataset.QUERIES_FILE), StandardCharsets.UTF_8)) {
      for (int q = 0; q < queries; q++) {
        Document d = queryDocs[q];
        queryVectors[q] = d.embedding();
        queryCategories[q] = d.category() == null ? -1 : categoryNumbers.get(d.category());
        ObjectNode node = DocumentJson.MAPPER.createObjectNode();
        node.put("query", q);
        node.put("doc_ordinal", sampled[q]);
        node.put("doc_id", d.id());
        node.put("text", QuerySampler.queryText(d.title()));
        if (d.category() == null) {
          node.putNull("category");
        } else {
          node.put("category", d.category());
        }
        out.write(DocumentJson.MAPPER.writeValueAsString(node));
        out.write('\n');
      }
    }

    groundTruth(
        dir, cacheDir, n, docCategories, queryVectors, queryCategories, spec.threads(), log);

    DatasetInfo info =
        new DatasetInfo(
            spec.source(),
            spec.model(),
            spec.template(),
            dimension,
            n,
            queries,
            GROUND_TRUTH_K,
            spec.seed(),
            spec.noise(),
            spec.base(),
            categoryNumbers.size());
    DocumentJson.MAPPER
        .writerWithDefaultPrettyPrinter()
        .writeValue(dir.resolve(Dataset.INFO_FILE).toFile(), info);
    return info;
  }

  private static final List<String> GROUND_TRUTH_FILES =
      List.of(
          Dataset.GROUND_TRUTH_ALL + ".ivecs",
          Dataset.GROUND_TRUTH_ALL + ".fvecs",
          Dataset.GROUND_TRUTH_CATEGORY + ".ivecs",
          Dataset.GROUND_TRUTH_CATEGORY + ".fvecs");

  /** Computes the ground truth, or copies it from the cache when the same inputs were seen. */
  private static void groundTruth(
      Path dir,
      Path cacheDir,
      int n,
      int[] docCategories,
      float[][] queryVectors,
      int[] queryCategories,
      int threads,
      PrintStream log)
      throws IOException {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    for (String f : List.of(Dataset.VECTORS_FILE, Dataset.QUERIES_FILE)) {
      try (InputStream in = new DigestInputStream(Files.newInputStream(dir.resolve(f)), digest)) {
        in.transferTo(OutputStream.nullOutputStream());
      }
    }
    ByteBuffer cats = ByteBuffer.allocate(4 * (docCategories.length + queryCategories.length + 1));
    cats.putInt(GROUND_TRUTH_K);
    for (int c : docCategories) {
      cats.putInt(c);
    }
    for (int c : queryCategories) {
      cats.putInt(c);
    }
    digest.update(cats.array());
    Path cached =
        cacheDir.resolve("groundtruth").resolve(HexFormat.of().formatHex(digest.digest()));
    if (GROUND_TRUTH_FILES.stream().allMatch(f -> Files.isRegularFile(cached.resolve(f)))) {
      for (String f : GROUND_TRUTH_FILES) {
        Files.copy(cached.resolve(f), dir.resolve(f), StandardCopyOption.REPLACE_EXISTING);
      }
      log.println("ground truth: the same vectors and queries were seen before; copied " + cached);
      return;
    }
    long start = System.nanoTime();
    GroundTruthBuilder.Result gt =
        GroundTruthBuilder.compute(
            dir.resolve(Dataset.VECTORS_FILE),
            docCategories,
            queryVectors,
            queryCategories,
            GROUND_TRUTH_K,
            threads,
            log);
    log.printf(
        "ground truth: %d queries x %d documents in %.1f s%n",
        queryVectors.length, n, (System.nanoTime() - start) / 1e9);
    writeGroundTruth(dir, Dataset.GROUND_TRUTH_ALL, gt.allNeighbors(), gt.allScores());
    writeGroundTruth(dir, Dataset.GROUND_TRUTH_CATEGORY, gt.catNeighbors(), gt.catScores());
    Files.createDirectories(cached);
    for (String f : GROUND_TRUTH_FILES) {
      // Copy to a temporary name first so a half-written entry is never taken for a whole one.
      Path tmp = cached.resolve(f + ".tmp");
      Files.copy(dir.resolve(f), tmp, StandardCopyOption.REPLACE_EXISTING);
      Files.move(tmp, cached.resolve(f), StandardCopyOption.ATOMIC_MOVE);
    }
  }

  /** Logs how many documents each category has, largest first (the top 15 and the rest). */
  private static void logCategories(
      Map<String, Integer> numbers, int[] docCategories, PrintStream log) {
    int[] counts = new int[numbers.size()];
    int none = 0;
    for (int c : docCategories) {
      if (c < 0) {
        none++;
      } else {
        counts[c]++;
      }
    }
    List<Map.Entry<String, Integer>> byCount = new ArrayList<>(numbers.entrySet());
    byCount.sort((a, b) -> Integer.compare(counts[b.getValue()], counts[a.getValue()]));
    StringBuilder line = new StringBuilder();
    int shown = 0;
    int rest = 0;
    for (Map.Entry<String, Integer> e : byCount) {
      if (shown++ < 15) {
        line.append(shown == 1 ? "" : ", ")
            .append(e.getKey())
            .append(' ')
            .append(counts[e.getValue()]);
      } else {
        rest += counts[e.getValue()];
      }
    }
    log.printf(
        "categories: %d; %s%s%s%n",
        numbers.size(),
        line,
        byCount.size() > 15 ? ", " + (byCount.size() - 15) + " others " + rest : "",
        none > 0 ? "; no category " + none : "");
  }

  private static void writeGroundTruth(Path dir, String name, int[][] neighbors, float[][] scores)
      throws IOException {
    try (VecsFiles.Writer ivecs = new VecsFiles.Writer(dir.resolve(name + ".ivecs"));
        VecsFiles.Writer fvecs = new VecsFiles.Writer(dir.resolve(name + ".fvecs"))) {
      for (int q = 0; q < neighbors.length; q++) {
        assert isDescending(scores[q]) : "ground truth of query " + q + " is not sorted";
        ivecs.write(neighbors[q]);
        fvecs.write(scores[q]);
      }
    }
  }

  private static boolean isDescending(float[] s) {
    for (int i = 1; i < s.length; i++) {
      if (s[i] > s[i - 1]) {
        return false;
      }
    }
    return true;
  }
}
