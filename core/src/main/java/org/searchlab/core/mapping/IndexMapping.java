package org.searchlab.core.mapping;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import org.searchlab.core.Document;
import org.searchlab.core.io.Durable;

/**
 * An index's mapping as it grows: the current {@link Mapping}, the settings that define its
 * analyzers and similarities, and the file {@value #FILE} that keeps both durable in the store's
 * directory. A document that adds fields ({@link #parse}) and a {@code PUT _mapping} ({@link
 * #merge}) write the new mapping to disk (a temporary file, fsynced, renamed over the old one, the
 * directory fsynced) before it is published: a document is logged only after the mapping it needs
 * is durable, so a replay after a crash always reads it against a mapping that knows its fields.
 *
 * <p>Thread safety: {@link #current()} is a volatile read; updates are serialised on this object,
 * and a document whose parse raced another update is parsed again against the newest mapping.
 */
public final class IndexMapping {
  /** The file in a store's directory. */
  public static final String FILE = "mapping.json";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path file;
  private final IndexSettings settings;
  private volatile Mapping current;

  private IndexMapping(Path file, IndexSettings settings, Mapping current) {
    this.file = file;
    this.settings = settings;
    this.current = current;
  }

  /**
   * Opens the mapping of the store in {@code dir}: the one on disk, with {@code initial}'s fields
   * merged in (so a store opened with the mapping it was created with gets the same mapping back),
   * or {@code initial} on a new directory; written to disk when that changed anything.
   *
   * @param dir the store's directory, or null to keep the mapping in memory only
   * @throws MappingException when {@code initial} conflicts with the mapping on disk
   */
  public static IndexMapping open(Path dir, IndexSettings settings, Mapping initial)
      throws IOException {
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(initial, "initial");
    Path file = dir == null ? null : dir.resolve(FILE);
    IndexSettings effective = settings;
    Mapping m = initial;
    if (file != null && Files.exists(file)) {
      JsonNode saved = JSON.readTree(Files.readAllBytes(file));
      effective = IndexSettings.parse(saved.get("settings"));
      Mapping onDisk = MappingJson.parse(saved.get("mappings"), effective);
      m = onDisk.merge(initial);
      if (m.equals(onDisk)) {
        return new IndexMapping(file, effective, onDisk);
      }
    }
    IndexMapping im = new IndexMapping(file, effective, m);
    im.write(m);
    return im;
  }

  /** A mapping kept in memory only (tests and tools). */
  public static IndexMapping inMemory(IndexSettings settings, Mapping mapping) {
    return new IndexMapping(null, settings, mapping);
  }

  /** The newest mapping. */
  public Mapping current() {
    return current;
  }

  /** The settings the mapping was read with. */
  public IndexSettings settings() {
    return settings;
  }

  /**
   * Reads {@code doc} against the current mapping; when it adds fields, the grown mapping is made
   * durable and published first.
   *
   * @throws MappingException for a document that does not fit
   */
  public ParsedDocument parse(Document doc) throws IOException {
    Mapping m = current;
    ParsedDocument p = DocumentParser.parse(m, settings.defaultAnalyzer(), doc);
    if (!p.mappingChanged()) {
      return p;
    }
    synchronized (this) {
      if (current != m) {
        // Another document or update changed the mapping meanwhile: read against the newest.
        p = DocumentParser.parse(current, settings.defaultAnalyzer(), doc);
        if (!p.mappingChanged()) {
          return p;
        }
      }
      write(p.mapping());
      current = p.mapping();
      return p;
    }
  }

  /**
   * Reads {@code doc} against the current mapping without adding any field: for a replay, whose
   * documents were all parsed once against a mapping that is on disk now.
   */
  public ParsedDocument parseKnown(Document doc) {
    return DocumentParser.parse(current, settings.defaultAnalyzer(), doc);
  }

  /**
   * Checks a partial update's values against the current mapping on their own, before the document
   * it updates is looked up, so that a value that could never fit its field is refused even when
   * the document is missing; adds nothing to the mapping.
   *
   * @throws MappingException for a value that does not fit its field
   */
  public void checkPatch(org.searchlab.core.PartialUpdate update) {
    if (update.isEmpty()) {
      throw new org.searchlab.core.InvalidRequestException(
          "update of document '" + update.id() + "' assigns no field");
    }
    DocumentParser.parse(
        current, settings.defaultAnalyzer(), new Document(update.id(), update.doc()));
  }

  /**
   * Adds {@code update}'s fields ({@code PUT _mapping}); returns the new mapping.
   *
   * @throws MappingException {@code illegal_argument_exception} when a field would change
   */
  public synchronized Mapping merge(Mapping update) throws IOException {
    Mapping m = current.merge(update);
    if (!m.equals(current)) {
      write(m);
      current = m;
    }
    return m;
  }

  private void write(Mapping m) throws IOException {
    if (file == null) {
      return;
    }
    ObjectNode o = JSON.createObjectNode();
    o.set("settings", settings.toJson(true));
    o.set("mappings", MappingJson.render(m));
    byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(o);
    Path tmp = file.resolveSibling(FILE + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer b = ByteBuffer.wrap(bytes);
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    Durable.forceDirectory(file.getParent());
  }
}
