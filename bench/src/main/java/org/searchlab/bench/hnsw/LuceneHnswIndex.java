package org.searchlab.bench.hnsw;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene104.Lucene104Codec;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.AcceptDocs;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;

/**
 * A Lucene index of one {@link KnnFloatVectorField} (DOT_PRODUCT) with the per-field HNSW format
 * {@link Lucene99HnswVectorsFormat}(M, beam width), built on one thread and force-merged to one
 * segment, searched with {@link KnnFloatVectorQuery} on one thread. Document i holds vector i, so
 * Lucene doc ids equal the mutable graph's node ids.
 *
 * <p>Thread-safety: searches from one thread at a time (the benchmark's single search thread).
 */
final class LuceneHnswIndex implements AutoCloseable {
  static final String FIELD = "v";

  private final Directory directory;
  private final DirectoryReader reader;
  private final IndexSearcher searcher;
  private final double buildSeconds;

  private LuceneHnswIndex(Directory directory, double buildSeconds) throws IOException {
    this.directory = directory;
    this.reader = DirectoryReader.open(directory);
    if (reader.leaves().size() != 1) {
      throw new IllegalStateException("expected one segment, got " + reader.leaves().size());
    }
    this.searcher = new IndexSearcher(reader);
    this.buildSeconds = buildSeconds;
  }

  /** Indexes {@code docs} in order and force-merges to one segment; the time covers all of it. */
  static LuceneHnswIndex build(Path path, float[][] docs, int m, int beamWidth) throws IOException {
    Directory dir = new MMapDirectory(path);
    KnnVectorsFormat format = new Lucene99HnswVectorsFormat(m, beamWidth);
    IndexWriterConfig iwc =
        new IndexWriterConfig()
            .setCodec(
                new Lucene104Codec() {
                  @Override
                  public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
                    return format;
                  }
                })
            // One flush for the whole corpus where it fits, so the graph is built once, as in
            // a force-merged segment; the force-merge below covers the case where it does not.
            .setRAMBufferSizeMB(1800)
            .setUseCompoundFile(false);
    long t0 = System.nanoTime();
    try (IndexWriter writer = new IndexWriter(dir, iwc)) {
      for (float[] v : docs) {
        Document d = new Document();
        d.add(new KnnFloatVectorField(FIELD, v, VectorSimilarityFunction.DOT_PRODUCT));
        writer.addDocument(d);
      }
      writer.forceMerge(1);
      writer.commit();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    return new LuceneHnswIndex(dir, seconds);
  }

  double buildSeconds() {
    return buildSeconds;
  }

  /** The top {@code k} doc ids of a {@link KnnFloatVectorQuery} with k = {@code ef}. */
  int[] search(float[] query, int ef, int k) throws IOException {
    TopDocs top = searcher.search(new KnnFloatVectorQuery(FIELD, query, Math.max(ef, k)), k);
    int[] ids = new int[top.scoreDocs.length];
    int i = 0;
    for (ScoreDoc sd : top.scoreDocs) {
      ids[i++] = sd.doc;
    }
    return ids;
  }

  /** Vectors scored by the same graph search (Lucene reports them as the total hit count). */
  long visited(float[] query, int ef) throws IOException {
    LeafReader leaf = reader.leaves().get(0).reader();
    TopDocs top =
        leaf.searchNearestVectors(
            FIELD,
            query,
            ef,
            AcceptDocs.fromLiveDocs(leaf.getLiveDocs(), leaf.maxDoc()),
            Integer.MAX_VALUE);
    return top.totalHits.value();
  }

  @Override
  public void close() throws IOException {
    reader.close();
    directory.close();
  }

  static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
