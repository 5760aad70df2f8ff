package org.searchlab.core.wal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;

/**
 * The binary form of an {@link Operation} in the write-ahead log (and in snapshots). Version byte
 * first, so the format can evolve; strings are length-prefixed UTF-8 (no 64 KiB limit); vectors are
 * length-prefixed floats. Stateless and thread-safe.
 */
public final class OperationCodec {
  private static final byte VERSION = 1;
  private static final byte PUT = 1;
  private static final byte UPDATE = 2;
  private static final byte DELETE = 3;

  private OperationCodec() {}

  public static byte[] encode(Operation op) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      switch (op) {
        case Operation.Put put -> {
          out.writeByte(PUT);
          writeDocument(out, put.document());
        }
        case Operation.Update upd -> {
          out.writeByte(UPDATE);
          PartialUpdate u = upd.update();
          writeString(out, u.id());
          int mask =
              (u.title() != null ? 1 : 0)
                  | (u.description() != null ? 2 : 0)
                  | (u.category() != null ? 4 : 0)
                  | (u.price() != null ? 8 : 0)
                  | (u.averageRating() != null ? 16 : 0)
                  | (u.embedding() != null ? 32 : 0);
          out.writeByte(mask);
          if (u.title() != null) writeString(out, u.title());
          if (u.description() != null) writeString(out, u.description());
          if (u.category() != null) writeString(out, u.category());
          if (u.price() != null) out.writeInt(u.price());
          if (u.averageRating() != null) out.writeFloat(u.averageRating());
          if (u.embedding() != null) writeVector(out, u.embedding());
        }
        case Operation.Delete del -> {
          out.writeByte(DELETE);
          writeString(out, del.id());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return bytes.toByteArray();
  }

  public static Operation decode(byte[] data) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
    byte version = in.readByte();
    if (version != VERSION) {
      throw new IOException("unknown operation format version " + version);
    }
    byte type = in.readByte();
    return switch (type) {
      case PUT -> Operation.put(readDocument(in));
      case UPDATE -> {
        String id = readString(in);
        int mask = in.readByte();
        yield Operation.update(
            new PartialUpdate(
                id,
                (mask & 1) != 0 ? readString(in) : null,
                (mask & 2) != 0 ? readString(in) : null,
                (mask & 4) != 0 ? readString(in) : null,
                (mask & 8) != 0 ? in.readInt() : null,
                (mask & 16) != 0 ? in.readFloat() : null,
                (mask & 32) != 0 ? readVector(in) : null));
      }
      case DELETE -> Operation.delete(readString(in));
      default -> throw new IOException("unknown operation type " + type);
    };
  }

  /** Writes a whole document (also used by snapshots and document stores). */
  public static void writeDocument(DataOutputStream out, Document d) throws IOException {
    writeString(out, d.id());
    writeString(out, d.title());
    writeString(out, d.description());
    out.writeBoolean(d.category() != null);
    if (d.category() != null) writeString(out, d.category());
    out.writeInt(d.price());
    out.writeFloat(d.averageRating());
    out.writeBoolean(d.embedding() != null);
    if (d.embedding() != null) writeVector(out, d.embedding());
  }

  public static Document readDocument(DataInputStream in) throws IOException {
    String id = readString(in);
    String title = readString(in);
    String description = readString(in);
    String category = in.readBoolean() ? readString(in) : null;
    int price = in.readInt();
    float rating = in.readFloat();
    float[] embedding = in.readBoolean() ? readVector(in) : null;
    return new Document(id, title, description, category, price, rating, embedding);
  }

  /** A whole document as bytes, for stored fields. */
  public static byte[] encodeDocument(Document d) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      writeDocument(out, d);
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return bytes.toByteArray();
  }

  public static Document decodeDocument(byte[] data, int offset, int length) throws IOException {
    return readDocument(new DataInputStream(new ByteArrayInputStream(data, offset, length)));
  }

  private static void writeString(DataOutputStream out, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  private static String readString(DataInputStream in) throws IOException {
    int len = in.readInt();
    if (len < 0 || len > WriteAheadLog.MAX_RECORD_BYTES) {
      throw new IOException("string length " + len + " out of range");
    }
    byte[] b = new byte[len];
    in.readFully(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  private static void writeVector(DataOutputStream out, float[] v) throws IOException {
    out.writeInt(v.length);
    for (float f : v) {
      out.writeFloat(f);
    }
  }

  private static float[] readVector(DataInputStream in) throws IOException {
    int len = in.readInt();
    if (len < 0 || len > 65536) {
      throw new IOException("vector length " + len + " out of range");
    }
    float[] v = new float[len];
    for (int i = 0; i < len; i++) {
      v[i] = in.readFloat();
    }
    return v;
  }
}
