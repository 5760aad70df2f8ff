package org.searchlab.mutable.snapshot;

import java.io.Closeable;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * A {@link DataInput} over a file read in large chunks through a {@link FileChannel}, keeping a
 * CRC-32C of the bytes consumed so far: how the mutable index reads its snapshot files back.
 *
 * <p>Why not a {@link DataInputStream} over buffered (and checked) streams: there every 4-byte
 * value is a locked buffered read and, under a {@link java.util.zip.CheckedInputStream}, its own
 * CRC call; a 1M-document graph file is about 400 million such values. Here a value is a bounds
 * check and an absolute read from a direct buffer; the checksum is updated once per refill, over
 * all the bytes consumed since the last one; and a vector is copied in one bulk read through a
 * float view.
 *
 * <p>Big-endian, like {@link java.io.DataOutputStream}, so it reads what that wrote. {@link
 * #readLine} is not supported (nothing writes lines).
 *
 * <p>Not thread-safe: one reader per file, on one thread.
 */
public final class ChannelInput implements DataInput, Closeable {
  /** The default buffer: large enough that refills (one read and one CRC call each) are rare. */
  public static final int DEFAULT_BUFFER_BYTES = 8 << 20;

  private final Path file;
  private final FileChannel channel;
  // Direct, so the channel reads into it without a copy. Between position and limit: the bytes
  // read from the file but not consumed yet. Bytes before crcMark are in crc already.
  private final ByteBuffer buf;
  private final CRC32C crc = new CRC32C();
  private int crcMark;
  private long bufferStart; // file offset of buf's index 0

  /**
   * Opens {@code file} for reading.
   *
   * @param bufferBytes the chunk size, at least 64 bytes; larger means fewer reads and CRC calls
   */
  public ChannelInput(Path file, int bufferBytes) throws IOException {
    if (bufferBytes < 64) {
      throw new IllegalArgumentException("buffer of " + bufferBytes + " bytes is below 64");
    }
    this.file = file;
    this.channel = FileChannel.open(file, StandardOpenOption.READ);
    this.buf = ByteBuffer.allocateDirect(bufferBytes).limit(0);
  }

  /** Opens {@code file} with {@link #DEFAULT_BUFFER_BYTES}. */
  public ChannelInput(Path file) throws IOException {
    this(file, DEFAULT_BUFFER_BYTES);
  }

  /** The file offset of the next byte to consume. */
  public long position() {
    return bufferStart + buf.position();
  }

  /** The CRC-32C of every byte consumed so far (from the start of the file). */
  public long checksum() {
    foldIntoChecksum();
    return crc.getValue();
  }

  /** Makes at least {@code n} (at most the buffer's capacity) unconsumed bytes available. */
  private void require(int n) throws IOException {
    if (buf.remaining() < n) {
      refill(n);
    }
  }

  private void refill(int n) throws IOException {
    assert n <= buf.capacity() : n + " bytes requested from a buffer of " + buf.capacity();
    foldIntoChecksum();
    bufferStart += buf.position();
    buf.compact(); // the unconsumed tail moves to the front; the buffer is ready for the channel
    try {
      while (buf.position() < n) {
        if (channel.read(buf) < 0) {
          throw new EOFException(
              file
                  + " ends at byte "
                  + (bufferStart + buf.position())
                  + ", "
                  + (n - buf.position())
                  + " bytes short of the value being read");
        }
      }
    } finally {
      buf.flip();
      crcMark = 0;
    }
  }

  private void foldIntoChecksum() {
    int pos = buf.position();
    if (pos > crcMark) {
      crc.update(buf.slice(crcMark, pos - crcMark));
      crcMark = pos;
    }
  }

  /** Reads {@code len} floats into {@code dst} from {@code off}, in bulk. */
  public void readFloats(float[] dst, int off, int len) throws IOException {
    while (len > 0) {
      require(Math.min(4 * len, buf.capacity() & ~3));
      int k = Math.min(len, buf.remaining() >>> 2);
      buf.asFloatBuffer().get(dst, off, k);
      buf.position(buf.position() + 4 * k);
      off += k;
      len -= k;
    }
  }

  @Override
  public void readFully(byte[] b) throws IOException {
    readFully(b, 0, b.length);
  }

  @Override
  public void readFully(byte[] b, int off, int len) throws IOException {
    while (len > 0) {
      require(1);
      int k = Math.min(len, buf.remaining());
      buf.get(b, off, k);
      off += k;
      len -= k;
    }
  }

  /** Skips up to {@code n} bytes; fewer only at the end of the file. */
  @Override
  public int skipBytes(int n) throws IOException {
    int skipped = 0;
    while (skipped < n) {
      if (!buf.hasRemaining()) {
        try {
          require(1);
        } catch (EOFException end) {
          break;
        }
      }
      int k = Math.min(n - skipped, buf.remaining());
      buf.position(buf.position() + k);
      skipped += k;
    }
    return skipped;
  }

  @Override
  public boolean readBoolean() throws IOException {
    return readByte() != 0;
  }

  @Override
  public byte readByte() throws IOException {
    require(1);
    return buf.get();
  }

  @Override
  public int readUnsignedByte() throws IOException {
    return readByte() & 0xFF;
  }

  @Override
  public short readShort() throws IOException {
    require(2);
    return buf.getShort();
  }

  @Override
  public int readUnsignedShort() throws IOException {
    return readShort() & 0xFFFF;
  }

  @Override
  public char readChar() throws IOException {
    require(2);
    return buf.getChar();
  }

  @Override
  public int readInt() throws IOException {
    require(4);
    return buf.getInt();
  }

  @Override
  public long readLong() throws IOException {
    require(8);
    return buf.getLong();
  }

  @Override
  public float readFloat() throws IOException {
    require(4);
    return buf.getFloat();
  }

  @Override
  public double readDouble() throws IOException {
    require(8);
    return buf.getDouble();
  }

  /** Not supported: snapshot files hold no lines. */
  @Override
  public String readLine() {
    throw new UnsupportedOperationException("snapshot files hold no lines");
  }

  @Override
  public String readUTF() throws IOException {
    return DataInputStream.readUTF(this);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
