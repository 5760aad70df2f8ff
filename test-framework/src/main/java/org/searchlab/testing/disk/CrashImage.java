package org.searchlab.testing.disk;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A crash state, materialised: the directories and files a power cut left, with their contents.
 * Paths are relative to the file system's root, with {@code /} between names. Immutable.
 */
public final class CrashImage {
  private final SortedSet<String> directories;
  private final SortedMap<String, byte[]> files;

  CrashImage(SortedSet<String> directories, SortedMap<String, byte[]> files) {
    this.directories = Collections.unmodifiableSortedSet(new TreeSet<>(directories));
    TreeMap<String, byte[]> copy = new TreeMap<>();
    files.forEach((k, v) -> copy.put(k, v.clone()));
    this.files = Collections.unmodifiableSortedMap(copy);
  }

  /** The image of a real directory tree as it is now, e.g. to compare with a cut's image. */
  public static CrashImage read(Path realDir) throws IOException {
    if (realDir.getFileSystem() != FileSystems.getDefault()) {
      throw new IllegalArgumentException(realDir + " is not on the default file system");
    }
    TreeSet<String> dirs = new TreeSet<>();
    TreeMap<String, byte[]> contents = new TreeMap<>();
    List<Path> all;
    try (Stream<Path> walk = Files.walk(realDir)) {
      all = walk.toList();
    }
    for (Path p : all) {
      if (p.equals(realDir)) {
        continue;
      }
      String rel = relative(realDir, p);
      if (Files.isDirectory(p)) {
        dirs.add(rel);
      } else {
        contents.put(rel, Files.readAllBytes(p));
      }
    }
    return new CrashImage(dirs, contents);
  }

  private static String relative(Path root, Path p) {
    StringBuilder sb = new StringBuilder();
    for (Path name : root.relativize(p)) {
      if (!sb.isEmpty()) {
        sb.append('/');
      }
      sb.append(name);
    }
    return sb.toString();
  }

  /** The directories below the root, sorted, parents before children. */
  public SortedSet<String> directories() {
    return directories;
  }

  /** The files' relative paths, sorted. */
  public SortedSet<String> fileNames() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(files.keySet()));
  }

  /** A copy of the content of file {@code relativePath}, or {@code null} if the cut left none. */
  public byte[] content(String relativePath) {
    byte[] b = files.get(relativePath);
    return b == null ? null : b.clone();
  }

  /**
   * Creates this image's directories and files under {@code emptyRealDir} (created if missing), a
   * directory on the default file system.
   */
  public void writeTo(Path emptyRealDir) throws IOException {
    if (emptyRealDir.getFileSystem() != FileSystems.getDefault()) {
      throw new IllegalArgumentException(emptyRealDir + " is not on the default file system");
    }
    Files.createDirectories(emptyRealDir);
    try (Stream<Path> existing = Files.list(emptyRealDir)) {
      if (existing.findAny().isPresent()) {
        throw new IOException("crash image target " + emptyRealDir + " is not empty");
      }
    }
    for (String d : directories) {
      Files.createDirectories(emptyRealDir.resolve(d));
    }
    for (var e : files.entrySet()) {
      Files.write(emptyRealDir.resolve(e.getKey()), e.getValue());
    }
  }

  /**
   * A SHA-256 over the sorted names and the contents, in hex: equal images have equal digests, so
   * states that differ only in operations nothing reads can be recovered once.
   */
  public String digest() {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    for (String d : directories) {
      md.update(("d " + d + "\n").getBytes(StandardCharsets.UTF_8));
    }
    for (var e : files.entrySet()) {
      md.update(
          ("f " + e.getKey() + " " + e.getValue().length + "\n").getBytes(StandardCharsets.UTF_8));
      md.update(e.getValue());
    }
    return HexFormat.of().formatHex(md.digest());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CrashImage other && digest().equals(other.digest());
  }

  @Override
  public int hashCode() {
    return digest().hashCode();
  }

  /** The directories and the files with their sizes, one a line, for failure messages. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("CrashImage[");
    directories.forEach(d -> sb.append("\n  ").append(d).append('/'));
    files.forEach(
        (name, bytes) ->
            sb.append("\n  ").append(name).append(" (").append(bytes.length).append(" B)"));
    return sb.append("\n]").toString();
  }
}
