package org.searchlab.segmented;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.search.ReferenceManager;
import org.searchlab.core.Document;

/**
 * The latest version of every document written since the last refresh, so that {@code get} is
 * real-time although searches see only refreshed segments: Elasticsearch's {@code LiveVersionMap}
 * (there it keeps versions and translog locations; here it keeps the document itself).
 *
 * <p>Two maps, as in Elasticsearch: {@code current} takes new writes; a refresh first moves {@code
 * current} to {@code old} ({@link #beforeRefresh}) and, once the new reader is published, drops
 * {@code old} ({@link #afterRefresh}). Correctness, step by step:
 *
 * <ol>
 *   <li>a writer applies its operation to the {@code IndexWriter} <em>before</em> it puts the entry
 *       here, so any reader opened after the entry's map was retired contains the operation;
 *   <li>an entry sits in {@code current} or {@code old} until a reader that contains it is the
 *       searcher manager's current one, because {@code afterRefresh} runs after the swap;
 *   <li>{@link #get} reads one immutable {@link Maps} snapshot, then the caller falls back to a
 *       reader acquired afterwards, which is at least as new as that snapshot's retirement.
 * </ol>
 *
 * <p>It listens to the searcher manager's refreshes itself, as Elasticsearch's does.
 *
 * <p>Thread-safe. Writes to one id are serialised by the caller's per-id lock, so the value for an
 * id is always its newest write.
 */
final class LiveVersionMap implements ReferenceManager.RefreshListener {
  /** A document, or a tombstone ({@code doc == null}) for a delete. */
  record Entry(Document doc) {
    static final Entry TOMBSTONE = new Entry(null);
  }

  private record Maps(ConcurrentHashMap<String, Entry> current, Map<String, Entry> old) {}

  private volatile Maps maps = new Maps(new ConcurrentHashMap<>(), Map.of());
  private final AtomicLong currentBytes = new AtomicLong();
  private volatile long oldBytes;

  /** The newest unrefreshed version of {@code id}, or null when the index reader must answer. */
  Entry get(String id) {
    Maps m = maps;
    Entry e = m.current.get(id);
    return e != null ? e : m.old.get(id);
  }

  /** Records the newest version of {@code id}; call after applying it to the index writer. */
  void put(String id, Document docOrNullForDelete) {
    Entry e = docOrNullForDelete == null ? Entry.TOMBSTONE : new Entry(docOrNullForDelete);
    maps.current.put(id, e);
    currentBytes.addAndGet(estimateBytes(id, docOrNullForDelete));
  }

  /** Called by the searcher manager before it opens a new reader. */
  @Override
  public void beforeRefresh() {
    Maps m = maps;
    oldBytes = currentBytes.getAndSet(0);
    maps = new Maps(new ConcurrentHashMap<>(), m.current);
  }

  /** Called after the new reader is published (or none was needed). */
  @Override
  public void afterRefresh(boolean didRefresh) {
    maps = new Maps(maps.current, Map.of());
    oldBytes = 0;
  }

  /** An estimate of the heap the map holds (documents shared with callers are counted too). */
  long ramBytesUsed() {
    return currentBytes.get() + oldBytes;
  }

  /** Entries in both maps. */
  int size() {
    Maps m = maps;
    return m.current.size() + m.old.size();
  }

  private static long estimateBytes(String id, Document d) {
    long bytes = 64 + 2L * id.length();
    if (d != null) {
      bytes += 96 + 2L * (d.title().length() + d.description().length());
      bytes += d.category() == null ? 0 : 40 + 2L * d.category().length();
      bytes += d.embedding() == null ? 0 : 16 + 4L * d.embedding().length;
    }
    return bytes;
  }
}
