package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.search.SearcherManager;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.DataDirectory;
import org.searchlab.core.Document;
import org.searchlab.core.IndexStats;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.StoreHealth;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.WriteResult;
import org.searchlab.core.wal.WriteAheadLog;

/**
 * The Elasticsearch-like store: a Lucene {@link IndexWriter} whose segments come from refreshes and
 * merges, searched through a {@link SearcherManager} refreshed on a schedule, with the core {@link
 * WriteAheadLog} as its translog. Files: {@code <dir>/index} (Lucene) and {@code <dir>/wal}.
 *
 * <p>A thin facade over its roles: {@link SegmentedOpener} opens and recovers it, {@link
 * SegmentedWriter} writes, commits and merges, {@link SegmentedSearcher} searches, {@link
 * SegmentedStats} counts and reports; {@link SegmentedParts} holds what they share. A write is
 * acknowledged once it is durable in the log; searches see it after the next refresh, {@link #get}
 * at once.
 *
 * <p>Thread-safe, as {@link SearchIndex} requires. {@link #close()} must not race other calls.
 */
public final class LuceneSegmentedIndex implements SearchIndex {
  private final Schema schema;
  private final SegmentedConfig config;
  private final SegmentedParts parts;
  private final SegmentedWriter writer;
  private final SegmentedSearcher searcher;
  private final DataDirectory dataDirectory;
  private volatile boolean closed;

  /** The data format of the directory: Lucene's index plus the core log; bump on a change. */
  static final int FORMAT = 1;

  private LuceneSegmentedIndex(
      Schema schema, SegmentedConfig config, SegmentedParts parts, DataDirectory dataDirectory) {
    this.dataDirectory = dataDirectory;
    this.schema = schema;
    this.config = config;
    this.parts = parts;
    this.writer = new SegmentedWriter(schema, config, parts);
    this.searcher =
        new SegmentedSearcher(
            parts.manager,
            config.quantization() == VectorQuantization.NONE ? 0 : config.oversample());
  }

  /**
   * Opens (or creates) the store in {@code dir} and replays its write-ahead log after the last
   * commit.
   */
  public static LuceneSegmentedIndex open(Path dir, Schema schema, SegmentedConfig config)
      throws IOException {
    return open(dir, schema, config, java.nio.channels.FileChannel::open, d -> d);
  }

  /**
   * Opens with the log's files opened through {@code walFiles} and Lucene's directory wrapped by
   * {@code indexDirectory} (fault injection in tests).
   */
  static LuceneSegmentedIndex open(
      Path dir,
      Schema schema,
      SegmentedConfig config,
      org.searchlab.core.wal.WriteAheadLog.FileOpener walFiles,
      java.util.function.UnaryOperator<org.apache.lucene.store.Directory> indexDirectory)
      throws IOException {
    int maxDims = SegmentedOpener.maxDimensions(config);
    if (schema.dimension() > maxDims) {
      throw new InvalidRequestException(
          "embedding dimension "
              + schema.dimension()
              + " exceeds the segmented store's limit of "
              + maxDims
              + " (Lucene's HNSW vector format); use at most "
              + maxDims
              + " dimensions or the mutable store");
    }
    DataDirectory claim = DataDirectory.acquire(dir, "segmented", schema, FORMAT);
    try {
      SegmentedParts parts = SegmentedOpener.open(dir, config, walFiles, indexDirectory);
      LuceneSegmentedIndex index = new LuceneSegmentedIndex(schema, config, parts, claim);
      SegmentedOpener.recover(parts, index.writer, config);
      return index;
    } catch (IOException | RuntimeException e) {
      claim.close();
      throw e;
    }
  }

  /** Opens with {@link SegmentedConfig#DEFAULT}. */
  public static LuceneSegmentedIndex open(Path dir, Schema schema) throws IOException {
    return open(dir, schema, SegmentedConfig.DEFAULT);
  }

  /** The settings this store runs with. */
  public SegmentedConfig config() {
    return config;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  /** The benchmark's mapping: the only one this store indexes until it reads any mapping (#66). */
  @Override
  public org.searchlab.core.mapping.Mapping mapping() {
    return schema.mapping();
  }

  /**
   * Accepts an update only when it changes nothing: this store indexes the benchmark's mapping
   * alone until it reads any mapping (#66).
   */
  @Override
  public org.searchlab.core.mapping.Mapping putMapping(org.searchlab.core.mapping.Mapping update) {
    org.searchlab.core.mapping.Mapping m = mapping();
    if (!m.merge(update).equals(m)) {
      throw new org.searchlab.core.InvalidRequestException(
          "this store indexes the benchmark's product mapping only; it cannot add fields");
    }
    return m;
  }

  @Override
  public WriteResult put(Document doc) throws IOException {
    ensureOpen();
    return writer.write(Operation.put(doc));
  }

  @Override
  public WriteResult create(Document doc) throws IOException {
    ensureOpen();
    return writer.write(Operation.create(doc));
  }

  @Override
  public WriteResult update(PartialUpdate update) throws IOException {
    ensureOpen();
    return writer.write(Operation.update(update));
  }

  @Override
  public WriteResult delete(String id) throws IOException {
    ensureOpen();
    return writer.write(Operation.delete(id));
  }

  @Override
  public List<BulkItemResult> bulk(List<Operation> ops) throws IOException {
    ensureOpen();
    return writer.bulk(ops);
  }

  /** Real-time: a write not yet refreshed is read from the live version map. */
  @Override
  public Optional<Document> get(String id) throws IOException {
    ensureOpen();
    Schema.validateId(id);
    return writer.realTimeGet(id);
  }

  @Override
  public SearchResult search(SearchRequest request) throws IOException {
    ensureOpen();
    request.validate(schema);
    return searcher.search(request);
  }

  @Override
  public void refresh() throws IOException {
    ensureOpen();
    parts.manager.maybeRefreshBlocking();
  }

  /** A Lucene commit recording the last applied log serial, then a log trim up to it. */
  @Override
  public void flush() throws IOException {
    ensureOpen();
    writer.flush();
  }

  @Override
  public void forceMerge(int maxSegments) throws IOException {
    ensureOpen();
    writer.forceMerge(maxSegments);
  }

  @Override
  public IndexStats stats() throws IOException {
    ensureOpen();
    return SegmentedStats.report(parts);
  }

  @Override
  public StoreHealth health() {
    Throwable tragedy = parts.indexWriter.getTragicException();
    return new StoreHealth(
        java.util.Optional.ofNullable(tragedy).map(t -> "index writer failed: " + t),
        parts.wal.failure().map(Throwable::toString),
        parts.stats.errors.count(),
        parts.stats.errors.last());
  }

  /**
   * Commits everything applied and trims the log (as Elasticsearch flushes on close), then releases
   * everything; so a restart replays nothing. After a failure it commits nothing: Lucene rolls back
   * to its last commit and the log holds the rest.
   */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    IOException failure = null;
    if (health().writable()) {
      try {
        writer.flush();
      } catch (IOException | RuntimeException e) {
        failure = new IOException("commit on close of the segmented index failed", e);
      }
    }
    try {
      try {
        parts.close();
      } finally {
        dataDirectory.close();
      }
    } catch (IOException e) {
      if (failure == null) {
        throw e;
      }
      failure.addSuppressed(e);
    }
    if (failure != null) {
      throw failure;
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("the segmented index is closed");
    }
  }
}
