package org.searchlab.core.wal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;

/**
 * The binary form of an {@link Operation} in the write-ahead log (and in snapshots). Version byte
 * first, so the format can evolve; strings are length-prefixed UTF-8 (no 64 KiB limit); vectors are
 * length-prefixed floats. Stateless and thread-safe.
 *
 * <p>An update that assigns only attributes (category, price, rating) is written as a compact
 * {@code ASSIGN} record, as Vespa's transaction log holds an {@code assign} of an attribute: the
 * type, a field mask, the id and the new values, lengths and the price as variable-length integers,
 * encoded straight into an exact-size array (a price assign of a 10-character id is 17 bytes).
 * Older logs, whose attribute updates are {@code UPDATE} records, still replay.
 */
public final class OperationCodec {
  private static final byte VERSION = 1;
  private static final byte PUT = 1;
  private static final byte UPDATE = 2;
  private static final byte DELETE = 3;
  private static final byte ASSIGN = 4;
  private static final int CATEGORY_BIT = 4;
  private static final int PRICE_BIT = 8;
  private static final int RATING_BIT = 16;

  private OperationCodec() {}

  public static byte[] encode(Operation op) {
    if (op instanceof Operation.Update u && u.update().onlyAttributes()) {
      return encodeAssign(u.update());
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(estimate(op));
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

  /** A record's size give or take its strings' multi-byte characters: one buffer, no regrowth. */
  private static int estimate(Operation op) {
    Document d =
        switch (op) {
          case Operation.Put put -> put.document();
          default -> null;
        };
    if (d == null) {
      return 256;
    }
    int chars = d.id().length() + d.title().length() + d.description().length();
    int vector = d.embedding() == null ? 0 : d.embedding().length * Float.BYTES;
    return 64 + chars + chars / 8 + vector;
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
      case ASSIGN -> decodeAssign(data);
      default -> throw new IOException("unknown operation type " + type);
    };
  }

  /** The {@code ASSIGN} record of an attribute-only update, in one exact-size array. */
  private static byte[] encodeAssign(PartialUpdate u) {
    byte[] id = u.id().getBytes(StandardCharsets.UTF_8);
    byte[] category = u.category() == null ? null : u.category().getBytes(StandardCharsets.UTF_8);
    int mask =
        (category != null ? CATEGORY_BIT : 0)
            | (u.price() != null ? PRICE_BIT : 0)
            | (u.averageRating() != null ? RATING_BIT : 0);
    int size = 3 + varIntSize(id.length) + id.length;
    if (category != null) {
      size += varIntSize(category.length) + category.length;
    }
    if (u.price() != null) {
      size += varIntSize(zigZag(u.price()));
    }
    if (u.averageRating() != null) {
      size += Float.BYTES;
    }
    byte[] out = new byte[size];
    out[0] = VERSION;
    out[1] = ASSIGN;
    out[2] = (byte) mask;
    int at = putBytes(out, 3, id);
    if (category != null) {
      at = putBytes(out, at, category);
    }
    if (u.price() != null) {
      at = putVarInt(out, at, zigZag(u.price()));
    }
    if (u.averageRating() != null) {
      int bits = Float.floatToRawIntBits(u.averageRating());
      for (int shift = 24; shift >= 0; shift -= 8) {
        out[at++] = (byte) (bits >>> shift);
      }
    }
    assert at == size : "ASSIGN record of " + at + " bytes, sized " + size;
    return out;
  }

  private static Operation decodeAssign(byte[] data) throws IOException {
    int[] at = {3};
    if (data.length < 3) {
      throw new IOException("ASSIGN record of " + data.length + " bytes has no field mask");
    }
    int mask = data[2];
    String id = getString(data, at);
    String category = (mask & CATEGORY_BIT) != 0 ? getString(data, at) : null;
    Integer price = null;
    if ((mask & PRICE_BIT) != 0) {
      int z = getVarInt(data, at);
      price = (z >>> 1) ^ -(z & 1);
    }
    Float rating = null;
    if ((mask & RATING_BIT) != 0) {
      if (at[0] + Float.BYTES > data.length) {
        throw new IOException("ASSIGN record ends inside its rating");
      }
      int bits = 0;
      for (int i = 0; i < Float.BYTES; i++) {
        bits = bits << 8 | (data[at[0]++] & 0xFF);
      }
      rating = Float.intBitsToFloat(bits);
    }
    if (at[0] != data.length) {
      throw new IOException(
          "ASSIGN record has " + (data.length - at[0]) + " bytes after its last field");
    }
    return Operation.update(new PartialUpdate(id, null, null, category, price, rating, null));
  }

  private static int zigZag(int v) {
    return (v << 1) ^ (v >> 31);
  }

  private static int varIntSize(int v) {
    int n = 1;
    while ((v & ~0x7F) != 0) {
      v >>>= 7;
      n++;
    }
    return n;
  }

  private static int putVarInt(byte[] out, int at, int v) {
    while ((v & ~0x7F) != 0) {
      out[at++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out[at++] = (byte) v;
    return at;
  }

  private static int putBytes(byte[] out, int at, byte[] b) {
    at = putVarInt(out, at, b.length);
    System.arraycopy(b, 0, out, at, b.length);
    return at + b.length;
  }

  private static int getVarInt(byte[] data, int[] at) throws IOException {
    int v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (at[0] >= data.length) {
        throw new IOException("ASSIGN record ends inside a number");
      }
      byte b = data[at[0]++];
      v |= (b & 0x7F) << shift;
      if (b >= 0) {
        return v;
      }
    }
    throw new IOException("ASSIGN record has a number longer than 5 bytes");
  }

  private static String getString(byte[] data, int[] at) throws IOException {
    int len = getVarInt(data, at);
    if (len < 0 || len > data.length - at[0]) {
      throw new IOException("ASSIGN string of " + len + " bytes overruns the record");
    }
    String s = new String(data, at[0], len, StandardCharsets.UTF_8);
    at[0] += len;
    return s;
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
    // One copy of the whole vector instead of a call per float: the same big-endian bytes as
    // writeFloat (the schema refuses NaN, the one value whose bits writeFloat would canonicalise).
    byte[] bytes = new byte[v.length * Float.BYTES];
    ByteBuffer.wrap(bytes).asFloatBuffer().put(v);
    out.write(bytes);
  }

  private static float[] readVector(DataInputStream in) throws IOException {
    int len = in.readInt();
    if (len < 0 || len > 65536) {
      throw new IOException("vector length " + len + " out of range");
    }
    byte[] bytes = new byte[len * Float.BYTES];
    in.readFully(bytes);
    float[] v = new float[len];
    ByteBuffer.wrap(bytes).asFloatBuffer().get(v);
    return v;
  }
}
