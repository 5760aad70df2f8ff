package org.searchlab.bench.data;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.searchlab.core.Document;

/**
 * A built dataset read back from its directory: documents with their embeddings, benchmark queries
 * and exact ground truth (the format is in {@link org.searchlab.bench.data the package javadoc}).
 *
 * <p>Thread-safety: {@link #open} loads the ids, queries and ground truth into memory; every method
 * after that is safe to call from many threads (vectors are read with positional reads). Streams
 * from {@link #documents()} each own a file handle and must be closed.
 */
public interface Dataset extends AutoCloseable {
  String INFO_FILE = "dataset.json";
  String DOCS_FILE = "docs.ndjson";
  String VECTORS_FILE = "vectors.fvecs";
  String QUERIES_FILE = "queries.ndjson";
  String GROUND_TRUTH_ALL = "groundtruth-all";
  String GROUND_TRUTH_CATEGORY = "groundtruth-category";

  /**
   * Throws, naming {@code dir}, when it holds no {@value #INFO_FILE}: no dataset was built there.
   */
  static void requireDirectory(Path dir) throws IOException {
    if (!Files.isRegularFile(dir.resolve(INFO_FILE))) {
      throw new IOException(
          dir
              + " is not a dataset directory (no "
              + INFO_FILE
              + "); build one with 'searchlab dataset build'");
    }
  }

  /** Opens a dataset directory written by {@code searchlab dataset build}. */
  static Dataset open(Path dir) throws IOException {
    return DirectoryDataset.open(dir);
  }

  /** The metadata: source, model, counts, seed, noise level. */
  DatasetInfo info();

  /** The directory the dataset lives in. */
  Path directory();

  /** The number of documents. */
  int size();

  /** The embedding dimension. */
  int dimension();

  /** The id of the document at an ordinal. */
  String id(int ordinal);

  /** The embedding of the document at an ordinal (a fresh array). */
  float[] vector(int ordinal);

  /**
   * All documents in ordinal order, with their embeddings attached. The stream reads the files
   * lazily; close it (try-with-resources).
   */
  Stream<Document> documents();

  /** The benchmark queries, in order. */
  List<DatasetQuery> queries();

  /**
   * The exact top-100 neighbours of each query.
   *
   * @param filtered {@code true} for the top-100 among documents of the query's category, {@code
   *     false} for the top-100 among all documents
   */
  GroundTruth groundTruth(boolean filtered);

  @Override
  void close() throws IOException;
}
