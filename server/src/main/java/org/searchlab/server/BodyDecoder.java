package org.searchlab.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import java.util.zip.ZipException;

/**
 * Inflates a request body sent with {@code Content-Encoding: gzip} or {@code deflate}, counting the
 * bytes as they come out so that a compression bomb stops at the body limit instead of filling the
 * heap. It runs on an executor thread, never on the event loop: inflating 100 MB takes long enough
 * to stall every connection of that loop. Stateless and thread-safe.
 */
final class BodyDecoder {
  private BodyDecoder() {}

  /** Whether {@code encoding} (a {@code Content-Encoding} value) needs decoding. */
  static boolean encoded(String encoding) {
    return encoding != null && !encoding.isBlank() && !encoding.trim().equalsIgnoreCase("identity");
  }

  /**
   * The decoded body, a new buffer the caller releases.
   *
   * @param max the largest decoded size in bytes; more is 413
   * @throws ApiException 415 for an encoding other than gzip, x-gzip, deflate or identity; 400 for
   *     data that is not in its encoding; 413 above {@code max}
   */
  static ByteBuf decode(ByteBuf body, String encoding, int max) {
    String e = encoding.trim().toLowerCase(Locale.ROOT);
    ByteBuf in = body.duplicate();
    try (InputStream s = stream(e, in)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(max, 64 * 1024));
      byte[] chunk = new byte[16 * 1024];
      long total = 0;
      int n;
      while ((n = s.read(chunk)) > 0) {
        total += n;
        if (total > max) {
          throw new ApiException(
              413,
              "content_too_long_exception",
              "the "
                  + e
                  + " request body of "
                  + body.readableBytes()
                  + " bytes is larger than the limit of "
                  + max
                  + " bytes (--max-content-length) once inflated");
        }
        out.write(chunk, 0, n);
      }
      return Unpooled.wrappedBuffer(out.toByteArray());
    } catch (ZipException | java.io.EOFException ex) {
      throw new ApiException(
          400,
          "parse_exception",
          "the request body is not valid " + e + " data: " + Text.quote(ex.getMessage()));
    } catch (IOException ex) {
      throw new ApiException(
          400, "parse_exception", "the request body could not be inflated: " + ex.getMessage());
    }
  }

  private static InputStream stream(String e, ByteBuf in) throws IOException {
    ByteBufInputStream raw = new ByteBufInputStream(in);
    return switch (e) {
      case "gzip", "x-gzip" -> new GZIPInputStream(raw, 16 * 1024);
      case "deflate" -> {
        Inflater inflater = new Inflater(!zlibHeader(in));
        yield new InflaterInputStream(raw, inflater, 16 * 1024) {
          @Override
          public void close() throws IOException {
            super.close();
            inflater.end(); // a stream given its own Inflater does not end it
          }
        };
      }
      default ->
          throw new ApiException(
              415,
              "media_type_header_exception",
              "Content-Encoding ["
                  + Text.quote(e)
                  + "] is not supported; use gzip, deflate or identity");
    };
  }

  /**
   * Whether the data starts with a zlib header (RFC 1950); raw deflate otherwise, as browsers do.
   */
  private static boolean zlibHeader(ByteBuf in) {
    if (in.readableBytes() < 2) {
      return true;
    }
    int b0 = in.getUnsignedByte(in.readerIndex());
    int b1 = in.getUnsignedByte(in.readerIndex() + 1);
    return (b0 & 0x0f) == 8 && ((b0 << 8) | b1) % 31 == 0;
  }
}
