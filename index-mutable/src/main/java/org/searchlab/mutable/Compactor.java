package org.searchlab.mutable;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.searchlab.core.Document;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.mutable.postings.FieldIndex;

/**
 * Removes the postings of retired documents in the background and then frees their local ids, as
 * Vespa's memory index drops removed documents: readers are never blocked, the writer only for one
 * posting list at a time.
 *
 * <p>One pass, step by step:
 *
 * <ol>
 *   <li>under the writer's lock, take the retired ids: already invisible to new searches, but still
 *       in the graph, the postings, the attributes and the document store;
 *   <li>wait until every search that started before step 1 finished ({@link
 *       org.searchlab.mutable.memory.GenerationHandler#awaitOlderReaders}): one that began while a
 *       version was live may be walking its graph node or reading its fields, and must see it
 *       whole;
 *   <li>under the lock, a chunk at a time, remove their graph nodes (re-linking their neighbours);
 *   <li>without the lock, re-analyse their stored text to find the posting lists they are in;
 *   <li>for each such list, under the lock, rebuild it without them and publish it in one store
 *       (readers on the old directory continue undisturbed);
 *   <li>wait again until every search that started before steps 3 and 5 finished: none can still
 *       hold the ids in a posting, a graph neighbour list or its visibility snapshot;
 *   <li>under the lock, clear their attributes and stored documents and put the ids on the free
 *       list.
 * </ol>
 *
 * <p>Thread safety: one compactor thread per index; it shares structures with the writer only under
 * {@link IndexWriter#lock}.
 */
final class Compactor implements AutoCloseable {
  private static final int LISTS_PER_LOCK = 64;

  private final IndexParts parts;
  private final IndexWriter writer;
  private final MutableConfig config;
  private final org.searchlab.core.BackgroundErrors errors;
  private final Thread thread;
  private final Object signal = new Object();
  private volatile boolean running = true;
  private volatile boolean requested;

  Compactor(
      IndexParts parts,
      IndexWriter writer,
      MutableConfig config,
      org.searchlab.core.BackgroundErrors errors) {
    this.parts = parts;
    this.errors = errors;
    this.writer = writer;
    this.config = config;
    this.thread =
        new Thread(
            org.searchlab.core.FeedNiceness.niced(config.feedNiceness(), this::loop),
            "mutable-index-compactor");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Called by the writer after each batch (lock not held): wakes the compactor when due. */
  void maybeSignal(int retired) {
    long dead = 0;
    long all = 0;
    for (FieldIndex f : parts.fields) {
      dead += f.deadPostings();
      all += f.sumTotalTermFreq();
    }
    if (retired >= config.compactionMinDocs()
        || (retired > 0 && dead > config.compactionRatio() * Math.max(1, all))) {
      request();
    }
  }

  /** Asks for a pass as soon as possible. */
  void request() {
    requested = true;
    synchronized (signal) {
      signal.notifyAll();
    }
  }

  private void loop() {
    while (running) {
      synchronized (signal) {
        if (!requested && running) {
          try {
            signal.wait(1000);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
      if (requested && running) {
        requested = false;
        try {
          pass();
        } catch (RuntimeException | Error e) {
          // A failed pass leaves the ids it took retired and unfreed (their space is lost until a
          // restart); the loop lives on, and the failure is counted and logged, not swallowed.
          errors.record("compaction pass", e);
        }
      }
    }
  }

  /** Runs a pass on the calling thread (for {@code forceMerge}); returns how many ids it freed. */
  int compactNow() {
    return pass();
  }

  /** One compaction pass; returns how many ids it freed. */
  private synchronized int pass() {
    int[] batch;
    writer.lock.lock();
    try {
      batch = writer.takeRetired();
    } finally {
      writer.lock.unlock();
    }
    if (batch.length == 0) {
      return 0;
    }
    parts.generations.awaitOlderReaders();
    for (int from = 0; from < batch.length; from += LISTS_PER_LOCK) {
      writer.lock.lock();
      try {
        for (int i = from; i < Math.min(batch.length, from + LISTS_PER_LOCK); i++) {
          parts.vectors.remove(batch[i]);
        }
      } finally {
        writer.lock.unlock();
      }
    }
    BitSet gone = new BitSet();
    List<Set<String>> terms = new ArrayList<>();
    for (int f = 0; f < parts.fields.size(); f++) {
      terms.add(new HashSet<>());
    }
    for (int local : batch) {
      gone.set(local);
      Document d = parts.documents.get(local);
      if (d != null) {
        terms.get(0).addAll(TextAnalysis.tokens(d.title()));
        terms.get(1).addAll(TextAnalysis.tokens(d.description()));
      }
    }
    long dropped = 0;
    for (int f = 0; f < parts.fields.size(); f++) {
      FieldIndex field = parts.fields.get(f);
      List<String> all = new ArrayList<>(terms.get(f));
      for (int from = 0; from < all.size(); from += LISTS_PER_LOCK) {
        List<String> chunk = all.subList(from, Math.min(all.size(), from + LISTS_PER_LOCK));
        writer.lock.lock();
        try {
          dropped += field.compact(chunk, d -> !gone.get(d));
        } finally {
          writer.lock.unlock();
        }
      }
    }
    parts.generations.awaitOlderReaders();
    writer.lock.lock();
    try {
      for (int local : batch) {
        parts.attributes.clear(local);
        parts.documents.remove(local);
        parts.ids.free(local);
      }
    } finally {
      writer.lock.unlock();
    }
    parts.compactions.incrementAndGet();
    parts.postingsCompacted.addAndGet(dropped);
    parts.idsFreed.addAndGet(batch.length);
    return batch.length;
  }

  @Override
  public void close() {
    running = false;
    request();
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
