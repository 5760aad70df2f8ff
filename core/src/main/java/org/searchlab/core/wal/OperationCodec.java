package org.searchlab.core.wal;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;

/**
 * The binary form of an {@link Operation} in the write-ahead log (and of documents in snapshots and
 * stored fields). Version byte first, so the format can evolve. Format 2 (this one) carries a
 * document's whole source as a {@link SourceCodec} tree, so any mapping's documents fit; a partial
 * update is its {@code doc} tree, so an attribute assignment stays small (a price assign of a
 * 10-character id is about 25 bytes). Format 1, the benchmark's fixed product record, still
 * decodes, so logs and stored documents written before it replay. Stateless and thread-safe.
 */
public final class OperationCodec {
  private static final byte VERSION_1 = 1;
  private static final byte VERSION = 2;
  private static final byte PUT = 1;
  private static final byte UPDATE = 2;
  private static final byte DELETE = 3;
  private static final byte ASSIGN = 4;
  private static final int CATEGORY_BIT = 4;
  private static final int PRICE_BIT = 8;
  private static final int RATING_BIT = 16;

  /**
   * The first byte of a format-2 stored document: a format-1 document begins with its id's 4-byte
   * big-endian length, whose first byte is 0 for any id a store accepts.
   */
  private static final byte DOCUMENT_V2 = 0x7F;

  private OperationCodec() {}

  public static byte[] encode(Operation op) {
    SourceCodec.Writer w = new SourceCodec.Writer(estimate(op));
    w.writeByte(VERSION);
    switch (op) {
      case Operation.Put put -> {
        w.writeByte(PUT);
        w.writeString(put.document().id());
        w.writeValue(put.document().source());
      }
      case Operation.Update upd -> {
        w.writeByte(UPDATE);
        w.writeString(upd.update().id());
        w.writeValue(upd.update().doc());
      }
      case Operation.Delete del -> {
        w.writeByte(DELETE);
        w.writeString(del.id());
      }
    }
    return w.toByteArray();
  }

  /** A record's size give or take: one buffer, rarely regrown. */
  private static int estimate(Operation op) {
    if (!(op instanceof Operation.Put put)) {
      return 64;
    }
    int size = 64;
    for (Object v : put.document().source().values()) {
      size +=
          switch (v) {
            case String s -> s.length() + s.length() / 8 + 24;
            case float[] f -> f.length * 4 + 24;
            case double[] d -> d.length * 8 + 24;
            case null, default -> 32;
          };
    }
    return size;
  }

  public static Operation decode(byte[] data) throws IOException {
    if (data.length < 2) {
      throw new IOException("operation record of " + data.length + " bytes");
    }
    if (data[0] == VERSION) {
      return decodeV2(data);
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
    byte version = in.readByte();
    if (version != VERSION_1) {
      throw new IOException("unknown operation format version " + version);
    }
    byte type = in.readByte();
    return switch (type) {
      case PUT -> Operation.put(readDocumentV1(in));
      case UPDATE -> {
        String id = readString(in);
        int mask = in.readByte();
        PartialUpdate u = PartialUpdate.of(id);
        if ((mask & 1) != 0) u = u.withTitle(readString(in));
        if ((mask & 2) != 0) u = u.withDescription(readString(in));
        if ((mask & 4) != 0) u = u.withCategory(readString(in));
        if ((mask & 8) != 0) u = u.withPrice(in.readInt());
        if ((mask & 16) != 0) u = u.withAverageRating(in.readFloat());
        if ((mask & 32) != 0) u = u.withEmbedding(readVector(in));
        yield Operation.update(u);
      }
      case DELETE -> Operation.delete(readString(in));
      case ASSIGN -> decodeAssign(data);
      default -> throw new IOException("unknown operation type " + type);
    };
  }

  private static Operation decodeV2(byte[] data) throws IOException {
    SourceCodec.Reader r = new SourceCodec.Reader(data, 2, data.length - 2);
    Operation op =
        switch (data[1]) {
          case PUT -> Operation.put(new Document(r.readString(), map(r.readValue())));
          case UPDATE -> Operation.update(new PartialUpdate(r.readString(), map(r.readValue())));
          case DELETE -> Operation.delete(r.readString());
          default -> throw new IOException("unknown operation type " + data[1]);
        };
    if (!r.atEnd()) {
      throw new IOException("operation record has " + r.remaining() + " bytes after its end");
    }
    return op;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object v) throws IOException {
    if (!(v instanceof Map<?, ?> m)) {
      throw new IOException("a document's source is not an object");
    }
    return (Map<String, Object>) m;
  }

  /** The {@code ASSIGN} record of a format-1 attribute-only update (kept for its tests). */
  static byte[] encodeAssign(PartialUpdate u) {
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
    out[0] = VERSION_1;
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
    PartialUpdate u = PartialUpdate.of(id);
    if (category != null) {
      u = u.withCategory(category);
    }
    if (price != null) {
      u = u.withPrice(price);
    }
    if (rating != null) {
      u = u.withAverageRating(rating);
    }
    return Operation.update(u);
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

  /** Writes a whole document, length-prefixed (snapshots). */
  public static void writeDocument(DataOutputStream out, Document d) throws IOException {
    byte[] b = encodeDocument(d);
    out.writeInt(b.length);
    out.write(b);
  }

  /** Reads what {@link #writeDocument} wrote. */
  public static Document readDocument(DataInputStream in) throws IOException {
    int len = in.readInt();
    if (len < 0 || len > WriteAheadLog.MAX_RECORD_BYTES) {
      throw new IOException("document length " + len + " out of range");
    }
    byte[] b = new byte[len];
    in.readFully(b);
    return decodeDocument(b, 0, len);
  }

  /** A format-1 product document. */
  private static Document readDocumentV1(DataInputStream in) throws IOException {
    String id = readString(in);
    String title = readString(in);
    String description = readString(in);
    String category = in.readBoolean() ? readString(in) : null;
    int price = in.readInt();
    float rating = in.readFloat();
    float[] embedding = in.readBoolean() ? readVector(in) : null;
    return new Document(id, title, description, category, price, rating, embedding);
  }

  /** A whole document as bytes, for stored fields and document stores. */
  public static byte[] encodeDocument(Document d) {
    SourceCodec.Writer w = new SourceCodec.Writer(estimate(Operation.put(d)));
    w.writeByte(DOCUMENT_V2);
    w.writeString(d.id());
    w.writeValue(d.source());
    return w.toByteArray();
  }

  /** Reads a document {@link #encodeDocument} wrote, or a format-1 one. */
  public static Document decodeDocument(byte[] data, int offset, int length) throws IOException {
    if (length > 0 && data[offset] == DOCUMENT_V2) {
      SourceCodec.Reader r = new SourceCodec.Reader(data, offset + 1, length - 1);
      Document d = new Document(r.readString(), map(r.readValue()));
      if (!r.atEnd()) {
        throw new IOException("stored document has " + r.remaining() + " bytes after its end");
      }
      return d;
    }
    return readDocumentV1(new DataInputStream(new ByteArrayInputStream(data, offset, length)));
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
