package org.searchlab.bench.cli;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code experiment}'s options of issue 68 ({@code --scale}, {@code --write-docs}, {@code
 * --hybrid-beams}): a value the run cannot use is a usage error (exit 2) that names it, before
 * anything is written; a scale run ({@code --scale} or {@code --profile scale}) refuses the options
 * and variants it does not run.
 */
class ProfileOptionsCommandTest {
  @Test
  void whatTheRunCannotUseIsAUsageErrorThatNamesIt(@TempDir Path dir) {
    for (String[][] bad :
        new String[][][] {
          {{"--scale=2000"}, {"at least two sizes"}},
          {{"--scale=4000,2000"}, {"strictly ascending; got 2000 after 4000"}},
          {{"--scale=500,2000"}, {"1000 documents or more; got 500"}},
          {{"--scale=2000,4000", "--grid"}, {"--grid do not apply"}},
          {{"--scale=2000,8000", "--docs=4000"}, {"--scale size 8000 is above --docs 4000"}},
          {{"--scale=2000,4000", "--variants=mutable-int8"}, {"does not run in a scale job"}},
          {{"--write-docs=-5"}, {"got -5"}},
          {{"--hybrid-beams=100,50"}, {"a hybrid beam must be within 100 and 10000; got 50"}},
        }) {
      UsageErrors.assertUsageError(dir, bad[0], bad[1][0]);
    }
  }
}
