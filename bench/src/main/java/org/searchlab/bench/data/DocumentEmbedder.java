package org.searchlab.bench.data;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.searchlab.core.Document;
import org.searchlab.core.embed.Embedder;

/**
 * Fills in missing document embeddings with a model, through the {@link EmbeddingCache}, in batches
 * with a progress bar. The text given to the model is the reference benchmark's template {@value
 * #TEMPLATE}. Not thread-safe (the parallelism is inside {@link Embedder#embedAll}).
 */
final class DocumentEmbedder {
  /** The reference benchmark's document text template. */
  static final String TEMPLATE = "Item: Title: {title} Description: {description}";

  /**
   * Texts per {@link Embedder#embedAll} call: 1 to any; larger batches keep all cores busy longer
   * between cache flushes, smaller ones report progress more often. 256 ≈ 3 s of work on 2 cores.
   */
  static final int BATCH = 256;

  private final Supplier<Embedder> embedders;
  private final String model;
  private final EmbeddingCache cache;
  private final PrintStream log;
  private Counts lastCounts = new Counts(0, 0, 0, 0);

  /**
   * @param embedders makes the model, called only when some text is not in the cache (loading the
   *     model costs a second or two); the embedder is closed at the end of {@link #embed}
   */
  DocumentEmbedder(
      Supplier<Embedder> embedders, String model, EmbeddingCache cache, PrintStream log) {
    this.embedders = embedders;
    this.model = model;
    this.cache = cache;
    this.log = log;
  }

  String model() {
    return model;
  }

  static String text(Document d) {
    return TEMPLATE.replace("{title}", d.title()).replace("{description}", d.description());
  }

  /** Counts of how embeddings were obtained. */
  record Counts(int provided, int cached, int computed, double computeSeconds) {}

  /** Returns the documents with every embedding present, in the same order. */
  List<Document> embed(List<Document> docs) throws IOException {
    List<Document> out = new ArrayList<>(docs);
    List<Integer> missing = new ArrayList<>();
    int provided = 0;
    int cached = 0;
    for (int i = 0; i < docs.size(); i++) {
      Document d = docs.get(i);
      if (d.hasEmbedding()) {
        provided++;
        continue;
      }
      float[] v = cache.get(text(d));
      if (v != null) {
        cached++;
        out.set(i, withEmbedding(d, v));
      } else {
        missing.add(i);
      }
    }
    log.printf(
        "embeddings: %d provided, %d from cache (%s), %d to compute with %s%n",
        provided, cached, cache.file(), missing.size(), model);
    Progress progress = new Progress("embedding", missing.size(), log);
    if (missing.isEmpty()) {
      lastCounts = new Counts(provided, cached, 0, 0);
      return out;
    }
    try (Embedder embedder = embedders.get()) {
      embedMissing(docs, missing, embedder, out, progress);
    }
    progress.finish();
    lastCounts = new Counts(provided, cached, missing.size(), progress.elapsedSeconds());
    return out;
  }

  private void embedMissing(
      List<Document> docs,
      List<Integer> missing,
      Embedder embedder,
      List<Document> out,
      Progress progress)
      throws IOException {
    for (int start = 0; start < missing.size(); start += BATCH) {
      List<Integer> batch = missing.subList(start, Math.min(missing.size(), start + BATCH));
      // About 4% of Debian packages share their text with another; embed each text once.
      Map<String, float[]> vectors = new LinkedHashMap<>();
      for (int i : batch) {
        String t = text(docs.get(i));
        if (cache.get(t) == null) {
          vectors.put(t, null);
        }
      }
      List<String> texts = new ArrayList<>(vectors.keySet());
      List<float[]> computed = embedder.embedAll(texts);
      for (int j = 0; j < texts.size(); j++) {
        cache.put(texts.get(j), computed.get(j));
      }
      for (int i : batch) {
        out.set(i, withEmbedding(docs.get(i), cache.get(text(docs.get(i)))));
      }
      cache.flush();
      progress.advance(batch.size());
    }
  }

  Counts lastCounts() {
    return lastCounts;
  }

  static Document withEmbedding(Document d, float[] v) {
    return new Document(
        d.id(), d.title(), d.description(), d.category(), d.price(), d.averageRating(), v);
  }
}
