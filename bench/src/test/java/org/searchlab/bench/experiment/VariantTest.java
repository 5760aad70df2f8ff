package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Parsing of {@code --variants} labels and {@code --target} specifications, and overlap pairs. */
class VariantTest {
  @Test
  void builtInLabelsParseToTheirConstants() {
    for (Variant v : Variant.BUILT_IN) {
      assertSame(v, Variant.parse(" " + v.label().toUpperCase(java.util.Locale.ROOT) + " "));
    }
    assertTrue(Variant.OPENSEARCH.elasticsearchDialect());
    assertFalse(Variant.MUTABLE.elasticsearchDialect());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Variant.parse("elastic"));
    assertTrue(e.getMessage().contains("'elastic'") && e.getMessage().contains("opensearch"));
  }

  /**
   * The segmented store's 4-bit and 1-bit variants, named as the int8 ones, pair with their
   * force-merged copies: a pair is fed once.
   */
  @Test
  void int4AndBbqVariantsAreTheSegmentedStoresWithTheirPairs() {
    org.searchlab.core.VectorQuantization int4 = org.searchlab.core.VectorQuantization.INT4;
    org.searchlab.core.VectorQuantization bbq = org.searchlab.core.VectorQuantization.BBQ;
    assertEquals(int4, Variant.parse("segmented-int4").quantization());
    assertEquals(int4, Variant.parse("segmented-forcemerged-int4").quantization());
    assertEquals(bbq, Variant.parse("segmented-bbq").quantization());
    assertEquals(bbq, Variant.parse("segmented-forcemerged-bbq").quantization());
    for (Variant v :
        List.of(
            Variant.SEGMENTED_INT4,
            Variant.SEGMENTED_FORCEMERGED_INT4,
            Variant.SEGMENTED_BBQ,
            Variant.SEGMENTED_FORCEMERGED_BBQ)) {
      assertEquals(Variant.SEGMENTED_STORE, v.store(), v.label());
      assertTrue(v.elasticsearchDialect(), v.label());
      assertEquals(v.label().contains("forcemerged"), v.forceMerged(), v.label());
    }
    assertTrue(
        Servers.SEGMENTED_PAIRS.contains(
            List.of(Variant.SEGMENTED_INT4, Variant.SEGMENTED_FORCEMERGED_INT4)));
    assertTrue(
        Servers.SEGMENTED_PAIRS.contains(
            List.of(Variant.SEGMENTED_BBQ, Variant.SEGMENTED_FORCEMERGED_BBQ)));
    assertEquals(
        2,
        Servers.feeds(
            List.of(
                Variant.SEGMENTED_INT4,
                Variant.SEGMENTED_FORCEMERGED_INT4,
                Variant.SEGMENTED_BBQ,
                Variant.SEGMENTED_FORCEMERGED_BBQ)));
  }

  /** The mutable store's 1-bit variant with the neighbours' codes inline is its own server. */
  @Test
  void theInlineVariantIsTheMutableStoreOverOneBitCodes() {
    Variant v = Variant.parse("mutable-bbq-inline");
    assertEquals(Variant.MUTABLE_BBQ_INLINE, v);
    assertEquals(Variant.MUTABLE_STORE, v.store());
    assertEquals(org.searchlab.core.VectorQuantization.BBQ, v.quantization());
    assertEquals(2, Servers.feeds(List.of(Variant.MUTABLE_BBQ, Variant.MUTABLE_BBQ_INLINE)));
  }

  /** The mutable store's 4-bit variant is its own server. */
  @Test
  void theInt4VariantIsTheMutableStoreOverFourBitCodes() {
    Variant v = Variant.parse("mutable-int4");
    assertEquals(Variant.MUTABLE_INT4, v);
    assertEquals(Variant.MUTABLE_STORE, v.store());
    assertEquals(org.searchlab.core.VectorQuantization.INT4, v.quantization());
    assertEquals(2, Servers.feeds(List.of(Variant.MUTABLE_INT4, Variant.MUTABLE_BBQ)));
  }

  @Test
  void int8VariantsAreSearchlabStoresOnly() {
    assertEquals(
        org.searchlab.core.VectorQuantization.INT8, Variant.parse("mutable-int8").quantization());
    assertEquals(org.searchlab.core.VectorQuantization.NONE, Variant.MUTABLE.quantization());
    assertTrue(Variant.SEGMENTED_FORCEMERGED_INT8.forceMerged());
    assertTrue(Variant.SEGMENTED_INT8.elasticsearchDialect());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new Variant(
                "os-int8",
                Variant.OPENSEARCH_STORE,
                false,
                null,
                org.searchlab.core.VectorQuantization.INT8));
  }

  @Test
  void targetsParseNameUrlAndDialect() {
    Variant es = Variant.parseTarget("prod=http://es.example:9200");
    assertEquals("prod", es.label());
    assertEquals(URI.create("http://es.example:9200"), es.target().uri());
    assertEquals("es", es.target().dialect());
    assertTrue(es.isTarget() && es.elasticsearchDialect() && !es.forceMerged());

    Variant vespa = Variant.parseTarget("v-1=https://vespa.example:8080,dialect=vespa");
    assertEquals("vespa", vespa.target().dialect());
    assertFalse(vespa.elasticsearchDialect());
  }

  @Test
  void badTargetsAreRejectedNamingTheValue() {
    for (String[] bad :
        new String[][] {
          {"http://host:9200", "NAME=URL"},
          {"Prod=http://host:9200", "'Prod'"},
          {"segmented=http://host:9200", "built-in"},
          {"x=ftp://host", "'ftp://host'"},
          {"x=http://host,dialect=solr", "'solr'"},
          {"x=http://host,shards=2", "'shards=2'"},
        }) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> Variant.parseTarget(bad[0]), bad[0]);
      assertTrue(e.getMessage().contains(bad[1]), e.getMessage() + " should name " + bad[1]);
    }
  }

  @Test
  void enginesAreComparedWithTheSegmentedStoreOfTheirLayout() {
    Variant t = Variant.parseTarget("t=http://host:9200");
    List<List<String>> pairs =
        PairedRounds.pairs(
            List.of(
                Variant.MUTABLE,
                Variant.SEGMENTED,
                Variant.SEGMENTED_FORCEMERGED,
                Variant.OPENSEARCH,
                Variant.OPENSEARCH_FORCEMERGED,
                t));
    assertEquals(
        List.of(
            List.of("segmented", "mutable"),
            List.of("segmented-forcemerged", "mutable"),
            List.of("mutable", "segmented"),
            List.of("opensearch", "segmented"),
            List.of("opensearch-forcemerged", "segmented-forcemerged"),
            List.of("t", "segmented")),
        pairs);
    assertEquals(
        List.of(List.of("opensearch", "mutable")),
        PairedRounds.pairs(List.of(Variant.MUTABLE, Variant.OPENSEARCH)));
  }
}
