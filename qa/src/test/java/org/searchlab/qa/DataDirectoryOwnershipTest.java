package org.searchlab.qa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.DataDirectory;
import org.searchlab.core.Document;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.mutable.MutableIndex;
import org.searchlab.segmented.LuceneSegmentedIndex;

/**
 * Both stores lock their data directory and mark it as theirs: a second store on an open directory
 * is refused, and so is the other kind of store or another schema on a closed one, before either
 * touches the other's files (both keep their log in {@code wal/}).
 */
class DataDirectoryOwnershipTest {
  private static final Schema SCHEMA = new Schema(4);
  @TempDir Path tmp;

  private static SearchIndex open(String kind, Path dir, Schema schema) throws IOException {
    return kind.equals("mutable")
        ? MutableIndex.open(dir, schema)
        : LuceneSegmentedIndex.open(dir, schema);
  }

  private static Document doc(String id) {
    return new Document(id, "title " + id, "description", "c", 1, 1f, new float[] {1, 0, 0, 0});
  }

  @Test
  void eachStoreRefusesASecondOpenAndTheOtherKind() throws IOException {
    for (String kind : new String[] {"mutable", "segmented"}) {
      String other = kind.equals("mutable") ? "segmented" : "mutable";
      Path dir = tmp.resolve(kind);
      try (SearchIndex index = open(kind, dir, SCHEMA)) {
        index.put(doc("a"));
        for (String second : new String[] {kind, other}) {
          DataDirectory.DirectoryInUseException e =
              assertThrows(
                  DataDirectory.DirectoryInUseException.class, () -> open(second, dir, SCHEMA));
          assertTrue(e.getMessage().contains("in use"), e.getMessage());
        }
        index.put(doc("b")); // the refused opens touched nothing
      }
      DataDirectory.DirectoryInUseException e =
          assertThrows(DataDirectory.DirectoryInUseException.class, () -> open(other, dir, SCHEMA));
      assertTrue(
          e.getMessage().contains("belongs to a " + kind + " store"), "names the owner: " + e);
      e =
          assertThrows(
              DataDirectory.DirectoryInUseException.class, () -> open(kind, dir, new Schema(8)));
      assertTrue(e.getMessage().contains("4 dimensional"), e.getMessage());
      try (SearchIndex index = open(kind, dir, SCHEMA)) {
        assertEquals(doc("b"), index.get("b").orElseThrow());
        assertEquals(doc("a"), index.get("a").orElseThrow());
      }
    }
  }

  @Test
  void aDirectoryWithoutAMarkerIsRecognisedByItsFiles() throws IOException {
    Path dir = tmp.resolve("legacy");
    try (SearchIndex index = LuceneSegmentedIndex.open(dir, SCHEMA)) {
      index.put(doc("a"));
    }
    Files.delete(dir.resolve(DataDirectory.MARKER_FILE)); // as written before markers existed
    DataDirectory.DirectoryInUseException e =
        assertThrows(
            DataDirectory.DirectoryInUseException.class, () -> MutableIndex.open(dir, SCHEMA));
    assertTrue(e.getMessage().contains("segmented store's files"), e.getMessage());
    try (SearchIndex index = LuceneSegmentedIndex.open(dir, SCHEMA)) {
      assertEquals(doc("a"), index.get("a").orElseThrow());
    }
    assertTrue(Files.exists(dir.resolve(DataDirectory.MARKER_FILE)), "marked on first open");
  }
}
