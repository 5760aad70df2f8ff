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
 * <p>Over another mapping than the product's ({@link #read(Path, List, Supplier, BenchMapping)})
 * the filter value is {@code filter} (a value of the mapping's filter field), the nearest document
 * is found by the vector field's similarity, and a vector is normalised only where that similarity
 * is {@code cosine} or {@code dot_product}.
 *
 * <p>Blank lines are skipped. Any bad line fails the whole file with its line number; nothing is
 * half read. Stateless and thread-safe.
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
    return read(file, docs, embedder, BenchMapping.PRODUCT);
  }

  /**
   * Reads the queries of a run over the index of {@code mapping}.
   *
   * @param docs the corpus, for its dimension and for the nearest document's filter value
   * @param embedder made only when some line needs an embedding; closed here
   */
  public static List<BenchQuery> read(
      Path file, List<Document> docs, Supplier<Embedder> embedder, BenchMapping mapping)
      throws IOException {
    boolean product = mapping.product();
    String filterKey = product ? "category" : "filter";
    int dim =
        product
            ? docs.get(0).embedding().length
            : new Corpus(docs, List.of(), "", mapping).dimension();
    boolean unit =
        product
            || mapping.vector().similarity()
                == org.searchlab.core.mapping.VectorSimilarity.DOT_PRODUCT
            || mapping.vector().similarity() == org.searchlab.core.mapping.VectorSimilarity.COSINE;
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
      vectors.add(n.has("vector") ? vector(n.get("vector"), dim, where, unit) : null);
      toEmbed.add(
          n.has("vector") ? null : n.path("embed").isTextual() ? n.get("embed").asText() : null);
      if (!n.has("vector") && toEmbed.get(toEmbed.size() - 1) == null) {
        toEmbed.set(toEmbed.size() - 1, n.get("text").asText());
      }
      JsonNode c = n.get(filterKey);
      if (c != null && !c.isNull() && (!c.isTextual() || c.asText().isBlank())) {
        throw new IllegalArgumentException(
            where + ": \"" + filterKey + "\" must be a non-blank string");
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
      if (category == null && !product) {
        if (nearest == null) {
          nearest = new ExactCorpus(mapping.mapping(), mapping.settings().defaultAnalyzer());
          for (Document d : docs) {
            if (mapping.filterOf(d) != null) {
              nearest.put(d);
            }
          }
        }
        org.searchlab.core.query.Knn knn =
            new org.searchlab.core.query.Knn(
                mapping.vectorField(),
                vectors.get(i),
                1,
                1,
                org.searchlab.core.query.Query.MatchAll.INSTANCE,
                null,
                1f,
                0);
        List<Hit> top =
            nearest
                .search(org.searchlab.core.SearchRequest.builder().hits(1).addKnn(knn).build())
                .hits();
        if (top.isEmpty()) {
          throw new IllegalArgumentException(
              file
                  + " line "
                  + lineNumbers.get(i)
                  + ": no \"filter\", and no document has a value in ["
                  + mapping.filterField()
                  + "]");
        }
        category = mapping.filterOf(nearest.get(top.get(0).id()));
      }
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

  private static float[] vector(JsonNode v, int dim, String where, boolean unit) {
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
    if (!unit) {
      return out; // l2_norm and max_inner_product compare the vector as given
    }
    float inv = (float) (1 / Math.sqrt(norm));
    for (int i = 0; i < dim; i++) {
      out[i] *= inv;
    }
    return out;
  }
}
