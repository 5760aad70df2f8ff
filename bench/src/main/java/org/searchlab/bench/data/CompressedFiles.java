package org.searchlab.bench.data;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.compressors.lz4.FramedLZ4CompressorInputStream;

/** Opens plain, {@code .gz} and {@code .lz4} (apt's list format) text files. Stateless. */
final class CompressedFiles {
  private CompressedFiles() {}

  /** A UTF-8 reader over the decompressed content, chosen by the file name's suffix. */
  static BufferedReader open(Path file) throws IOException {
    InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
    String name = file.getFileName().toString();
    InputStream in;
    try {
      if (name.endsWith(".lz4")) {
        in = new FramedLZ4CompressorInputStream(raw, true);
      } else if (name.endsWith(".gz")) {
        in = new GZIPInputStream(raw, 1 << 16);
      } else {
        in = raw;
      }
    } catch (IOException e) {
      raw.close();
      throw new IOException(file + ": cannot decompress: " + e.getMessage(), e);
    }
    return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
  }
}
