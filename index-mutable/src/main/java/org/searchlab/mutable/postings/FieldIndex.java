package org.searchlab.mutable.postings;

import java.io.DataInput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;
import org.searchlab.core.scoring.Bm25;
import org.searchlab.mutable.memory.PagedBytes;

/**
 * The inverted index of one text field: term dictionary, posting lists, one-byte norms per local id
 * (Lucene's {@code SmallFloat} encoding, {@link Bm25#encodeNorm}) and the exact corpus statistics
 * BM25 needs: how many live documents have at least one token in the field, and the sum of their
 * lengths.
 *
 * <p>Thread safety: one writer (the index writer, or the compactor holding its lock) calls the
 * mutators; readers call {@link #postings}, {@link #norm}, {@link #docCount} and {@link
 * #sumTotalTermFreq} without locks. A document's postings and norm are written before it becomes
 * visible; statistics are volatile and exact whenever the writer is between operations.
 */
public final class FieldIndex {
  private final String name;
  private final ConcurrentHashMap<String, PostingList> terms = new ConcurrentHashMap<>();
  private final PagedBytes norms = new PagedBytes((byte) 0);
  private volatile long docCount;
  private volatile long sumTotalTermFreq;
  private long deadPostings; // writer-owned

  public FieldIndex(String name) {
    this.name = name;
  }

  public String name() {
    return name;
  }

  /** The posting list of {@code term}, or null. */
  public PostingList postings(String term) {
    return terms.get(term);
  }

  /** The norm byte of a document (0 when it has no token in this field). */
  public byte norm(int doc) {
    return norms.get(doc);
  }

  PagedBytes norms() {
    return norms;
  }

  public long docCount() {
    return docCount;
  }

  public long sumTotalTermFreq() {
    return sumTotalTermFreq;
  }

  /** Postings of deleted documents not yet compacted away. */
  public long deadPostings() {
    return deadPostings;
  }

  /** Term frequencies of a token sequence, in first-seen order. */
  static Map<String, Integer> frequencies(List<String> tokens) {
    Map<String, Integer> tf = new HashMap<>(tokens.size() * 2);
    for (String t : tokens) {
      tf.merge(t, 1, Integer::sum);
    }
    return tf;
  }

  /**
   * Writer only: indexes a document that is not yet visible.
   *
   * @return the number of posting lists touched
   */
  public int add(int doc, List<String> tokens) {
    norms.ensure(doc);
    if (tokens.isEmpty()) {
      norms.set(doc, (byte) 0);
      return 0;
    }
    byte norm = Bm25.encodeNorm(tokens.size());
    norms.set(doc, norm);
    Map<String, Integer> tf = frequencies(tokens);
    for (Map.Entry<String, Integer> e : tf.entrySet()) {
      PostingList list = terms.computeIfAbsent(e.getKey(), k -> new PostingList());
      list.add(doc, e.getValue(), norm & 0xFF);
      list.adjustDocFreq(1);
    }
    docCount = docCount + 1;
    sumTotalTermFreq = sumTotalTermFreq + tokens.size();
    return tf.size();
  }

  /**
   * Writer only: a document stopped being live; its postings stay (skipped through the visibility
   * check) until {@link #compact}, but the statistics drop it at once.
   */
  public void remove(List<String> tokens) {
    if (tokens.isEmpty()) {
      return;
    }
    Map<String, Integer> tf = frequencies(tokens);
    for (String term : tf.keySet()) {
      PostingList list = terms.get(term);
      assert list != null : "term '" + term + "' of a live document has no list in " + name;
      list.adjustDocFreq(-1);
    }
    deadPostings += tf.size();
    docCount = docCount - 1;
    sumTotalTermFreq = sumTotalTermFreq - tokens.size();
  }

  /**
   * Writer only: drops the postings of documents {@code keep} rejects from the lists of the given
   * terms, and forgets lists left empty with no live document.
   *
   * @return postings dropped
   */
  public long compact(Iterable<String> touchedTerms, IntPredicate keep) {
    long dropped = 0;
    for (String term : touchedTerms) {
      PostingList list = terms.get(term);
      if (list == null) {
        continue;
      }
      dropped += list.compact(keep, norms);
      if (list.postingCount() == 0 && list.docFreq() == 0) {
        terms.remove(term, list);
      }
    }
    deadPostings = Math.max(0, deadPostings - dropped);
    return dropped;
  }

  /** Estimated heap bytes: dictionary, posting blocks and norms. */
  public long ramBytesUsed() {
    long bytes = norms.ramBytesUsed();
    for (Map.Entry<String, PostingList> e : terms.entrySet()) {
      bytes += 48 + 40 + 2L * e.getKey().length() + e.getValue().ramBytesUsed();
    }
    return bytes;
  }

  /**
   * Writes the live postings ({@code keep}), norms of ids below {@code idLimit} and statistics.
   * Called by the writer between operations.
   */
  public void write(DataOutputStream out, int idLimit, IntPredicate keep) throws IOException {
    out.writeUTF(name);
    out.writeLong(docCount);
    out.writeLong(sumTotalTermFreq);
    norms.write(out, idLimit);
    int[] docs = new int[256];
    int[] freqs = new int[256];
    int written = 0;
    out.writeInt(terms.size());
    for (Map.Entry<String, PostingList> e : terms.entrySet()) {
      int n = 0;
      PostingCursor c = new PostingCursor(e.getValue());
      for (int d = c.nextDoc(); d != PostingCursor.NO_MORE; d = c.nextDoc()) {
        if (keep.test(d)) {
          if (n == docs.length) {
            docs = java.util.Arrays.copyOf(docs, n * 2);
            freqs = java.util.Arrays.copyOf(freqs, n * 2);
          }
          docs[n] = d;
          freqs[n++] = c.freq();
        }
      }
      byte[] term = e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8);
      out.writeInt(term.length);
      out.write(term);
      out.writeInt(n);
      for (int i = 0; i < n; i++) {
        out.writeInt(docs[i]);
        out.writeInt(freqs[i]);
      }
      written++;
    }
    assert written == terms.size() : "dictionary changed during a snapshot of " + name;
  }

  /** Reads what {@link #write} wrote into an empty field index. */
  public void read(DataInput in) throws IOException {
    String stored = in.readUTF();
    if (!stored.equals(name)) {
      throw new IOException("snapshot field '" + stored + "' where '" + name + "' belongs");
    }
    long dc = in.readLong();
    long sttf = in.readLong();
    norms.read(in);
    int termCount = in.readInt();
    for (int t = 0; t < termCount; t++) {
      byte[] term = new byte[in.readInt()];
      in.readFully(term);
      int n = in.readInt();
      if (n == 0) {
        continue;
      }
      PostingList list = new PostingList();
      for (int i = 0; i < n; i++) {
        int d = in.readInt();
        list.add(d, in.readInt(), norms.get(d) & 0xFF);
      }
      list.adjustDocFreq(n);
      terms.put(new String(term, java.nio.charset.StandardCharsets.UTF_8), list);
    }
    docCount = dc;
    sumTotalTermFreq = sttf;
  }
}
