package org.searchlab.core;

/**
 * Where a search spent its time, in nanoseconds. Parts that did not run are 0.
 *
 * @param totalNanos the whole search inside the store
 * @param lexicalNanos the lexical part
 * @param vectorNanos the vector part
 * @param embedNanos embedding query text into a vector (set by the server, not the store)
 */
public record Timings(long totalNanos, long lexicalNanos, long vectorNanos, long embedNanos) {
  public static final Timings ZERO = new Timings(0, 0, 0, 0);

  public Timings withEmbedNanos(long nanos) {
    return new Timings(totalNanos, lexicalNanos, vectorNanos, nanos);
  }
}
