package org.searchlab.mutable.postings;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A run of postings in ascending local id order, with the largest term frequency and the smallest
 * norm among them (the inputs of its BM25 upper bound).
 *
 * <p>Thread safety: only the last block of a list is appended to in place, by the single writer,
 * which writes the posting and the bounds first and then publishes the new size with a release
 * store; a reader acquires the size first, so every posting below the size it read is complete and
 * covered by the bounds it reads afterwards. Any other change builds a new block (copy-on-write).
 */
final class PostingBlock {
  /** Postings per block the writer aims for: Lucene's block size, and small enough to copy. */
  static final int TARGET = 128;

  /** A block that grows past this is split in two. */
  static final int MAX = 2 * TARGET;

  private static final VarHandle SIZE;

  static {
    try {
      SIZE = MethodHandles.lookup().findVarHandle(PostingBlock.class, "size", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final int[] docs;
  final int[] freqs;

  @SuppressWarnings("unused") // accessed through SIZE
  private int size;

  int maxFreq;
  int minNorm = 255; // unsigned norm byte

  PostingBlock(int capacity) {
    docs = new int[capacity];
    freqs = new int[capacity];
  }

  /** The published size; read it before the postings and the bounds. */
  int size() {
    return (int) SIZE.getAcquire(this);
  }

  /** Writer only: the size without acquire semantics (the writer wrote it). */
  int writerSize() {
    return (int) SIZE.get(this);
  }

  /** Writer only: appends in place and publishes. */
  void append(int doc, int freq, int normUnsigned) {
    int n = writerSize();
    docs[n] = doc;
    freqs[n] = freq;
    if (freq > maxFreq) {
      maxFreq = freq;
    }
    if (normUnsigned < minNorm) {
      minNorm = normUnsigned;
    }
    SIZE.setRelease(this, n + 1);
  }

  /** Before the block is published only: sets the size without a fence. */
  void initSize(int n) {
    SIZE.set(this, n);
  }

  int capacity() {
    return docs.length;
  }

  long ramBytesUsed() {
    return 32 + 2 * (16 + 4L * docs.length);
  }
}
