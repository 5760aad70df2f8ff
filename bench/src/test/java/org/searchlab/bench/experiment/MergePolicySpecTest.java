package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.segmented.MergePolicyType;

/** Parsing {@code --merge-policies}: names, settings, their checks and their serve flags. */
class MergePolicySpecTest {
  @Test
  void parsesPoliciesAndTheirSettings() {
    List<MergePolicySpec> specs =
        MergePolicySpec.parseList(
            "tiered,tiered:segments_per_tier=4,max_merged_segment=512mb,log-byte-size:merge_factor=5,none");
    assertEquals(4, specs.size());
    assertEquals("tiered", specs.get(0).label());
    assertEquals(MergePolicyType.TIERED, specs.get(1).policy());
    assertEquals(
        Map.of("segments_per_tier", "4", "max_merged_segment", "512mb"), specs.get(1).settings());
    assertEquals("tiered:segments_per_tier=4,max_merged_segment=512mb", specs.get(1).label());
    assertEquals(
        List.of(
            "--merge-policy", "tiered", "--segments-per-tier=4.0", "--max-merged-segment-mb=512.0"),
        specs.get(1).serveFlags());
    assertEquals(
        List.of("--merge-policy", "log-byte-size", "--max-merge-at-once=5"),
        specs.get(2).serveFlags());
    assertTrue(specs.get(3).forceMerges());
    assertFalse(specs.get(0).forceMerges());
    assertEquals(
        "policy-tiered_segments_per_tier_4_max_merged_segment_512mb", specs.get(1).directoryName());
  }

  @Test
  void sizesAreElasticsearchByteSizes() {
    assertEquals(5 * 1024.0, MergePolicySpec.megabytes("5gb"), 1e-9);
    assertEquals(2.0, MergePolicySpec.megabytes("2MB"), 1e-9);
    assertEquals(0.5, MergePolicySpec.megabytes("512kb"), 1e-9);
    assertEquals(1.0, MergePolicySpec.megabytes("1048576"), 1e-9);
    assertEquals(1.0, MergePolicySpec.megabytes("1048576b"), 1e-9);
  }

  @Test
  void refusesUnknownNamesKeysAndValuesNamingThem() {
    IllegalArgumentException name =
        assertThrows(IllegalArgumentException.class, () -> MergePolicySpec.parseList("tiered,lsm"));
    assertTrue(name.getMessage().contains("'lsm'"), name.getMessage());
    assertTrue(name.getMessage().contains("log-byte-size"), name.getMessage());

    IllegalArgumentException key =
        assertThrows(
            IllegalArgumentException.class,
            () -> MergePolicySpec.parseList("log-byte-size:segments_per_tier=4"));
    assertTrue(key.getMessage().contains("'segments_per_tier'"), key.getMessage());
    assertTrue(key.getMessage().contains("merge_factor"), key.getMessage());

    IllegalArgumentException none =
        assertThrows(
            IllegalArgumentException.class, () -> MergePolicySpec.parseList("none:merge_factor=3"));
    assertTrue(none.getMessage().contains("takes none"), none.getMessage());

    IllegalArgumentException range =
        assertThrows(
            IllegalArgumentException.class,
            () -> MergePolicySpec.parseList("tiered:segments_per_tier=1"));
    assertTrue(range.getMessage().contains("segments_per_tier 1.0 is outside"), range.getMessage());

    IllegalArgumentException nan =
        assertThrows(
            IllegalArgumentException.class,
            () -> MergePolicySpec.parseList("tiered:floor_segment=big"));
    assertTrue(nan.getMessage().contains("floor_segment='big'"), nan.getMessage());

    for (String bad :
        List.of("", "tiered,,none", "segments_per_tier=4,tiered", "tiered:segments_per_tier")) {
      assertThrows(IllegalArgumentException.class, () -> MergePolicySpec.parseList(bad), bad);
    }
    IllegalArgumentException twice =
        assertThrows(IllegalArgumentException.class, () -> MergePolicySpec.parseList("none,none"));
    assertTrue(twice.getMessage().contains("twice"), twice.getMessage());
  }

  @Test
  void serverOptionsCarryThePolicyFlagsForTheSegmentedStoreOnly() {
    List<String> flags =
        MergePolicySpec.parseList("tiered:segments_per_tier=3").get(0).serveFlags();
    List<String> seg =
        ServerOptions.defaults("segmented", 8).toBuilder().mergePolicyFlags(flags).build().flags();
    assertTrue(seg.containsAll(flags), seg.toString());
    List<String> mut =
        ServerOptions.defaults("mutable", 8).toBuilder().mergePolicyFlags(flags).build().flags();
    assertFalse(mut.contains("--merge-policy"), mut.toString());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            ServerOptions.defaults("segmented", 8).toBuilder()
                .mergePolicyNone(true)
                .mergePolicyFlags(flags)
                .build());
  }
}
