package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.VectorQuantization;
import org.searchlab.segmented.Slicing;

/** The experiment's quantization: floats unless asked, and then one serve flag. */
class ServerOptionsTest {
  @Test
  void floatsAddNoFlagAndInt8AddsOne() {
    for (String store : List.of("mutable", "segmented")) {
      assertFalse(ServerOptions.defaults(store, 8).flags().contains("--quantization"), store);
      List<String> f =
          ServerOptions.defaults(store, 8).toBuilder()
              .quantization(VectorQuantization.INT8)
              .build()
              .flags();
      assertEquals("int8", f.get(f.indexOf("--quantization") + 1), store);
    }
  }

  @Test
  void inlineCodesAreAFlagOfTheMutableStoreOnly() {
    ServerOptions.Builder b =
        ServerOptions.defaults("mutable", 8).toBuilder()
            .quantization(VectorQuantization.BBQ)
            .inlineCodes(true);
    assertTrue(b.build().flags().contains("--inline-codes"), b.build().flags().toString());
    assertFalse(
        b.store("segmented").build().flags().contains("--inline-codes"),
        "the segmented store has no such flag");
    assertFalse(ServerOptions.defaults("mutable", 8).flags().contains("--inline-codes"));
  }

  @Test
  void slicingIsAFlagOfTheSegmentedStoreOnly() {
    ServerOptions conc =
        ServerOptions.defaults("segmented", 8).toBuilder().slicing(Slicing.PARTITIONS).build();
    assertTrue(conc.flags().contains("--slicing=partitions"), conc.flags().toString());
    assertFalse(
        ServerOptions.defaults("segmented", 8).flags().stream()
            .anyMatch(f -> f.startsWith("--slicing")));
    assertFalse(
        ServerOptions.defaults("mutable", 8).toBuilder()
            .slicing(Slicing.PARTITIONS)
            .build()
            .flags()
            .stream()
            .anyMatch(f -> f.startsWith("--slicing")));
    List<String> seq =
        SweepSetting.SEQUENTIAL.options(ServerOptions.defaults("segmented", 8)).flags();
    assertTrue(seq.contains("--segment-search-threads=0"), seq.toString());
  }

  @Test
  void theFeedNicenessIsAFlagOnlyWhenTheProfileSetsOne() {
    for (String store : List.of("mutable", "segmented")) {
      assertFalse(
          ServerOptions.defaults(store, 8).flags().stream()
              .anyMatch(f -> f.startsWith("--feed-niceness")),
          store + " keeps its own niceness");
      List<String> f =
          ServerOptions.defaults(store, 8).toBuilder().feedNiceness(0.0).build().flags();
      assertTrue(f.contains("--feed-niceness=0.0"), f.toString());
    }
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> Profile.quick().toBuilder().serverFeedNiceness(1.5).build());
    assertEquals("the servers' feed niceness must be within 0.0 and 1.0; got 1.5", e.getMessage());
  }

  /**
   * A server restarted by the memory probe gets the flags the runner first started it with: the
   * variant's vectors, the 1-bit codes' inline rows and the profile's feed niceness (the probe once
   * restarted the inline variant without its rows).
   */
  @Test
  void aRestartedServerHasTheFlagsOfItsFirstStart(@TempDir Path dir) throws Exception {
    Profile p = Profile.quick().toBuilder().serverFeedNiceness(0.0).build();
    RunContext ctx = new RunContext(p, dir, null, null, null, null, 0, null);
    Corpus corpus = Corpus.synthetic(1, 20, 8, 2);
    for (Variant v :
        List.of(
            Variant.MUTABLE, Variant.MUTABLE_BBQ_INLINE, Variant.SEGMENTED, Variant.MUTABLE_INT4)) {
      List<String> restart = RestartProbe.launchOf(ctx, corpus, v).options().flags();
      assertEquals(Servers.optionsOf(ctx, corpus, v).flags(), restart, v.label());
      assertTrue(restart.contains("--feed-niceness=0.0"), v.label() + ": " + restart);
      assertEquals(v == Variant.MUTABLE_BBQ_INLINE, restart.contains("--inline-codes"), v.label());
    }
  }

  @Test
  void everyProfileMeasuresFloatsByDefault() {
    for (String name : List.of("quick", "standard", "full", "grid", "sweep")) {
      assertEquals(VectorQuantization.NONE, Profile.named(name).quantization(), name);
    }
  }
}
