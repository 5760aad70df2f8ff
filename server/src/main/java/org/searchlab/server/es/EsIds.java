package org.searchlab.server.es;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ids for documents indexed without one, as Elasticsearch makes them: 20 URL-safe base64 characters
 * of 15 bytes, a millisecond timestamp, a sequence number and a random per-process part, so ids
 * from one server never repeat and sort roughly by time. Thread-safe.
 */
final class EsIds {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final byte[] NODE = new byte[6];
  private static final AtomicInteger SEQUENCE = new AtomicInteger();

  static {
    RANDOM.nextBytes(NODE);
    SEQUENCE.set(RANDOM.nextInt());
  }

  private EsIds() {}

  /** A new id. */
  static String next() {
    int seq = SEQUENCE.incrementAndGet() & 0xFFFFFF;
    long now = System.currentTimeMillis();
    byte[] b = new byte[15];
    for (int i = 0; i < 6; i++) {
      b[i] = (byte) (now >>> (40 - 8 * i));
    }
    b[6] = (byte) (seq >>> 16);
    b[7] = (byte) (seq >>> 8);
    b[8] = (byte) seq;
    System.arraycopy(NODE, 0, b, 9, 6);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }
}
