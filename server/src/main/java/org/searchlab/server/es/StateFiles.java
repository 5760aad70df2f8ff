package org.searchlab.server.es;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.searchlab.core.io.Durable;

/**
 * Writes the node's small state files ({@code _state/node.id}, {@code
 * _state/cluster-settings.json}) so that a crash leaves either the old or the new content, never
 * half: into a temporary file, forced to disk, moved over the old one atomically, then the
 * directory forced (where the file system allows). Stateless and thread-safe; callers serialize
 * writes to one file.
 */
final class StateFiles {
  private StateFiles() {}

  static void write(Path file, String text) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (FileChannel out =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer b = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
      while (b.hasRemaining()) {
        out.write(b);
      }
      out.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    Durable.forceDirectory(file.getParent());
  }
}
