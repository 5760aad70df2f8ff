package org.searchlab.bench.cli;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code experiment --merge-policies}: a policy, setting or option it cannot run is a usage error
 * (exit 2) that names it, before anything is written.
 */
class MergePoliciesCommandTest {
  @Test
  void whatTheComparisonCannotRunIsAUsageErrorThatNamesIt(@TempDir Path dir) {
    for (String[][] bad :
        new String[][][] {
          {{"--merge-policies=tiered,lsm"}, {"unknown merge policy 'lsm'"}},
          {
            {"--merge-policies=tiered:segments_per_tier=4,max_segments=3"},
            {"unknown setting 'max_segments'"}
          },
          {{"--merge-policies=log-byte-size:merge_factor=1"}, {"merge_factor 1.0 is outside"}},
          {{"--merge-policies=none", "--variants=mutable"}, {"--variants do not apply"}},
          {{"--merge-policies=none", "--bulk-size=0"}, {"--bulk-size 0 is below 1"}},
          {{"--bulk-size=100"}, {"go with --merge-policies"}}
        }) {
      UsageErrors.assertUsageError(dir, bad[0], bad[1][0]);
    }
  }
}
