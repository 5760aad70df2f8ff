package org.searchlab.mutable.docstore;

import java.io.DataInput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import org.searchlab.core.Document;
import org.searchlab.core.wal.OperationCodec;
import org.searchlab.mutable.memory.PagedRefs;

/**
 * Encoded documents by local id.
 *
 * <p>Thread safety: one writer; readers never lock. An entry is an immutable byte array published
 * with release semantics, so a reader decodes either the old or the new version of a document.
 */
public final class DocumentStore {
  private final PagedRefs<byte[]> docs = new PagedRefs<>();
  private final AtomicLong bytes = new AtomicLong();

  /** The document at a local id, or null. */
  public Document get(int doc) {
    byte[] b = docs.get(doc);
    if (b == null) {
      return null;
    }
    try {
      return OperationCodec.decodeDocument(b, 0, b.length);
    } catch (IOException e) {
      throw new UncheckedIOException("stored document " + doc + " does not decode", e);
    }
  }

  /** Writer only. */
  public void put(int doc, Document d) {
    byte[] b = OperationCodec.encodeDocument(d);
    byte[] old = docs.get(doc);
    docs.set(doc, b);
    bytes.addAndGet(b.length + 16L - (old == null ? 0 : old.length + 16L));
  }

  /** Writer only. */
  public void remove(int doc) {
    byte[] old = docs.get(doc);
    if (old != null) {
      docs.set(doc, null);
      bytes.addAndGet(-(old.length + 16L));
    }
  }

  public long ramBytesUsed() {
    return docs.ramBytesUsed() + bytes.get();
  }

  /** Writes the documents of ids below {@code idLimit} that {@code keep} takes. */
  public void write(DataOutputStream out, int idLimit, IntPredicate keep) throws IOException {
    int n = 0;
    for (int d = 0; d < idLimit; d++) {
      if (keep.test(d) && docs.get(d) != null) {
        n++;
      }
    }
    out.writeInt(n);
    for (int d = 0; d < idLimit; d++) {
      byte[] b = docs.get(d);
      if (keep.test(d) && b != null) {
        out.writeInt(d);
        out.writeInt(b.length);
        out.write(b);
      }
    }
  }

  /** Reads into an empty store; calls {@code loaded} with every local id read. */
  public void read(DataInput in, java.util.function.IntConsumer loaded) throws IOException {
    int n = in.readInt();
    for (int i = 0; i < n; i++) {
      int d = in.readInt();
      byte[] b = new byte[in.readInt()];
      in.readFully(b);
      docs.set(d, b);
      bytes.addAndGet(b.length + 16L);
      loaded.accept(d);
    }
  }
}
