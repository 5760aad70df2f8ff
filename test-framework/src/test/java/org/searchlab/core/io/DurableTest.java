package org.searchlab.core.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.testing.disk.CrashImage;
import org.searchlab.testing.disk.DiskModel;
import org.searchlab.testing.disk.ForgetfulFileSystem;
import org.searchlab.testing.disk.PowerCut;

/**
 * {@link Durable#createDirectories} on a disk that forgets unforced entries, next to {@link
 * Files#createDirectories} on the same disk, and on the real file system for its error cases.
 */
class DurableTest {
  @TempDir Path tmp;

  @Test
  void everyDirectoryItCreatesSurvivesAPowerCutWhereFilesCreateDirectoriesLosesThem()
      throws IOException {
    for (DiskModel.MetadataOrder order : DiskModel.MetadataOrder.values()) {
      ForgetfulFileSystem fs =
          ForgetfulFileSystem.over(
              tmp.resolve(order.name()), DiskModel.Options.DEFAULT.withOrder(order));
      Path durable = fs.resolve("durable", "b", "c");
      assertSame(durable, Durable.createDirectories(durable));
      // Again, now that all exist: nothing to create, nothing thrown.
      assertSame(durable, Durable.createDirectories(durable));
      // Under an existing durable parent, only the new child's parent is forced.
      Durable.createDirectories(fs.resolve("durable", "d"));
      // Last: under ORDERED, a later force of the root would persist it too.
      Files.createDirectories(fs.resolve("plain", "b"));
      CrashImage image = fs.powerCut(PowerCut.dropUnforced(), new SplittableRandom(0));
      assertEquals(
          new TreeSet<>(List.of("durable", "durable/b", "durable/b/c", "durable/d")),
          image.directories(),
          order + ": the plain ones are lost, the durable ones all kept");
    }
  }

  @Test
  void aFileInTheWayIsRefusedAndAnExistingDirectoryIsLeftAsItIs() throws IOException {
    Path file = Files.writeString(tmp.resolve("file"), "x");
    assertThrows(FileAlreadyExistsException.class, () -> Durable.createDirectories(file));
    assertThrows(
        FileAlreadyExistsException.class, () -> Durable.createDirectories(file.resolve("sub")));
    Path relative = Path.of("target", "durable-test-" + ProcessHandle.current().pid());
    try {
      assertSame(relative, Durable.createDirectories(relative), "returns the path it was given");
      assertTrue(Files.isDirectory(relative));
      Files.writeString(relative.resolve("kept"), "y");
      Durable.createDirectories(relative);
      assertEquals("y", Files.readString(relative.resolve("kept")));
    } finally {
      Files.deleteIfExists(relative.resolve("kept"));
      Files.deleteIfExists(relative);
    }
  }

  /**
   * A failed directory force is an error, as a failed file force is (issue 70, step 9), except
   * where the file system cannot force a directory at all: EINVAL or EBADF, as PostgreSQL skips.
   */
  @Test
  void aFailedDirectoryForceIsAnErrorUnlessTheFileSystemCannotForceDirectories()
      throws IOException {
    ForgetfulFileSystem fs =
        ForgetfulFileSystem.over(tmp.resolve("disk"), DiskModel.Options.DEFAULT);
    Path dir = Files.createDirectory(fs.resolve("d"));
    fs.failForces(p -> p.getFileName() != null && p.getFileName().toString().equals("d"));
    IOException e = assertThrows(IOException.class, () -> Durable.forceDirectory(dir));
    assertTrue(e.getMessage().contains("Input/output error"), e.getMessage());
    assertThrows(IOException.class, () -> Durable.createDirectories(dir.resolve("e")));
    assertTrue(Durable.unsupported(new IOException("Invalid argument")));
    assertTrue(Durable.unsupported(new IOException("Bad file descriptor")));
    assertFalse(Durable.unsupported(new IOException("Input/output error")));
    assertFalse(Durable.unsupported(new IOException((String) null)));
  }
}
