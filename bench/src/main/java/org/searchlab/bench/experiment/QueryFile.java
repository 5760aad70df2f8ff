package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Hit;
import org.searchlab.core.embed.Embedder;
import org.searchlab.testing.ExactCorpus;

/**
 * The user's own queries, from an NDJSON file ({@code --queries}), one object a line:
 *
 * <ul>
 *   <li>{@code text} (required): the lexical query;
 *   <li>{@code vector} (optional): the query vector, as many numbers as the corpus's dimension
 *       (normalised to unit length here);
 *   <li>{@code embed} (optional): the text to embed for the vector part when there is no {@code
 *       vector}; without either, {@code text} is embedded (all-MiniLM-L6-v2, so the corpus must be
 *       384-d);
 *   <li>{@code category} (optional): the filtered queries' category; without it, the category of
 *       the document nearest to the query vector, as the benchmark filtered on the category of the
 *       product a query came from.
 * </ul>
 *
 * Blank lines are skipped. Any bad line fails the whole file with its line number; nothing is half
 * read. Stateless and thread-safe.
 */
public final class QueryFile {
  private QueryFile() {}

  /**
   * Reads the queries.
   *
   * @param docs the corpus, for its dimension and for the nearest document's category
   * @param embedder made only when some line needs an embedding; closed here
   */
  public static List<BenchQuery> read(Path file, List<Document> docs, Supplier<Embedder> embedder)
      throws IOException {
    int dim = docs.get(0).embedding().length;
    List<String> lines = Files.readAllLines(file);
    List<String> texts = new ArrayList<>();
    List<float[]> vectors = new ArrayList<>();
    List<String> toEmbed = new ArrayList<>();
    List<String> categories = new ArrayList<>();
    List<Integer> lineNumbers = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty()) {
        continue;
      }
      String where = file + " line " + (i + 1);
      JsonNode n;
      try {
        n = Json.MAPPER.readTree(line);
      } catch (IOException e) {
        throw new IllegalArgumentException(where + ": not JSON: " + e.getMessage(), e);
      }
      if (!n.isObject() || !n.path("text").isTextual() || n.get("text").asText().isBlank()) {
        throw new IllegalArgumentException(where + ": needs a non-blank string \"text\"");
      }
      texts.add(n.get("text").asText());
      vectors.add(n.has("vector") ? vector(n.get("vector"), dim, where) : null);
      toEmbed.add(
          n.has("vector") ? null : n.path("embed").isTextual() ? n.get("embed").asText() : null);
      if (!n.has("vector") && toEmbed.get(toEmbed.size() - 1) == null) {
        toEmbed.set(toEmbed.size() - 1, n.get("text").asText());
      }
      JsonNode c = n.get("category");
      if (c != null && !c.isNull() && (!c.isTextual() || c.asText().isBlank())) {
        throw new IllegalArgumentException(where + ": \"category\" must be a non-blank string");
      }
      categories.add(c == null || c.isNull() ? null : c.asText());
      lineNumbers.add(i + 1);
    }
    if (texts.isEmpty()) {
      throw new IllegalArgumentException(file + " holds no query");
    }
    embedMissing(file, vectors, toEmbed, lineNumbers, dim, embedder);
    ExactCorpus nearest = null;
    List<BenchQuery> out = new ArrayList<>(texts.size());
    for (int i = 0; i < texts.size(); i++) {
      String category = categories.get(i);
      if (category == null) {
        if (nearest == null) {
          nearest = new ExactCorpus();
          for (Document d : docs) {
            if (d.category() != null) {
              nearest.put(d);
            }
          }
        }
        List<Hit> top = nearest.vectorHits(vectors.get(i), Filter.ALL, 1);
        if (top.isEmpty()) {
          throw new IllegalArgumentException(
              file + " line " + lineNumbers.get(i) + ": no category, and no document has one");
        }
        category = nearest.get(top.get(0).id()).category();
      }
      out.add(
          new BenchQuery(texts.get(i), vectors.get(i), category, "query-" + lineNumbers.get(i)));
    }
    return out;
  }

  private static void embedMissing(
      Path file,
      List<float[]> vectors,
      List<String> toEmbed,
      List<Integer> lineNumbers,
      int dim,
      Supplier<Embedder> embedder) {
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < vectors.size(); i++) {
      if (vectors.get(i) == null) {
        missing.add(i);
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    try (Embedder e = embedder.get()) {
      if (e.dimension() != dim) {
        throw new IllegalArgumentException(
            String.format(
                "%s line %d has no \"vector\", and the %s embedder makes %d-d vectors but the"
                    + " corpus is %d-d; give each query a %d-number \"vector\"",
                file, lineNumbers.get(missing.get(0)), e.name(), e.dimension(), dim, dim));
      }
      List<float[]> made = e.embedAll(missing.stream().map(toEmbed::get).toList());
      for (int j = 0; j < missing.size(); j++) {
        vectors.set(missing.get(j), made.get(j));
      }
    } catch (IllegalArgumentException ex) {
      throw ex;
    } catch (Exception ex) {
      throw new IllegalStateException("embedding the queries of " + file + " failed", ex);
    }
  }

  private static float[] vector(JsonNode v, int dim, String where) {
    if (!v.isArray() || v.size() != dim) {
      throw new IllegalArgumentException(
          where
              + ": \"vector\" must be an array of "
              + dim
              + " numbers (the corpus's dimension); got "
              + (v.isArray() ? v.size() + " elements" : v.getNodeType()));
    }
    float[] out = new float[dim];
    double norm = 0;
    for (int i = 0; i < dim; i++) {
      if (!v.get(i).isNumber()) {
        throw new IllegalArgumentException(where + ": \"vector\"[" + i + "] is not a number");
      }
      out[i] = (float) v.get(i).asDouble();
      norm += out[i] * (double) out[i];
    }
    if (!(norm > 0) || Double.isInfinite(norm)) {
      throw new IllegalArgumentException(
          where + ": \"vector\" has no direction (norm " + norm + ")");
    }
    float inv = (float) (1 / Math.sqrt(norm));
    for (int i = 0; i < dim; i++) {
      out[i] *= inv;
    }
    return out;
  }
}
