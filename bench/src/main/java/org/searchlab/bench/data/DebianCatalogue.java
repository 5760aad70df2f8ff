package org.searchlab.bench.data;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.core.Document;

/**
 * Debian's package index read as a product catalogue: one document per binary package, from apt's
 * {@code Packages} lists and the English {@code Translation-en} descriptions. Stateless and
 * thread-safe.
 *
 * <p>The mapping, per package:
 *
 * <ul>
 *   <li>{@code id}: the package name;
 *   <li>{@code title}: the short description (the first line of {@code Description});
 *   <li>{@code description}: the long description from {@code Translation-en} (matched by {@code
 *       Description-md5}), paragraphs joined with a newline, lines within a paragraph with a space;
 *   <li>{@code category}: the {@code Section}, without a {@code contrib/} or {@code non-free/}
 *       component prefix;
 *   <li>{@code price}: {@code Installed-Size} in KiB;
 *   <li>{@code average_rating}: {@link #rating(String)}, a deterministic function of the name.
 * </ul>
 *
 * A package listed in several suites (bookworm, bookworm-updates, bookworm-security) keeps its
 * highest version. Packages without an English long description are left out. The documents come
 * out sorted by name, so the order does not depend on the order of the input files.
 */
final class DebianCatalogue {
  private DebianCatalogue() {}

  /** One parsed {@code Packages} stanza. */
  private record Entry(
      String name,
      String version,
      String section,
      int installedSize,
      String shortDescription,
      String md5) {}

  /** Reads the catalogue. */
  static List<Document> read(List<Path> packagesFiles, List<Path> translationFiles)
      throws IOException {
    Map<String, String> longByMd5 = new HashMap<>();
    for (Path t : translationFiles) {
      readTranslations(t, longByMd5);
    }
    Map<String, Entry> newest = new HashMap<>();
    for (Path p : packagesFiles) {
      readPackages(p, newest);
    }
    List<Entry> entries = new ArrayList<>(newest.values());
    entries.sort(Comparator.comparing(Entry::name));
    List<Document> docs = new ArrayList<>(entries.size());
    for (Entry e : entries) {
      String description = longByMd5.get(e.md5());
      if (description == null || description.isBlank() || e.shortDescription().isBlank()) {
        continue;
      }
      docs.add(
          new Document(
              e.name(),
              e.shortDescription(),
              description,
              e.section(),
              e.installedSize(),
              rating(e.name()),
              null));
    }
    return docs;
  }

  /**
   * A made-up but deterministic rating in [1.0, 5.0] with one decimal: {@code 5 − 4·u²} where
   * {@code u} ∈ [0, 1) comes from the SHA-256 of the name. Skewed towards high ratings as real
   * catalogues are (mean ≈ 3.67, median 4.0).
   */
  static float rating(String name) {
    byte[] h = sha256(name);
    long bits = 0;
    for (int i = 0; i < 8; i++) {
      bits = (bits << 8) | (h[i] & 0xff);
    }
    double u = (bits >>> 11) * 0x1.0p-53;
    double rating = 5.0 - 4.0 * u * u;
    return (float) (Math.round(rating * 10) / 10.0);
  }

  static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  private static void readPackages(Path file, Map<String, Entry> newest) throws IOException {
    try (BufferedReader in = CompressedFiles.open(file)) {
      Map<String, String> stanza;
      while (!(stanza = nextStanza(in)).isEmpty()) {
        String name = stanza.get("Package");
        String description = stanza.get("Description");
        if (name == null || description == null) {
          continue;
        }
        String version = stanza.getOrDefault("Version", "0");
        String section = stanza.getOrDefault("Section", "unknown");
        int slash = section.lastIndexOf('/');
        if (slash >= 0) {
          section = section.substring(slash + 1);
        }
        int size = 0;
        try {
          size = Integer.parseInt(stanza.getOrDefault("Installed-Size", "0").trim());
        } catch (NumberFormatException ignored) {
          // a malformed size counts as unknown (0)
        }
        int nl = description.indexOf('\n');
        String shortDescription = (nl < 0 ? description : description.substring(0, nl)).trim();
        String md5 = stanza.get("Description-md5");
        if (md5 == null) {
          // Old-style lists carry the long description inline; its md5 is computed the same way.
          md5 = name + "\u0000inline";
        }
        Entry e = new Entry(name, version, section, size, shortDescription, md5);
        newest.merge(
            name,
            e,
            (old, neu) -> DebianVersion.compare(neu.version(), old.version()) > 0 ? neu : old);
      }
    }
  }

  private static void readTranslations(Path file, Map<String, String> longByMd5)
      throws IOException {
    try (BufferedReader in = CompressedFiles.open(file)) {
      Map<String, String> stanza;
      while (!(stanza = nextStanza(in)).isEmpty()) {
        String md5 = stanza.get("Description-md5");
        String text = stanza.get("Description-en");
        if (md5 == null || text == null) {
          continue;
        }
        int nl = text.indexOf('\n');
        if (nl >= 0) {
          longByMd5.putIfAbsent(md5, longDescription(text.substring(nl + 1)));
        }
      }
    }
  }

  /**
   * Debian's long-description markup to plain text: each line starts with a space, a line of {@code
   * " ."} is a paragraph break; lines starting with two spaces are verbatim (kept on their own
   * line).
   */
  static String longDescription(String raw) {
    List<String> paragraphs = new ArrayList<>();
    StringBuilder paragraph = new StringBuilder();
    for (String line : raw.split("\n", -1)) {
      String l = line.startsWith(" ") ? line.substring(1) : line;
      if (l.strip().equals(".")) {
        addParagraph(paragraphs, paragraph);
        continue;
      }
      if (l.isBlank()) {
        continue;
      }
      if (!paragraph.isEmpty()) {
        paragraph.append(l.startsWith(" ") ? '\n' : ' ');
      }
      paragraph.append(l.strip());
    }
    addParagraph(paragraphs, paragraph);
    return String.join("\n", paragraphs);
  }

  private static void addParagraph(List<String> paragraphs, StringBuilder paragraph) {
    if (!paragraph.isEmpty()) {
      paragraphs.add(paragraph.toString());
      paragraph.setLength(0);
    }
  }

  /**
   * The next RFC 822-style stanza as field → value (continuation lines joined with {@code \n},
   * keeping their leading space); an empty map at the end of the input.
   */
  private static Map<String, String> nextStanza(BufferedReader in) throws IOException {
    Map<String, String> fields = new LinkedHashMap<>();
    String field = null;
    StringBuilder value = null;
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (line.isEmpty()) {
        if (fields.isEmpty() && field == null) {
          continue; // blank lines between stanzas
        }
        break;
      }
      if (line.charAt(0) == ' ' || line.charAt(0) == '\t') {
        if (value != null) {
          value.append('\n').append(line);
        }
        continue;
      }
      if (field != null) {
        fields.put(field, value.toString());
      }
      int colon = line.indexOf(':');
      if (colon < 0) {
        field = null;
        value = null;
        continue;
      }
      field = line.substring(0, colon);
      value = new StringBuilder(line.substring(colon + 1).strip());
    }
    if (field != null) {
      fields.put(field, value.toString());
    }
    return fields;
  }
}
