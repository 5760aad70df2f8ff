package org.searchlab.core.wal;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The binary form of a {@link org.searchlab.core.Source} tree: a tag byte per value,
 * variable-length integers for lengths and whole numbers (zig-zag), UTF-8 strings, and numeric
 * arrays as packed little-endian words, so a 384-dimension vector is one tag, a length and 1,536
 * bytes. Stateless and thread-safe; {@link Writer} and {@link Reader} are not.
 */
public final class SourceCodec {
  static final byte NULL = 0;
  static final byte FALSE = 1;
  static final byte TRUE = 2;
  static final byte LONG = 3;
  static final byte DOUBLE = 4;
  static final byte STRING = 5;
  static final byte LIST = 6;
  static final byte MAP = 7;
  static final byte FLOATS = 8;
  static final byte DOUBLES = 9;
  static final byte LONGS = 10;
  static final byte DECIMAL = 11;

  /** The deepest tree read back (a guard against a corrupt record, not a mapping limit). */
  private static final int MAX_DEPTH = 200;

  private static final VarHandle FLOAT_LE =
      MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle DOUBLE_LE =
      MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);

  private SourceCodec() {}

  /** A growable byte array with the codec's primitives. Not thread-safe. */
  public static final class Writer {
    private byte[] buf;
    private int size;

    public Writer(int capacity) {
      buf = new byte[Math.max(16, capacity)];
    }

    private void ensure(int more) {
      if (size + more > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
      }
    }

    public void writeByte(int b) {
      ensure(1);
      buf[size++] = (byte) b;
    }

    public void writeVarLong(long v) {
      ensure(10);
      while ((v & ~0x7FL) != 0) {
        buf[size++] = (byte) ((v & 0x7F) | 0x80);
        v >>>= 7;
      }
      buf[size++] = (byte) v;
    }

    public void writeZigZag(long v) {
      writeVarLong((v << 1) ^ (v >> 63));
    }

    public void writeString(String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      writeVarLong(b.length);
      ensure(b.length);
      System.arraycopy(b, 0, buf, size, b.length);
      size += b.length;
    }

    public void writeValue(Object v) {
      switch (v) {
        case null -> writeByte(NULL);
        case Boolean b -> writeByte(b ? TRUE : FALSE);
        case Long l -> {
          writeByte(LONG);
          writeZigZag(l);
        }
        case Integer i -> {
          writeByte(LONG);
          writeZigZag(i);
        }
        case Double d -> {
          writeByte(DOUBLE);
          ensure(8);
          DOUBLE_LE.set(buf, size, d);
          size += 8;
        }
        case Float f -> {
          writeByte(DOUBLE);
          ensure(8);
          DOUBLE_LE.set(buf, size, (double) f);
          size += 8;
        }
        case String s -> {
          writeByte(STRING);
          writeString(s);
        }
        case BigDecimal d -> {
          writeByte(DECIMAL);
          writeString(d.toString());
        }
        case java.math.BigInteger b -> {
          writeByte(DECIMAL);
          writeString(b.toString());
        }
        case float[] f -> {
          writeByte(FLOATS);
          writeVarLong(f.length);
          ensure(f.length * 4);
          for (float x : f) {
            FLOAT_LE.set(buf, size, x);
            size += 4;
          }
        }
        case double[] d -> {
          writeByte(DOUBLES);
          writeVarLong(d.length);
          ensure(d.length * 8);
          for (double x : d) {
            DOUBLE_LE.set(buf, size, x);
            size += 8;
          }
        }
        case long[] l -> {
          writeByte(LONGS);
          writeVarLong(l.length);
          for (long x : l) {
            writeZigZag(x);
          }
        }
        case List<?> list -> {
          writeByte(LIST);
          writeVarLong(list.size());
          for (Object o : list) {
            writeValue(o);
          }
        }
        case Map<?, ?> map -> {
          writeByte(MAP);
          writeVarLong(map.size());
          for (Map.Entry<?, ?> e : map.entrySet()) {
            writeString((String) e.getKey());
            writeValue(e.getValue());
          }
        }
        default ->
            throw new IllegalArgumentException(
                "a source tree cannot hold a " + v.getClass().getName());
      }
    }

    public byte[] toByteArray() {
      return Arrays.copyOf(buf, size);
    }
  }

  /** Reads what a {@link Writer} wrote; every length is checked against the bytes left. */
  public static final class Reader {
    private final byte[] data;
    private int at;
    private final int end;

    public Reader(byte[] data, int offset, int length) {
      this.data = data;
      this.at = offset;
      this.end = offset + length;
    }

    public boolean atEnd() {
      return at == end;
    }

    public int remaining() {
      return end - at;
    }

    public byte readByte() throws IOException {
      if (at >= end) {
        throw new IOException("record ends early");
      }
      return data[at++];
    }

    public long readVarLong() throws IOException {
      long v = 0;
      for (int shift = 0; shift < 70; shift += 7) {
        byte b = readByte();
        v |= (long) (b & 0x7F) << shift;
        if (b >= 0) {
          return v;
        }
      }
      throw new IOException("a number longer than 10 bytes");
    }

    public long readZigZag() throws IOException {
      long z = readVarLong();
      return (z >>> 1) ^ -(z & 1);
    }

    private int length(int width) throws IOException {
      long n = readVarLong();
      if (n < 0 || n * width > end - at) {
        throw new IOException("a length of " + n + " overruns the record");
      }
      return (int) n;
    }

    public String readString() throws IOException {
      int n = length(1);
      String s = new String(data, at, n, StandardCharsets.UTF_8);
      at += n;
      return s;
    }

    public Object readValue() throws IOException {
      return readValue(0);
    }

    private Object readValue(int depth) throws IOException {
      if (depth > MAX_DEPTH) {
        throw new IOException("a source tree nests deeper than " + MAX_DEPTH);
      }
      byte tag = readByte();
      switch (tag) {
        case NULL:
          return null;
        case FALSE:
          return Boolean.FALSE;
        case TRUE:
          return Boolean.TRUE;
        case LONG:
          return readZigZag();
        case DOUBLE:
          {
            if (end - at < 8) {
              throw new IOException("record ends inside a double");
            }
            double d = (double) DOUBLE_LE.get(data, at);
            at += 8;
            return d;
          }
        case STRING:
          return readString();
        case DECIMAL:
          try {
            return new BigDecimal(readString());
          } catch (NumberFormatException e) {
            throw new IOException("a malformed decimal", e);
          }
        case FLOATS:
          {
            int n = length(4);
            float[] f = new float[n];
            for (int i = 0; i < n; i++) {
              f[i] = (float) FLOAT_LE.get(data, at);
              at += 4;
            }
            return f;
          }
        case DOUBLES:
          {
            int n = length(8);
            double[] d = new double[n];
            for (int i = 0; i < n; i++) {
              d[i] = (double) DOUBLE_LE.get(data, at);
              at += 8;
            }
            return d;
          }
        case LONGS:
          {
            int n = length(1);
            long[] l = new long[n];
            for (int i = 0; i < n; i++) {
              l[i] = readZigZag();
            }
            return l;
          }
        case LIST:
          {
            int n = length(1);
            List<Object> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
              list.add(readValue(depth + 1));
            }
            return list;
          }
        case MAP:
          {
            int n = length(2);
            Map<String, Object> map = new LinkedHashMap<>(Math.max(4, n * 2));
            for (int i = 0; i < n; i++) {
              String k = readString();
              map.put(k, readValue(depth + 1));
            }
            return map;
          }
        default:
          throw new IOException("unknown value tag " + tag);
      }
    }
  }
}
