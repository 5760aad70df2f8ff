package org.searchlab.core.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.testing.TestSeeds;

/**
 * Log records round-trip, and a vector is written in the bytes the log has always used (so that
 * logs and snapshots written before the codec copied vectors in one piece still read back).
 */
class OperationCodecTest {

  @Test
  void putsUpdatesAndDeletesRoundTrip() throws IOException {
    long seed = TestSeeds.seed("OperationCodecTest.putsUpdatesAndDeletesRoundTrip");
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < 200; i++) {
      Document d = document(random, "d" + i);
      Operation put = Operation.put(d);
      Operation.Put back = (Operation.Put) OperationCodec.decode(OperationCodec.encode(put));
      assertEquals(d.id(), back.document().id(), "seed " + seed);
      assertEquals(d.title(), back.document().title(), "seed " + seed);
      assertEquals(d.description(), back.document().description(), "seed " + seed);
      assertArrayEquals(d.embedding(), back.document().embedding(), "seed " + seed);

      PartialUpdate u =
          PartialUpdate.of(d.id()).withTitle(d.title()).withEmbedding(d.embedding()).withPrice(i);
      Operation.Update ub =
          (Operation.Update) OperationCodec.decode(OperationCodec.encode(Operation.update(u)));
      assertArrayEquals(u.embedding(), ub.update().embedding(), "seed " + seed);
      assertEquals(u.title(), ub.update().title());
      assertEquals(u.price(), ub.update().price());

      Operation.Delete del =
          (Operation.Delete) OperationCodec.decode(OperationCodec.encode(Operation.delete(d.id())));
      assertEquals(d.id(), del.id());
    }
  }

  @Test
  void aVectorIsItsPackedLittleEndianFloats() throws IOException {
    long seed = TestSeeds.seed("OperationCodecTest.aVectorIsItsPackedLittleEndianFloats");
    Document d = document(new SplittableRandom(seed), "v");
    byte[] record = OperationCodec.encodeDocument(d);
    // The embedding is the source's last value: its floats end the record, 4 bytes each.
    java.nio.ByteBuffer expected =
        java.nio.ByteBuffer.allocate(d.embedding().length * Float.BYTES)
            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
    for (float f : d.embedding()) {
      expected.putFloat(f);
    }
    byte[] tail = Arrays.copyOfRange(record, record.length - expected.capacity(), record.length);
    assertArrayEquals(expected.array(), tail, "seed " + seed);
    assertEquals(d, OperationCodec.decodeDocument(record, 0, record.length), "seed " + seed);
  }

  @Test
  void aFormatOneDocumentStillDecodes() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      for (String s : new String[] {"old", "a title", "a description"}) {
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
      }
      out.writeBoolean(true);
      out.writeInt(3);
      out.write("cat".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      out.writeInt(1234);
      out.writeFloat(4.5f);
      out.writeBoolean(true);
      out.writeInt(2);
      out.writeFloat(0.6f);
      out.writeFloat(0.8f);
    }
    byte[] b = bytes.toByteArray();
    assertEquals(
        new Document(
            "old", "a title", "a description", "cat", 1234, 4.5f, new float[] {0.6f, 0.8f}),
        OperationCodec.decodeDocument(b, 0, b.length));
  }

  private static Document document(SplittableRandom random, String id) {
    float[] v = new float[1 + random.nextInt(64)];
    double norm = 0;
    for (int j = 0; j < v.length; j++) {
      v[j] = (float) random.nextGaussian();
      norm += v[j] * v[j];
    }
    for (int j = 0; j < v.length; j++) {
      v[j] /= (float) Math.sqrt(norm);
    }
    String text = "title é " + random.nextInt() + " \ud83d\ude00";
    return new Document(id, text, "description " + random.nextLong(), "cat", 7, 4.5f, v);
  }
}
