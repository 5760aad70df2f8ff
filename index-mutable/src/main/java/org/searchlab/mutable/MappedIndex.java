// Over 500 lines: the mapped store's open, replay, write, snapshot and search paths share its
// locks and fields; split, each part would reach into the others' state.
package org.searchlab.mutable;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.DataDirectory;
import org.searchlab.core.Document;
import org.searchlab.core.DocumentExistsException;
import org.searchlab.core.IndexStats;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.WriteResult;
import org.searchlab.core.io.Durable;
import org.searchlab.core.mapping.IndexMapping;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.ParsedDocument;
import org.searchlab.core.wal.OperationCodec;
import org.searchlab.core.wal.WriteAheadLog;
import org.searchlab.mutable.hnsw.MutableHnswGraph;
import org.searchlab.mutable.query.Documents;

/**
 * The mutable store over any mapping: every field the {@link IndexMapping} names is indexed as its
 * type says (text fields with their analyzer and BM25 parameters, keyword values with live document
 * frequencies, numbers, dates and booleans as attribute values, dense vectors), and searches run
 * the general {@link org.searchlab.mutable.query.Evaluator}. A write is visible to searches when it
 * is acknowledged; {@link #refresh()} is a no-op.
 *
 * <p>Writes: a put is parsed against the mapping before anything is logged, so a bad document fails
 * with nothing written, and a document that adds fields makes the grown mapping durable ({@value
 * IndexMapping#FILE}) before it is logged. An update is merged into the current version ({@link
 * PartialUpdate#applyTo}), parsed, and logged and applied as a put of the new version. Replay reads
 * the logged documents with {@link IndexMapping#parseKnown}.
 *
 * <p>Files in its directory: {@value IndexMapping#FILE}, {@code wal/}, {@value #SNAPSHOT} (format
 * {@value #FORMAT}: the serial it covers, the catalog of graph files, and every live document with
 * its ordinal) and {@code mapped-graph-<serial>-<n>.bin}, the graph of one vector field with its
 * vectors. A snapshot of another format is refused with a message to feed the documents again; a
 * directory with a log and no snapshot replays.
 *
 * <p>Thread safety: writes hold the write lock of a read-write lock, searches and gets its read
 * lock; every search sees whole documents.
 */
final class MappedIndex implements SearchIndex {
  static final String SNAPSHOT = "mapped-snapshot.bin";
  static final int FORMAT = 2;

  private final Path dir;
  private final MutableConfig config;
  private final IndexMapping mapping;
  private final WriteAheadLog wal;
  private final DataDirectory dataDirectory;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  // Guarded by lock.
  private final Documents docs;
  private long flushedSerial;
  private long updates;
  private boolean closed;

  private MappedIndex(
      Path dir,
      IndexSettings settings,
      Mapping initial,
      MutableConfig config,
      DataDirectory dataDirectory)
      throws IOException {
    this.dir = dir;
    this.config = config;
    this.dataDirectory = dataDirectory;
    this.mapping = IndexMapping.open(dir, settings, initial);
    this.docs =
        new Documents(mapping.current(), mapping.settings().defaultAnalyzer(), config.hnsw(), dir);
    loadSnapshot();
    this.wal = WriteAheadLog.open(dir.resolve("wal"), config.wal());
    try {
      wal.advanceTo(flushedSerial + 1);
      wal.replay(
          flushedSerial,
          (serial, payload) -> {
            switch (OperationCodec.decode(payload)) {
              case Operation.Put p -> {
                docs.useMapping(mapping.current());
                docs.put(mapping.parseKnown(p.document()));
              }
              case Operation.Delete d -> docs.remove(d.id());
              case Operation.Update u ->
                  throw new IOException("unexpected update record " + serial + " in " + dir);
            }
          });
    } catch (IOException | RuntimeException e) {
      wal.close();
      throw e;
    }
  }

  /** Opens (or creates) the store in {@code dir}; the caller checked the arguments. */
  static MappedIndex open(Path dir, IndexSettings settings, Mapping mapping, MutableConfig config)
      throws IOException {
    DataDirectory claim = DataDirectory.acquire(dir, "mutable", FORMAT);
    try {
      // Before the mapping file is written: a product store's format-1 snapshot is not read here.
      try (var older = Files.newDirectoryStream(dir, "snapshot-*.bin")) {
        for (Path f : older) {
          throw new IOException(
              "the mutable index in "
                  + dir
                  + " holds a format-1 snapshot of the product store ("
                  + f.getFileName()
                  + "); a store of any mapping reads format "
                  + FORMAT
                  + " only: delete the directory and feed the documents again");
        }
      }
      return new MappedIndex(dir, settings, mapping, config, claim);
    } catch (IOException | RuntimeException e) {
      claim.close();
      throw e;
    }
  }

  /** The settings this index was opened with. */
  MutableConfig config() {
    return config;
  }

  @Override
  public Mapping mapping() {
    return mapping.current();
  }

  @Override
  public Mapping putMapping(Mapping update) throws IOException {
    lock.writeLock().lock();
    try {
      ensureOpen();
      Mapping m = mapping.merge(update);
      docs.useMapping(m);
      return m;
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public WriteResult put(Document doc) throws IOException {
    return write(Operation.put(doc));
  }

  @Override
  public WriteResult create(Document doc) throws IOException {
    return write(Operation.create(doc));
  }

  @Override
  public WriteResult update(PartialUpdate update) throws IOException {
    return write(Operation.update(update));
  }

  @Override
  public WriteResult delete(String id) throws IOException {
    return write(Operation.delete(id));
  }

  /**
   * What an operation does now: its outcome (null for a create of a present id), the document it
   * leaves (null for a delete or a miss) and what the log records.
   */
  private record Prepared(
      WriteResult.Outcome outcome, ParsedDocument parsed, Operation logged, String id) {}

  /** Under the write lock: checks and parses, writing nothing but a grown mapping. */
  private Prepared prepare(Operation op) throws IOException {
    Schema.validateId(op.id());
    boolean exists = docs.get(op.id()) != null;
    return switch (op) {
      case Operation.Put p when p.ifAbsent() && exists -> new Prepared(null, null, null, op.id());
      case Operation.Put p -> {
        ParsedDocument parsed = mapping.parse(p.document());
        yield new Prepared(
            exists ? WriteResult.Outcome.UPDATED : WriteResult.Outcome.CREATED,
            parsed,
            Operation.put(parsed.document()),
            op.id());
      }
      case Operation.Update u -> {
        mapping.checkPatch(u.update());
        if (!exists) {
          yield new Prepared(WriteResult.Outcome.NOT_FOUND, null, null, op.id());
        }
        ParsedDocument parsed = mapping.parse(u.update().applyTo(docs.get(u.id())));
        yield new Prepared(
            WriteResult.Outcome.UPDATED, parsed, Operation.put(parsed.document()), op.id());
      }
      case Operation.Delete d ->
          new Prepared(
              exists ? WriteResult.Outcome.DELETED : WriteResult.Outcome.NOT_FOUND,
              null,
              op,
              op.id());
    };
  }

  private WriteResult write(Operation op) throws IOException {
    long serial;
    WriteResult.Outcome outcome;
    lock.writeLock().lock();
    try {
      ensureOpen();
      Prepared p = prepare(op);
      outcome = p.outcome();
      if (outcome == WriteResult.Outcome.NOT_FOUND) {
        return new WriteResult(op.id(), 0, outcome);
      }
      if (outcome == null) {
        throw new DocumentExistsException(op.id());
      }
      serial = wal.write(OperationCodec.encode(p.logged()));
      apply(p, op);
    } finally {
      lock.writeLock().unlock();
    }
    wal.sync(serial);
    return new WriteResult(op.id(), serial, outcome);
  }

  @Override
  public List<BulkItemResult> bulk(List<Operation> ops) throws IOException {
    if (ops == null || ops.isEmpty()) {
      throw new InvalidRequestException("bulk request has no operations");
    }
    List<BulkItemResult> results = new ArrayList<>(ops.size());
    long last = 0;
    lock.writeLock().lock();
    try {
      ensureOpen();
      for (Operation op : ops) {
        Prepared p;
        try {
          p = prepare(op);
        } catch (InvalidRequestException e) {
          results.add(BulkItemResult.failed(op, e));
          continue;
        }
        WriteResult.Outcome outcome = p.outcome();
        if (outcome == null) {
          results.add(BulkItemResult.failed(op, new DocumentExistsException(op.id())));
          continue;
        }
        if (outcome == WriteResult.Outcome.NOT_FOUND) {
          results.add(BulkItemResult.ok(op, new WriteResult(op.id(), 0, outcome)));
          continue;
        }
        last = wal.write(OperationCodec.encode(p.logged()));
        apply(p, op);
        results.add(BulkItemResult.ok(op, new WriteResult(op.id(), last, outcome)));
      }
    } finally {
      lock.writeLock().unlock();
    }
    if (last > 0) {
      wal.sync(last);
    }
    return results;
  }

  /** Under the write lock: applies a prepared, logged operation. */
  private void apply(Prepared p, Operation op) {
    docs.useMapping(mapping.current());
    if (p.parsed() != null) {
      docs.put(p.parsed());
    } else {
      docs.remove(p.id());
    }
    if (op instanceof Operation.Update) {
      updates++;
    }
  }

  @Override
  public Optional<Document> get(String id) {
    lock.readLock().lock();
    try {
      ensureOpen();
      Schema.validateId(id);
      return Optional.ofNullable(docs.get(id));
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public SearchResult search(SearchRequest request) {
    lock.readLock().lock();
    try {
      ensureOpen();
      request.validate(mapping.current());
      return docs.search(request);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** A no-op: every acknowledged write is already visible. */
  @Override
  public void refresh() {
    lock.readLock().lock();
    try {
      ensureOpen();
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Writes a snapshot of every live document and trims the write-ahead log up to it. */
  @Override
  public void flush() throws IOException {
    lock.writeLock().lock();
    try {
      ensureOpen();
      writeSnapshot();
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Under the write lock: the graph of each vector field in a file of its own, then the catalog of
   * those files and every live document with its ordinal in {@value #SNAPSHOT}, which is moved into
   * place last, so that a crash leaves the older snapshot whole; then the older graph files go.
   */
  private void writeSnapshot() throws IOException {
    long serial = wal.lastSerial();
    Map<String, String> graphFiles = new java.util.LinkedHashMap<>();
    int i = 0;
    for (Map.Entry<String, MutableHnswGraph> g : docs.graphs().entrySet()) {
      String name = "mapped-graph-" + serial + "-" + i++ + ".bin";
      g.getValue().writeSnapshot(dir.resolve(name));
      graphFiles.put(g.getKey(), name);
    }
    Path tmp = dir.resolve(SNAPSHOT + ".tmp");
    try (DataOutputStream out =
        new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp)))) {
      out.writeInt(FORMAT);
      out.writeLong(serial);
      out.writeInt(graphFiles.size());
      for (Map.Entry<String, String> g : graphFiles.entrySet()) {
        out.writeUTF(g.getKey());
        out.writeUTF(g.getValue());
      }
      out.writeInt(docs.size());
      int written = 0;
      for (int ord = 0; ord < docs.ordinals(); ord++) {
        ParsedDocument d = docs.at(ord);
        if (d != null) {
          out.writeInt(ord);
          OperationCodec.writeDocument(out, d.document());
          written++;
        }
      }
      assert written == docs.size() : written + " documents written of " + docs.size();
    }
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      ch.force(true);
    }
    Files.move(tmp, dir.resolve(SNAPSHOT), StandardCopyOption.ATOMIC_MOVE);
    Durable.forceDirectory(dir);
    try (var files = Files.newDirectoryStream(dir, "mapped-graph-*.bin")) {
      for (Path f : files) {
        if (!graphFiles.containsValue(f.getFileName().toString())) {
          Files.deleteIfExists(f);
        }
      }
    }
    flushedSerial = serial;
    wal.trimUpTo(serial);
  }

  private void loadSnapshot() throws IOException {
    Path f = dir.resolve(SNAPSHOT);
    if (!Files.exists(f)) {
      return;
    }
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(f)))) {
      int format = in.readInt();
      if (format != FORMAT) {
        throw new IOException(
            "snapshot "
                + f
                + " has format "
                + format
                + ", this store reads "
                + FORMAT
                + " only: delete the directory and feed the documents again");
      }
      flushedSerial = in.readLong();
      Map<String, String> graphFiles = new java.util.LinkedHashMap<>();
      for (int g = in.readInt(); g > 0; g--) {
        graphFiles.put(in.readUTF(), in.readUTF());
      }
      int n = in.readInt();
      for (int i = 0; i < n; i++) {
        int ord = in.readInt();
        ParsedDocument parsed = mapping.parseKnown(OperationCodec.readDocument(in));
        docs.useMapping(mapping.current());
        docs.restore(ord, parsed);
      }
      for (Map.Entry<String, String> g : graphFiles.entrySet()) {
        docs.restoreGraph(g.getKey(), dir.resolve(g.getValue()));
      }
    }
  }

  /** There are no segments: a no-op past its argument check. */
  @Override
  public void forceMerge(int maxSegments) {
    ensureOpen();
    if (maxSegments < 1) {
      throw new InvalidRequestException("maxSegments " + maxSegments + " is less than 1");
    }
  }

  @Override
  public IndexStats stats() throws IOException {
    lock.readLock().lock();
    try {
      ensureOpen();
      Map<String, Long> counters = new HashMap<>();
      counters.put("reindexed_updates", updates);
      counters.put("refreshes", 0L);
      counters.put("unchanged_vector_puts", docs.vectorsHandedOver());
      docs.visits().report(counters);
      return new IndexStats(
          "mutable",
          docs.size(),
          0,
          1,
          List.of(),
          wal.lastSerial(),
          flushedSerial,
          wal.sizeBytes(),
          Map.of(),
          counters);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The documents' structures, for tests in this package. */
  Documents documents() {
    return docs;
  }

  /** Writes run on the caller's thread: only the log can stop accepting them. */
  @Override
  public org.searchlab.core.StoreHealth health() {
    return new org.searchlab.core.StoreHealth(
        Optional.empty(), wal.failure().map(Throwable::toString), 0, Optional.empty());
  }

  /**
   * Closes the log and the directory without a snapshot, as a crash after the last acknowledged
   * write leaves them: for tests of the replay.
   */
  void closeWithoutSnapshot() throws IOException {
    lock.writeLock().lock();
    try {
      closed = true;
      wal.close();
      docs.close();
      dataDirectory.close();
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Writes a snapshot of what the log holds beyond the last one, then closes the log. */
  @Override
  public void close() throws IOException {
    lock.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      IOException failure = null;
      try {
        if (wal.lastSerial() > flushedSerial && wal.failure().isEmpty()) {
          writeSnapshot();
        }
      } catch (IOException | RuntimeException e) {
        failure =
            new IOException("snapshot on close of the mutable index in " + dir + " failed", e);
      }
      for (java.io.Closeable c : new java.io.Closeable[] {wal, docs::close, dataDirectory}) {
        try {
          c.close();
        } catch (IOException e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
      if (failure != null) {
        throw failure;
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("mutable index in " + dir + " is closed");
    }
  }
}
