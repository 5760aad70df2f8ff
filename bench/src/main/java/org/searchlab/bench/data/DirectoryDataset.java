package org.searchlab.bench.data;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.searchlab.core.Document;

/**
 * A {@link Dataset} backed by a directory: ids, queries and ground truth in memory, vectors read on
 * demand from {@code vectors.fvecs}. Thread-safe after {@link #open}.
 */
final class DirectoryDataset implements Dataset {
  private final Path dir;
  private final DatasetInfo info;
  private final List<String> ids;
  private final VecsFiles.VectorFile vectors;
  private final List<DatasetQuery> queries;
  private final GroundTruth all;
  private final GroundTruth category;

  private DirectoryDataset(
      Path dir,
      DatasetInfo info,
      List<String> ids,
      VecsFiles.VectorFile vectors,
      List<DatasetQuery> queries,
      GroundTruth all,
      GroundTruth category) {
    this.dir = dir;
    this.info = info;
    this.ids = ids;
    this.vectors = vectors;
    this.queries = queries;
    this.all = all;
    this.category = category;
  }

  static DirectoryDataset open(Path dir) throws IOException {
    Dataset.requireDirectory(dir);
    Path infoFile = dir.resolve(INFO_FILE);
    DatasetInfo info = DocumentJson.MAPPER.readValue(infoFile.toFile(), DatasetInfo.class);
    List<String> ids = new ArrayList<>(info.documents());
    try (BufferedReader in = Files.newBufferedReader(dir.resolve(DOCS_FILE))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        ids.add(DocumentJson.id(line));
      }
    }
    VecsFiles.VectorFile vectors = new VecsFiles.VectorFile(dir.resolve(VECTORS_FILE));
    try {
      if (ids.size() != info.documents() || vectors.count() != ids.size()) {
        throw new IOException(
            dir
                + ": "
                + INFO_FILE
                + " says "
                + info.documents()
                + " documents, "
                + DOCS_FILE
                + " has "
                + ids.size()
                + " and "
                + VECTORS_FILE
                + " has "
                + vectors.count());
      }
      List<DatasetQuery> queries = readQueries(dir.resolve(QUERIES_FILE), vectors);
      return new DirectoryDataset(
          dir,
          info,
          List.copyOf(ids),
          vectors,
          List.copyOf(queries),
          readGroundTruth(dir, GROUND_TRUTH_ALL, queries.size()),
          readGroundTruth(dir, GROUND_TRUTH_CATEGORY, queries.size()));
    } catch (IOException | RuntimeException e) {
      vectors.close();
      throw e;
    }
  }

  private static List<DatasetQuery> readQueries(Path file, VecsFiles.VectorFile vectors)
      throws IOException {
    List<DatasetQuery> queries = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(file)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        JsonNode q = DocumentJson.MAPPER.readTree(line);
        int ordinal = q.get("doc_ordinal").asInt();
        JsonNode category = q.get("category");
        queries.add(
            new DatasetQuery(
                q.get("query").asInt(),
                ordinal,
                q.get("doc_id").asText(),
                q.get("text").asText(),
                vectors.read(ordinal),
                category == null || category.isNull() ? null : category.asText()));
      }
    }
    return queries;
  }

  private static GroundTruth readGroundTruth(Path dir, String name, int queries)
      throws IOException {
    int[][] neighbors = VecsFiles.readIvecs(dir.resolve(name + ".ivecs"));
    float[][] scores = VecsFiles.readFvecs(dir.resolve(name + ".fvecs"));
    if (neighbors.length != queries || scores.length != queries) {
      throw new IOException(
          dir.resolve(name)
              + ": ground truth for "
              + neighbors.length
              + " queries, expected "
              + queries);
    }
    return new ArrayGroundTruth(neighbors, scores);
  }

  @Override
  public DatasetInfo info() {
    return info;
  }

  @Override
  public Path directory() {
    return dir;
  }

  @Override
  public int size() {
    return ids.size();
  }

  @Override
  public int dimension() {
    return info.dimension();
  }

  @Override
  public String id(int ordinal) {
    return ids.get(ordinal);
  }

  @Override
  public float[] vector(int ordinal) {
    return vectors.read(ordinal);
  }

  @Override
  public Stream<Document> documents() {
    Path docsFile = dir.resolve(DOCS_FILE);
    BufferedReader in;
    VecsFiles.Reader vecs;
    try {
      in = Files.newBufferedReader(docsFile, StandardCharsets.UTF_8);
      vecs = new VecsFiles.Reader(dir.resolve(VECTORS_FILE));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Spliterator<Document> split =
        new Spliterators.AbstractSpliterator<>(
            ids.size(), Spliterator.ORDERED | Spliterator.NONNULL | Spliterator.SIZED) {
          int line;

          @Override
          public boolean tryAdvance(Consumer<? super Document> action) {
            try {
              String json = in.readLine();
              if (json == null) {
                return false;
              }
              line++;
              Document d = DocumentJson.parse(json, docsFile + ":" + line);
              action.accept(
                  new Document(
                      d.id(),
                      d.title(),
                      d.description(),
                      d.category(),
                      d.price(),
                      d.averageRating(),
                      vecs.next()));
              return true;
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }
        };
    return StreamSupport.stream(split, false)
        .onClose(
            () -> {
              try (in;
                  vecs) {
                // closes both
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
  }

  @Override
  public List<DatasetQuery> queries() {
    return queries;
  }

  @Override
  public GroundTruth groundTruth(boolean filtered) {
    return filtered ? category : all;
  }

  @Override
  public void close() throws IOException {
    vectors.close();
  }
}
