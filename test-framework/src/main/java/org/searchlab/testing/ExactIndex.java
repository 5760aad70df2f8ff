package org.searchlab.testing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.searchlab.core.BulkItemResult;
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
import org.searchlab.core.mapping.IndexMapping;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.ParsedDocument;
import org.searchlab.core.scoring.Bm25;
import org.searchlab.core.wal.OperationCodec;
import org.searchlab.core.wal.WalConfig;
import org.searchlab.core.wal.WriteAheadLog;

/**
 * The brute-force reference store: every query scores every document exactly. Lexical scores are
 * computed with {@link Bm25} from per-field term frequencies and Lucene's one-byte norms; vector
 * scores are exact closeness over all vectors. It is real and persistent (the core write-ahead log
 * plus a snapshot on flush), so the conformance suite runs against it unchanged.
 *
 * <p>Thread-safe: writes take a write lock, reads a read lock. Searches are real-time.
 */
public final class ExactIndex implements SearchIndex {
  private static final String SNAPSHOT = "exact-snapshot.bin";

  private final Path dir;
  private final IndexMapping mapping;
  private final WriteAheadLog wal;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  // Guarded by lock.
  private final ExactCorpus docs;
  private long flushedSerial;
  private boolean closed;

  private ExactIndex(Path dir, IndexSettings settings, Mapping initial, WalConfig walConfig)
      throws IOException {
    this.dir = dir;
    Files.createDirectories(dir);
    this.mapping = IndexMapping.open(dir, settings, initial);
    this.docs = new ExactCorpus(mapping.current(), mapping.settings().defaultAnalyzer());
    loadSnapshot();
    this.wal = WriteAheadLog.open(dir.resolve("wal"), walConfig);
    wal.advanceTo(flushedSerial + 1);
    wal.replay(
        flushedSerial,
        (serial, payload) -> {
          Operation op = OperationCodec.decode(payload);
          Prepared p = prepare(op);
          if (p.outcome() != null && p.outcome() != WriteResult.Outcome.NOT_FOUND) {
            apply(p);
          }
        });
  }

  /** The benchmark's mapping with {@code schema}'s dimension. */
  public static ExactIndex open(Path dir, Schema schema) throws IOException {
    return open(dir, schema, WalConfig.DEFAULT);
  }

  public static ExactIndex open(Path dir, Schema schema, WalConfig walConfig) throws IOException {
    return new ExactIndex(dir, IndexSettings.DEFAULT, schema.mapping(), walConfig);
  }

  /** An index of {@code mapping} with {@code settings}. */
  public static ExactIndex open(Path dir, IndexSettings settings, Mapping mapping)
      throws IOException {
    return new ExactIndex(dir, settings, mapping, WalConfig.DEFAULT);
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
   * What an operation does now, checked and read against the mapping: its outcome (null for a
   * create of a present id), the document it leaves (null for a delete or a miss) and what the log
   * records.
   */
  private record Prepared(
      WriteResult.Outcome outcome, ParsedDocument parsed, Operation logged, String id) {}

  /** Under the write lock (or while opening). */
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
        yield new Prepared(WriteResult.Outcome.UPDATED, parsed, op, op.id());
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
      apply(p);
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
        apply(p);
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

  /** Under the write lock (or during open): applies a prepared, logged operation. */
  private void apply(Prepared p) {
    docs.useMapping(mapping.current());
    if (p.parsed() != null) {
      docs.put(p.parsed());
    } else {
      docs.remove(p.id());
    }
  }

  @Override
  public Optional<Document> get(String id) {
    lock.readLock().lock();
    try {
      ensureOpen();
      Schema.validateId(id); // as both stores do: a bad id is an error, not "absent"
      return Optional.ofNullable(docs.get(id));
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public SearchResult search(SearchRequest request) {
    request.validate(mapping.current());
    lock.readLock().lock();
    try {
      ensureOpen();
      return docs.search(request);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The exact lexical score of one document for {@code text}, or NaN if it does not match. */
  public float lexicalScore(String id, String text) {
    lock.readLock().lock();
    try {
      return docs.lexicalScore(id, text);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void refresh() {
    // Real-time: every acknowledged write is already visible.
  }

  @Override
  public void flush() throws IOException {
    lock.writeLock().lock();
    try {
      ensureOpen();
      long serial = wal.lastSerial();
      Path tmp = dir.resolve(SNAPSHOT + ".tmp");
      try (DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp)))) {
        out.writeLong(serial);
        out.writeInt(docs.size());
        for (Document d : docs.documents()) {
          OperationCodec.writeDocument(out, d);
        }
      }
      try (var ch =
          java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
        ch.force(true);
      }
      Files.move(tmp, dir.resolve(SNAPSHOT), StandardCopyOption.ATOMIC_MOVE);
      flushedSerial = serial;
      wal.trimUpTo(serial);
    } finally {
      lock.writeLock().unlock();
    }
  }

  private void loadSnapshot() throws IOException {
    Path f = dir.resolve(SNAPSHOT);
    if (!Files.exists(f)) {
      return;
    }
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(f)))) {
      flushedSerial = in.readLong();
      int n = in.readInt();
      for (int i = 0; i < n; i++) {
        ParsedDocument parsed = mapping.parse(OperationCodec.readDocument(in));
        docs.useMapping(mapping.current());
        docs.put(parsed);
      }
    }
  }

  @Override
  public void forceMerge(int maxSegments) {
    if (maxSegments < 1) {
      throw new InvalidRequestException("max_num_segments " + maxSegments + " must be ≥ 1");
    }
  }

  @Override
  public IndexStats stats() throws IOException {
    lock.readLock().lock();
    try {
      ensureOpen();
      return new IndexStats(
          "exact",
          docs.size(),
          0,
          1,
          List.of(),
          wal.lastSerial(),
          flushedSerial,
          wal.sizeBytes(),
          Map.of(),
          Map.of());
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void close() throws IOException {
    lock.writeLock().lock();
    try {
      if (!closed) {
        closed = true;
        wal.close();
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("index in " + dir + " is closed");
    }
  }
}
