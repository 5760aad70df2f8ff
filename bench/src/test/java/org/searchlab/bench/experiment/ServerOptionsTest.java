package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.searchlab.core.VectorQuantization;

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
  void everyProfileMeasuresFloatsByDefault() {
    for (String name : List.of("quick", "standard", "full", "grid")) {
      assertEquals(VectorQuantization.NONE, Profile.named(name).quantization(), name);
    }
  }
}
