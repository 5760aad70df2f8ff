package org.searchlab.core;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * An index of {@link Document}s that answers {@link SearchRequest}s: the one contract both
 * architectures implement.
 *
 * <p><b>Durability.</b> A write method returns (the write is <em>acknowledged</em>) only after its
 * write-ahead log record is written under the configured sync policy: fsynced for {@code request},
 * written to the OS for {@code async}. After a crash, reopening the same directory recovers every
 * write acknowledged under {@code request} (and every write up to the last periodic fsync under
 * {@code async}).
 *
 * <p><b>Visibility.</b> {@link #get} is real-time: it sees every acknowledged write. {@link
 * #search} sees every write acknowledged before the most recent {@link #refresh()} returned;
 * near-real-time stores also refresh periodically. A store with real-time search makes {@code
 * refresh()} a no-op and a write visible to searches as soon as it is acknowledged. A search never
 * sees a document half-written: all of its fields, or none.
 *
 * <p><b>Thread safety.</b> Implementations are thread-safe: any number of threads may write, read
 * and search concurrently. Writes to the same id are applied in write-ahead log order. {@link
 * #close()} must not race other calls; calls after close throw {@link IllegalStateException}.
 *
 * <p><b>Point in time.</b> A search runs on one point-in-time view: the documents it matches,
 * scores and, when {@link SearchRequest#fetchDocuments()} asks, returns in {@link Hit#document()}
 * are the versions of that view, even while writers replace them.
 *
 * <p><b>Errors.</b> Bad input throws {@link InvalidRequestException} before anything is written; a
 * bulk rejects bad items individually and applies the others.
 */
public interface SearchIndex extends Closeable {
  /**
   * The index's mapping, with every field documents and {@link #putMapping} added so far: what
   * documents are read against and queries name.
   */
  org.searchlab.core.mapping.Mapping mapping();

  /**
   * Adds fields to the mapping (Elasticsearch's {@code PUT /{index}/_mapping}): durable before it
   * returns, visible to every later write and search.
   *
   * @return the new mapping
   * @throws org.searchlab.core.mapping.MappingException when a field would change type or a fixed
   *     parameter ({@code illegal_argument_exception})
   */
  org.searchlab.core.mapping.Mapping putMapping(org.searchlab.core.mapping.Mapping update)
      throws IOException;

  /**
   * The benchmark's schema for this index: the dimension of its {@code embedding} field ({@link
   * Schema#DEFAULT} without one). For callers that still speak in the benchmark's terms.
   */
  default Schema schema() {
    org.searchlab.core.mapping.FieldType.DenseVector v = mapping().vector(Schema.EMBEDDING);
    return v != null && v.dims() > 0 ? new Schema(v.dims()) : Schema.DEFAULT;
  }

  /** Creates or replaces a whole document. */
  WriteResult put(Document doc) throws IOException;

  /**
   * Creates a document only if no document has its id (Elasticsearch's {@code op_type=create}): the
   * check and the write are one atomic step against every other write of that id, so of many
   * concurrent creates of one id exactly one succeeds.
   *
   * @throws DocumentExistsException when the id is present; nothing is written
   */
  WriteResult create(Document doc) throws IOException;

  /** Assigns some fields of an existing document; {@code NOT_FOUND} when there is none. */
  WriteResult update(PartialUpdate update) throws IOException;

  /** Removes a document; {@code NOT_FOUND} when there is none. */
  WriteResult delete(String id) throws IOException;

  /**
   * One put, create, update or delete that does not hold the caller's thread until it is
   * acknowledged: the future completes with what the synchronous call returns, or fails with what
   * it throws. A server answers single-document requests with it, so that many of them can wait for
   * one log write and fsync together (Vespa's document API) instead of one blocked thread each.
   * Invalid input may be thrown at once. By default the synchronous call, for a store whose writes
   * run on the caller's thread anyway.
   */
  default CompletableFuture<WriteResult> writeAsync(Operation op) throws IOException {
    WriteResult r =
        switch (op) {
          case Operation.Put p -> p.ifAbsent() ? create(p.document()) : put(p.document());
          case Operation.Update u -> update(u.update());
          case Operation.Delete d -> delete(d.id());
        };
    return CompletableFuture.completedFuture(r);
  }

  /** The current version of a document (real-time), or empty. */
  Optional<Document> get(String id) throws IOException;

  /**
   * Applies many operations, logging them together (one fsync under {@code request}). Each item
   * succeeds or fails on its own; an empty list is rejected.
   */
  List<BulkItemResult> bulk(List<Operation> ops) throws IOException;

  /** Runs a search. */
  SearchResult search(SearchRequest request) throws IOException;

  /** Makes every acknowledged write visible to searches that start after this returns. */
  void refresh() throws IOException;

  /**
   * Persists everything acknowledged into the index's own files (Lucene commit, or snapshot) and
   * trims the write-ahead log up to it.
   */
  void flush() throws IOException;

  /**
   * Merges down to at most {@code maxSegments} segments (exactly that many when there were more); a
   * no-op for a store without segments.
   */
  void forceMerge(int maxSegments) throws IOException;

  /** A point-in-time view of counts, segments, memory and counters. */
  IndexStats stats() throws IOException;

  /**
   * Whether the store still accepts writes (its writer and its write-ahead log have not stopped
   * after a failure) and what its background tasks last failed with. Cheap and lock-free enough for
   * a health check.
   */
  default StoreHealth health() {
    return StoreHealth.OK;
  }

  /**
   * Releases files and threads; a store may persist its state first (snapshot or commit), and
   * acknowledged writes survive in the WAL either way.
   */
  @Override
  void close() throws IOException;
}
