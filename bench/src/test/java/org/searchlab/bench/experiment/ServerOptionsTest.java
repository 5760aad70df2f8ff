package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
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
  void everyProfileMeasuresFloatsByDefault() {
    for (String name : List.of("quick", "standard", "full", "grid", "sweep")) {
      assertEquals(VectorQuantization.NONE, Profile.named(name).quantization(), name);
    }
  }
}
