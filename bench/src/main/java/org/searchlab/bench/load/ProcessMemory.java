package org.searchlab.bench.load;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The memory of one Linux process as the kernel accounts it, read from {@code /proc/<pid>}: its
 * resident set ({@code VmRSS}) and the peak of it ({@code VmHWM}) from {@code status}, split into
 * anonymous memory ({@code RssAnon}: a JVM's heap, metaspace, thread stacks, code cache), mapped
 * files ({@code RssFile}: the segmented store's index, the JDK's own jars) and shared memory
 * ({@code RssShmem}); transparent huge pages of the anonymous part ({@code AnonHugePages}) from
 * {@code smaps_rollup}; and, from {@code smaps}, the resident bytes of the mapped files by file
 * extension, which tells the segmented store's vectors ({@code vec}) from its graph ({@code vex})
 * and its postings ({@code doc}, {@code tim}). {@code status} and {@code smaps_rollup} are a few
 * hundred bytes each; {@code smaps} has about 20 lines per mapping (a few thousand mappings in a
 * JVM), so callers that poll read it less often. Thread-safe: stateless apart from the pid and the
 * directory.
 */
public final class ProcessMemory {
  private final long pid;
  private final Path proc;

  public ProcessMemory(long pid) {
    this(pid, Path.of("/proc"));
  }

  /** Reads from {@code proc} instead of {@code /proc} (for tests). */
  ProcessMemory(long pid, Path proc) {
    this.pid = pid;
    this.proc = proc;
  }

  /** This JVM's own memory. */
  public static ProcessMemory self() {
    return new ProcessMemory(ProcessHandle.current().pid());
  }

  /** The process this reads. */
  public long pid() {
    return pid;
  }

  /**
   * One reading of {@code status} and {@code smaps_rollup}, in bytes.
   *
   * @param rss resident set now ({@code VmRSS})
   * @param peakRss the largest resident set so far ({@code VmHWM})
   * @param anonymous resident anonymous memory ({@code RssAnon})
   * @param file resident pages of mapped files ({@code RssFile})
   * @param shmem resident shared memory ({@code RssShmem})
   * @param anonHugePages anonymous memory in transparent huge pages ({@code AnonHugePages} of
   *     {@code smaps_rollup}), -1 where that file is missing (kernels before 4.14)
   */
  public record Reading(
      long rss, long peakRss, long anonymous, long file, long shmem, long anonHugePages) {}

  /**
   * Reads {@code status} and {@code smaps_rollup}.
   *
   * @throws UncheckedIOException when the process is gone or {@code /proc} cannot be read
   */
  public Reading read() {
    Path dir = proc.resolve(Long.toString(pid));
    try {
      Map<String, Long> status = parseKilobytes(Files.readString(dir.resolve("status")));
      long huge = -1;
      Path rollup = dir.resolve("smaps_rollup");
      if (Files.isReadable(rollup)) {
        huge = parseKilobytes(Files.readString(rollup)).getOrDefault("AnonHugePages", -1L);
      }
      return new Reading(
          status.getOrDefault("VmRSS", 0L),
          status.getOrDefault("VmHWM", 0L),
          status.getOrDefault("RssAnon", 0L),
          status.getOrDefault("RssFile", 0L),
          status.getOrDefault("RssShmem", 0L),
          huge);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the memory of process " + pid, e);
    }
  }

  /**
   * The resident bytes of the process's mapped files by extension ({@code vec}, {@code jar}, …,
   * {@code ""} for a file without one), summed over its mappings in {@code smaps}; anonymous
   * mappings and the kernel's ({@code [heap]}, {@code [stack]}) are left out.
   *
   * @throws UncheckedIOException when the process is gone or {@code /proc} cannot be read
   */
  public Map<String, Long> mappedByExtension() {
    try {
      return parseSmaps(Files.readString(proc.resolve(Long.toString(pid)).resolve("smaps")));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the mappings of process " + pid, e);
    }
  }

  /**
   * The {@code Name: <n> kB} lines of a {@code status} or {@code smaps_rollup} file, in bytes, by
   * name; lines of another shape are skipped.
   */
  static Map<String, Long> parseKilobytes(String text) {
    Map<String, Long> out = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      int colon = line.indexOf(':');
      if (colon < 0 || !line.endsWith(" kB")) {
        continue;
      }
      String value = line.substring(colon + 1, line.length() - 3).strip();
      try {
        out.put(line.substring(0, colon), Long.parseLong(value) * 1024);
      } catch (NumberFormatException e) {
        // not a size line
      }
    }
    return out;
  }

  /**
   * Sums the {@code Rss:} of each file mapping of an {@code smaps} file by the file's extension. A
   * mapping starts with a header line {@code <from>-<to> <perms> <offset> <dev> <inode> [path]}; a
   * file mapping has a path starting with {@code /}, and a deleted file keeps its name with {@code
   * " (deleted)"} after it.
   */
  static Map<String, Long> parseSmaps(String text) {
    Map<String, Long> out = new TreeMap<>();
    String ext = null;
    for (String line : text.split("\n")) {
      if (isMappingHeader(line)) {
        ext = extensionOf(line);
      } else if (ext != null && line.startsWith("Rss:")) {
        long kb = Long.parseLong(line.substring(4, line.length() - 3).strip());
        if (kb > 0) {
          out.merge(ext, kb * 1024, Long::sum);
        }
      }
    }
    return out;
  }

  private static final java.util.regex.Pattern VERSIONED_LIBRARY =
      java.util.regex.Pattern.compile(".*\\.so(\\.[0-9]+)+");

  /** A mapping's header: an address range, then the permissions. */
  private static boolean isMappingHeader(String line) {
    int dash = line.indexOf('-');
    int space = line.indexOf(' ');
    return dash > 0 && space > dash && isHex(line, 0, dash) && isHex(line, dash + 1, space);
  }

  private static boolean isHex(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      if (Character.digit(s.charAt(i), 16) < 0) {
        return false;
      }
    }
    return to > from;
  }

  /** The extension of a header's file path, or null when the mapping is not of a file. */
  private static String extensionOf(String header) {
    int slash = header.indexOf(" /");
    if (slash < 0) {
      return null;
    }
    String path = header.substring(slash + 1).strip();
    if (path.endsWith(" (deleted)")) {
      path = path.substring(0, path.length() - " (deleted)".length());
    }
    String name = path.substring(path.lastIndexOf('/') + 1);
    if (VERSIONED_LIBRARY.matcher(name).matches()) {
      return "so"; // libc.so.6: a shared library, not a file of type "6"
    }
    int dot = name.lastIndexOf('.');
    return dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
  }
}
