package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
import org.searchlab.core.WriteResult;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.IndexMapping;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.MappingException;
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
  // The benchmark's schema when opened with one; null for an index of any mapping.
  private final Schema schema;
  // Null for the benchmark's fields; else the durable mapping documents are read against.
  private final IndexMapping indexMapping;
  private final SegmentedConfig config;
  private final SegmentedParts parts;
  private final SegmentedWriter writer;
  private final SegmentedSearcher searcher;
  private final DataDirectory dataDirectory;
  private volatile boolean closed;

  /** The data format of the directory: Lucene's index plus the core log; bump on a change. */
  static final int FORMAT = 1;

  /**
   * The oldest data format of an index of any mapping ({@link MappedDocuments}' fields, the mapping
   * file, a log of parsed documents), which this build still reads.
   */
  static final int MAPPING_FORMAT = 2;

  /**
   * The data format this build writes for an index of any mapping: format 2 with each vector kept
   * once (out of the stored source, and out of doc values where the indexed vector is the vector as
   * given). Segments of both read the same ({@link LeafVectors}), so a format-2 directory opens as
   * it is and its new segments are written in this format; bump on a change.
   */
  static final int SOURCE_WITHOUT_VECTORS_FORMAT = 3;

  private LuceneSegmentedIndex(
      Schema schema,
      IndexMapping indexMapping,
      SegmentedConfig config,
      SegmentedParts parts,
      DataDirectory dataDirectory) {
    this.dataDirectory = dataDirectory;
    this.schema = schema;
    this.indexMapping = indexMapping;
    this.config = config;
    this.parts = parts;
    int oversample = config.quantization().quantized() ? config.oversample() : 0;
    if (indexMapping == null) {
      this.writer = new SegmentedWriter(new ProductDocuments(schema), config, parts);
      this.searcher = new SegmentedSearcher(parts.manager, oversample, parts.stats.visits);
    } else {
      DocumentFields fields =
          new MappedDocuments(indexMapping, SegmentedOpener.maxDimensions(config));
      this.writer = new SegmentedWriter(fields, config, parts);
      this.searcher =
          new SegmentedSearcher(
              parts.manager, oversample, fields, indexMapping::current, config, parts.stats.visits);
    }
  }

  /**
   * Opens (or creates) an index of any mapping in {@code dir}, as Elasticsearch maps each field
   * type to Lucene ({@link MappedDocuments}), and replays its write-ahead log after the last
   * commit. A reopened index merges {@code mapping} into the one it kept.
   *
   * @throws org.searchlab.core.mapping.MappingException when {@code mapping} conflicts with the
   *     kept one, or a vector field has more dimensions than Lucene indexes
   */
  public static LuceneSegmentedIndex open(
      Path dir, IndexSettings settings, Mapping mapping, SegmentedConfig config)
      throws IOException {
    checkDimensions(mapping, config);
    DataDirectory claim = DataDirectory.acquire(dir, "segmented", SOURCE_WITHOUT_VECTORS_FORMAT);
    try {
      refuseOlderFormat(dir);
      IndexMapping im = IndexMapping.open(dir, settings, mapping);
      config = withRefreshInterval(config, im.settings());
      SegmentedParts parts =
          SegmentedOpener.open(
              dir,
              config,
              java.nio.channels.FileChannel::open,
              d -> d,
              LuceneFields.of(im::current));
      LuceneSegmentedIndex index = new LuceneSegmentedIndex(null, im, config, parts, claim);
      SegmentedOpener.recover(parts, index.writer, config);
      return index;
    } catch (IOException | RuntimeException e) {
      claim.close();
      throw e;
    }
  }

  /**
   * Refuses a directory of the benchmark's fields only (format 1): its Lucene documents lack the
   * metadata fields of any mapping, so it is re-fed rather than read wrongly.
   */
  private static void refuseOlderFormat(Path dir) throws IOException {
    Path marker = dir.resolve(DataDirectory.MARKER_FILE);
    if (!java.nio.file.Files.exists(marker)) {
      return;
    }
    java.util.Properties p = new java.util.Properties();
    try (java.io.Reader r = java.nio.file.Files.newBufferedReader(marker)) {
      p.load(r);
    }
    int format = Integer.parseInt(p.getProperty("format", "0"));
    if (format < MAPPING_FORMAT) {
      throw new IOException(
          "the segmented index in "
              + dir
              + " was written in format "
              + format
              + " (the benchmark's fields only); this build indexes any mapping in format "
              + MAPPING_FORMAT
              + " and cannot read it as one: delete the directory and feed the documents again");
    }
  }

  /**
   * The store's settings with the index's {@code refresh_interval} when it sets one ({@code -1}:
   * only explicit refreshes); an interval outside the store's range (1 ms to 1 h) is clamped to it.
   */
  static SegmentedConfig withRefreshInterval(SegmentedConfig config, IndexSettings settings) {
    Long ms = settings.refreshIntervalMillis();
    if (ms == null || ms == config.refreshIntervalMs()) {
      return config;
    }
    long interval = ms < 0 ? SegmentedConfig.REFRESH_DISABLED : Math.clamp(ms, 1, 3_600_000);
    return config.toBuilder().refreshIntervalMs(interval).build();
  }

  /** Refuses a vector field with more dimensions than the store's HNSW format indexes. */
  private static void checkDimensions(Mapping mapping, SegmentedConfig config) {
    int maxDims = SegmentedOpener.maxDimensions(config);
    for (Map.Entry<String, FieldType> e : mapping.leaves().entrySet()) {
      if (e.getValue() instanceof FieldType.DenseVector v && v.dims() > maxDims) {
        throw MappingException.conflict(
            "field ["
                + e.getKey()
                + "] has "
                + v.dims()
                + " dimensions; the segmented store's vector format (Lucene's HNSW) indexes at"
                + " most "
                + maxDims);
      }
    }
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
      LuceneSegmentedIndex index = new LuceneSegmentedIndex(schema, null, config, parts, claim);
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

  /** The read path, for tests in this package. */
  SegmentedSearcher searcher() {
    return searcher;
  }

  /** The settings this store runs with. */
  public SegmentedConfig config() {
    return config;
  }

  @Override
  public Schema schema() {
    return schema != null ? schema : SearchIndex.super.schema();
  }

  /** The benchmark's mapping when opened with a schema; else the index's mapping as it grew. */
  @Override
  public Mapping mapping() {
    return indexMapping == null ? schema.mapping() : indexMapping.current();
  }

  /**
   * Adds fields to the mapping, durable before it returns. An index opened with the benchmark's
   * schema accepts an update only when it changes nothing.
   */
  @Override
  public Mapping putMapping(Mapping update) throws IOException {
    ensureOpen();
    if (indexMapping == null) {
      Mapping m = mapping();
      if (!m.merge(update).equals(m)) {
        throw new InvalidRequestException(
            "this index was opened with the benchmark's product schema; it cannot add fields");
      }
      return m;
    }
    // Refused before the mapping change becomes durable.
    checkDimensions(indexMapping.current().merge(update), config);
    return indexMapping.merge(update);
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
    if (indexMapping == null) {
      request.validate(schema);
    } else {
      request.validate(indexMapping.current());
    }
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
