package org.searchlab.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads the rows of an earlier run's directory. Stateless. */
public final class RunRows {
  private RunRows() {}

  /**
   * The file holding a run's rows: {@code results.jsonl}, or {@code results.partial.jsonl} of an
   * interrupted run.
   */
  public static Path file(Path dir) {
    Path jsonl = dir.resolve("results.jsonl");
    return Files.exists(jsonl) ? jsonl : dir.resolve("results.partial.jsonl");
  }

  /** Every row of the run in {@code dir}, in the order written. */
  public static List<ResultRow> read(Path dir) throws IOException {
    ObjectMapper json = new ObjectMapper();
    List<ResultRow> rows = new ArrayList<>();
    for (String line : Files.readAllLines(file(dir))) {
      if (!line.isBlank()) {
        rows.add(json.readValue(line, ResultRow.class));
      }
    }
    return rows;
  }
}
