package org.searchlab.mutable.snapshot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.testing.TestSeeds;

/**
 * {@link ChannelInput} reads back what a {@link DataOutputStream} wrote, value for value, with
 * values and bulk float runs straddling its refills, and its checksum is the CRC-32C of the bytes
 * consumed.
 */
class ChannelInputTest {
  private static final int INT = 0, LONG = 1, FLOAT = 2, BYTE = 3, UTF = 4, FLOATS = 5, BYTES = 6;

  @Test
  void readsWhatDataOutputStreamWroteAcrossRefills(@TempDir Path dir) throws IOException {
    long seed = TestSeeds.seed("ChannelInputTest.acrossRefills");
    SplittableRandom random = new SplittableRandom(seed);
    // The script: a kind and a value per step, replayed against the reader.
    int steps = 5_000;
    int[] kinds = new int[steps];
    long[] values = new long[steps];
    float[][] runs = new float[steps][];
    byte[][] blobs = new byte[steps][];
    String[] texts = new String[steps];
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      for (int i = 0; i < steps; i++) {
        kinds[i] = random.nextInt(7);
        switch (kinds[i]) {
          case INT -> out.writeInt((int) (values[i] = random.nextInt()));
          case LONG -> out.writeLong(values[i] = random.nextLong());
          case FLOAT -> {
            // Not any bit pattern: writeFloat folds every NaN into the canonical one.
            float f = (float) random.nextGaussian();
            values[i] = Float.floatToRawIntBits(f);
            out.writeFloat(f);
          }
          case BYTE -> out.writeByte((int) (values[i] = (byte) random.nextInt()));
          case UTF -> out.writeUTF(texts[i] = "term-" + random.nextInt(1000) + "-é€");
          case FLOATS -> {
            runs[i] = new float[random.nextInt(200)];
            for (int j = 0; j < runs[i].length; j++) {
              runs[i][j] = (float) random.nextGaussian();
              out.writeFloat(runs[i][j]);
            }
          }
          default -> {
            blobs[i] = new byte[random.nextInt(300)];
            random.nextBytes(blobs[i]);
            out.write(blobs[i]);
          }
        }
      }
    }
    byte[] all = bytes.toByteArray();
    Path file = dir.resolve("values.bin");
    Files.write(file, all);
    int buffer = 64 + random.nextInt(1000); // small, so that values straddle many refills
    try (ChannelInput in = new ChannelInput(file, buffer)) {
      for (int i = 0; i < steps; i++) {
        String at = "step " + i + " (buffer " + buffer + ")";
        switch (kinds[i]) {
          case INT -> assertEquals((int) values[i], in.readInt(), at);
          case LONG -> assertEquals(values[i], in.readLong(), at);
          case FLOAT -> assertEquals((int) values[i], Float.floatToRawIntBits(in.readFloat()), at);
          case BYTE -> assertEquals((byte) values[i], in.readByte(), at);
          case UTF -> assertEquals(texts[i], in.readUTF(), at);
          case FLOATS -> {
            float[] got = new float[runs[i].length + 2];
            in.readFloats(got, 1, runs[i].length);
            float[] expected = new float[got.length];
            System.arraycopy(runs[i], 0, expected, 1, runs[i].length);
            assertArrayEquals(expected, got, at);
          }
          default -> {
            byte[] got = new byte[blobs[i].length];
            in.readFully(got);
            assertArrayEquals(blobs[i], got, at);
          }
        }
        if (random.nextInt(50) == 0) {
          CRC32C crc = new CRC32C();
          crc.update(all, 0, (int) in.position());
          assertEquals(crc.getValue(), in.checksum(), "checksum after " + at);
        }
      }
      assertEquals(all.length, in.position());
      CRC32C crc = new CRC32C();
      crc.update(all);
      assertEquals(crc.getValue(), in.checksum());
      assertEquals(0, in.skipBytes(3), "nothing left to skip");
      assertThrows(EOFException.class, in::readByte);
    }
  }

  @Test
  void aValueCutOffByTheEndOfTheFileIsAnEofNamingTheFile(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("short.bin");
    Files.write(file, new byte[] {1, 2, 3, 4, 5, 6});
    try (ChannelInput in = new ChannelInput(file, 64)) {
      assertEquals(0x01020304, in.readInt());
      EOFException e = assertThrows(EOFException.class, in::readInt);
      assertTrue(e.getMessage().contains("short.bin"), e.getMessage());
      assertEquals(2, in.skipBytes(5), "the two bytes the failed read left");
    }
  }
}
