package org.searchlab.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The report's section on how realistic its corpus is: the table {@code dataset stats} writes
 * ({@value #FILE}), which the experiment copies into the run directory when its corpus has one (a
 * grown corpus always has: it is computed once, when the corpus is built). The real corpus and the
 * grown one side by side: neighbour distances of the sampled queries and posting-list lengths
 * (issue 68). Stateless.
 */
public final class CorpusRealism {
  /** The realism table's file name, in a dataset directory and in a run directory alike. */
  public static final String FILE = "realism.md";

  private CorpusRealism() {}

  /**
   * The section for the run in {@code dir}, or an empty string when the run has no realism table.
   * The table's own top heading becomes the section's.
   */
  static String section(Path dir) throws IOException {
    Path file = dir.resolve(FILE);
    if (!Files.exists(file)) {
      return "";
    }
    String table = Files.readString(file, StandardCharsets.UTF_8).strip();
    if (table.startsWith("# ")) {
      table = table.substring(table.indexOf('\n') + 1).strip();
    }
    return "## The corpus: real and grown side by side\n\n"
        + "How realistic the grown corpus is, measured on the corpus itself (`dataset stats`, the"
        + " held-out scale-up test of the generator is in docs/scale.md). Neighbour distances"
        + " shrink as a corpus grows, so a larger corpus's neighbours are expected to be closer;"
        + " what should stay alike are the shapes of the distributions and the absence of"
        + " near-copies.\n\n"
        + table
        + "\n\n";
  }
}
