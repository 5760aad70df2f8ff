package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The profiles' components: the defaults keep what every run before issue 68 had (facets, every
 * document rewritten, the same-client feed, the hybrid grid, one heap), {@code full} is the 1M run
 * of design-68 §2.1, and a value a run cannot use fails when the profile is built, naming it.
 */
class ProfileTest {
  @Test
  void theDefaultProfilesKeepEveryPhaseAndOneHeap() {
    for (Profile p : List.of(Profile.quick(), Profile.standard(), Profile.sweep())) {
      assertTrue(p.facets(), p.name());
      assertEquals(0, p.writeDocs(), p.name());
      assertEquals(12_345, p.writeDocsOf(12_345), p.name());
      assertTrue(p.sameClientFeed(), p.name());
      assertEquals(Calibration.HYBRID_GRID, p.hybridBeams(), p.name());
      assertEquals(List.of(), p.scaleSizes(), p.name());
      assertEquals(ServerHeaps.uniform(p.serverHeap()), p.heaps(), p.name());
    }
    assertEquals("3g", Profile.standard().heaps().of(Variant.MUTABLE_STORE));
    assertEquals("1g", Profile.quick().heaps().of(Variant.SEGMENTED_STORE));
    // A uniform heap follows the server heap a copy is given.
    assertEquals(
        ServerHeaps.uniform("5g"), Profile.standard().toBuilder().serverHeap("5g").build().heaps());
  }

  @Test
  void fullIsTheMillionDocumentRunThatFitsOneSitting() {
    Profile p = Profile.full();
    assertEquals(1_000_000, p.docs());
    assertEquals(List.of(1, 4, 16, 64), p.clients());
    assertEquals(List.of(1, 16, 64), p.refeedClients());
    assertEquals(Duration.ofMillis(500), p.warmup());
    assertEquals(Duration.ofSeconds(2), p.duration());
    assertEquals(6, p.rounds());
    assertEquals(List.of(0.95), p.recallTargets());
    assertEquals(
        List.of(10, 20, 30, 40, 60, 100, 150, 200, 300, 400, 600, 800, 1200, 1600, 2400, 3200),
        p.vectorBeams());
    assertEquals(2_000, p.queryCount());
    assertEquals(500, p.recallQueries());
    assertEquals(500, p.calibrationQueries());
    assertEquals(1, p.feeds());
    assertFalse(p.sameClientFeed());
    assertFalse(p.facets());
    assertEquals(0, p.sweepDocs());
    assertEquals(0, p.gridDocs());
    assertEquals(200_000, p.writeDocs());
    assertEquals(200_000, p.writeDocsOf(1_000_000));
    assertEquals(50_000, p.writeDocsOf(50_000), "never more than the corpus");
    assertEquals("6g", p.heaps().of(Variant.MUTABLE_STORE));
    assertEquals("2g", p.heaps().of(Variant.SEGMENTED_STORE));
    assertEquals("2g", p.heaps().of(Variant.OPENSEARCH_STORE));
    assertTrue(p.mainPhases());
    // Per-store heaps survive a copy with another server heap.
    assertEquals(p.heaps(), p.toBuilder().serverHeap("4g").build().heaps());
    // Without faceted cells and without the same-client feed, the plan has none of them.
    assertEquals(0, FacetedRounds.cells(p, 3));
    assertEquals(0, FacetedRounds.checks(p, 3));
    assertEquals(
        0, Servers.extraFeeds(p, List.of(Variant.MUTABLE, Variant.SEGMENTED)), "one feed each");
    assertEquals(
        1,
        Servers.extraFeeds(Profile.quick(), List.of(Variant.MUTABLE, Variant.SEGMENTED)),
        "quick keeps the same-client feed");
  }

  @Test
  void scaleIsStandardAtSixteenClientsThroughThreeSizes() {
    Profile p = Profile.named("scale");
    assertEquals("scale", p.name());
    assertEquals(List.of(100_000, 300_000, 1_000_000), p.scaleSizes());
    assertEquals(1_000_000, p.docs(), "the corpus is the largest size");
    assertEquals(16, p.scaleClients());
    assertEquals(List.of(16), p.clients());
    assertEquals(6, p.rounds());
    assertEquals(Duration.ofMillis(500), p.warmup());
    assertEquals(Duration.ofSeconds(2), p.duration());
    assertEquals(Profile.FULL_VECTOR_BEAMS, p.vectorBeams());
    assertEquals(List.of(0.95), p.recallTargets());
    assertEquals(List.of(QueryType.values()), p.scaleTypes());
    assertFalse(p.facets());
    assertFalse(p.sameClientFeed());
    assertEquals(0, p.sweepDocs());
    assertEquals(1, p.feeds());
    assertEquals("6g", p.heaps().of(Variant.MUTABLE_STORE));
    // The rest is standard's.
    assertEquals(Profile.standard().recallQueries() / 2, p.recallQueries());
    assertEquals(Profile.standard().queryCount(), p.queryCount());
  }

  @Test
  void valuesARunCannotUseFailNamingThem() {
    assertRefused(b -> b.hybridBeams(List.of(50, 100)), "a hybrid beam must be within 100 and");
    assertRefused(b -> b.hybridBeams(List.of(200, 100)), "hybrid beams must be strictly ascending");
    assertRefused(b -> b.hybridBeams(List.of()), "at least one hybrid beam");
    assertRefused(b -> b.vectorBeams(List.of(10, 10)), "vector beams must be strictly ascending");
    assertRefused(b -> b.writeDocs(-1), "write documents must be 0 (all) or more; got -1");
    assertRefused(b -> b.scaleSizes(List.of(100_000)), "at least two sizes");
    assertRefused(b -> b.scaleSizes(List.of(999, 2_000)), "1000 documents or more; got 999");
    assertRefused(
        b -> b.scaleSizes(List.of(4_000, 2_000)), "strictly ascending; got 2000 after 4000");
    assertRefused(b -> b.scaleClients(0), "scale clients must be 1 or more; got 0");
    assertRefused(b -> b.scaleTypes(List.of()), "one or more distinct query types");
    assertRefused(
        b -> b.heaps(new ServerHeaps("7 GB", "2g", "2g")), "such as 2g or 512m; got '7 GB'");
    Profile ok = Profile.quick().toBuilder().scaleSizes(List.of(2_000, 4_000, 8_000)).build();
    assertEquals(List.of(2_000, 4_000, 8_000), ok.scaleSizes());
    assertEquals(16, ok.scaleClients());
  }

  private static void assertRefused(UnaryOperator<Profile.Builder> change, String message) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> change.apply(Profile.quick().toBuilder()).build());
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }
}
