package org.searchlab.mutable;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.searchlab.core.Document;
import org.searchlab.core.Schema;
import org.searchlab.mutable.attributes.AttributeStore;
import org.searchlab.mutable.docstore.DocumentStore;
import org.searchlab.mutable.memory.GenerationHandler;
import org.searchlab.mutable.postings.FieldIndex;

/**
 * The structures of one mutable index, shared by its writer, compactor, snapshotter and searchers:
 * local ids, attributes, one {@link FieldIndex} per text field, the document store, the vector part
 * and the generation handler, plus the write counters.
 *
 * <p>Thread safety: each part states its own contract (one writer, lock-free readers); the counters
 * are atomic. {@link #vectors} is replaced only while opening.
 */
final class IndexParts {
  final LocalIds ids = new LocalIds();
  final AttributeStore attributes = new AttributeStore();
  final List<FieldIndex> fields =
      List.of(new FieldIndex(Schema.TITLE), new FieldIndex(Schema.DESCRIPTION));
  final DocumentStore documents = new DocumentStore();
  final GenerationHandler generations = new GenerationHandler();
  VectorPart vectors;

  final AtomicLong inPlaceUpdates = new AtomicLong();
  final AtomicLong postingListsTouched = new AtomicLong();
  final AtomicLong reindexedUpdates = new AtomicLong();
  final AtomicLong compactions = new AtomicLong();
  final AtomicLong postingsCompacted = new AtomicLong();
  final AtomicLong idsFreed = new AtomicLong();
  final AtomicLong snapshots = new AtomicLong();

  /** Puts (and updates) whose vector was bitwise unchanged: no graph search, no removal. */
  final AtomicLong unchangedVectorPuts = new AtomicLong();

  /** Puts (and updates) whose text was unchanged: applied in place, no postings touched. */
  final AtomicLong unchangedTextPuts = new AtomicLong();

  /**
   * Where the writer thread's time goes, in nanoseconds summed over its batches: checking which ids
   * exist (the outcomes), writing and syncing the log, applying the operations (postings,
   * attributes, documents; text the caller did not analyse) and linking the batch's new graph
   * nodes. What they leave of the wall time the writer waited for work. The callers' threads encode
   * the log records and analyse new documents' text before they queue them.
   */
  final AtomicLong writerBatches = new AtomicLong();

  final AtomicLong writerCheckNanos = new AtomicLong();
  final AtomicLong writerLogWriteNanos = new AtomicLong();
  final AtomicLong writerLogSyncNanos = new AtomicLong();
  final AtomicLong writerApplyNanos = new AtomicLong();
  final AtomicLong writerGraphNanos = new AtomicLong();

  IndexParts(VectorPart vectors) {
    this.vectors = vectors;
  }

  /**
   * The document at a local id, whole: the document store keeps its id and text; its attributes and
   * vector are read from the attribute columns and the vector attribute, where they live once and
   * are assigned in place (as Vespa fills a summary from attributes). Null when the id holds no
   * document. Readers call it inside a generation guard, so the vector of a local id they looked up
   * cannot be dropped under them.
   */
  Document document(int local) {
    Document d = documents.get(local);
    if (d == null) {
      return null;
    }
    // The stored source, with the attributes and the vector as the columns hold them now.
    java.util.Map<String, Object> source = new java.util.LinkedHashMap<>(d.source());
    String category = attributes.categoryName(attributes.category(local));
    if (category == null) {
      source.remove(Schema.CATEGORY);
    } else {
      source.put(Schema.CATEGORY, category);
    }
    source.put(Schema.PRICE, (long) attributes.price(local));
    source.put(Schema.AVERAGE_RATING, (double) attributes.rating(local));
    float[] v = vectors.vectors().get(local);
    if (v != null) {
      source.put(Schema.EMBEDDING, v);
    }
    return d.withSource(source);
  }

  /** {@code d} without its vector, as the document store keeps it. */
  static Document withoutVector(Document d) {
    if (!d.source().containsKey(Schema.EMBEDDING)) {
      return d;
    }
    java.util.Map<String, Object> source = new java.util.LinkedHashMap<>(d.source());
    source.remove(Schema.EMBEDDING);
    return d.withSource(source);
  }

  long postingBytes() {
    long b = 0;
    for (FieldIndex f : fields) {
      b += f.ramBytesUsed();
    }
    return b;
  }
}
