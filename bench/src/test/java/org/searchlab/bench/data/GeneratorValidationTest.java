package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.testing.TestSeeds;

/**
 * The held-out scale-up test end to end on a small corpus: 1,500- and 2,000-document bases of a
 * 2,600-document clustered corpus, grown by one mix setting, one tangent-step setting, σ-variants,
 * and the held-out documents, whose distances to the real corpus must be exactly 0.
 */
class GeneratorValidationTest {
  @Test
  void aSmallBaseGrownByEachCandidateIsComparedWithTheRealCorpus() {
    long seed = TestSeeds.seed("GeneratorValidationTest");
    List<Document> real = NeighbourMixesTest.base(2_600, seed);
    List<GeneratorValidation.Candidate> candidates =
        List.of(
            new GeneratorValidation.Grown(new NeighbourMixes.Params(3, 10, 1)),
            new GeneratorValidation.Grown(new TangentSteps.Params(10, 1.5, 0.2, 0.7, 3)),
            new GeneratorValidation.Variants(0.001),
            new GeneratorValidation.HeldOut());
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<GeneratorValidation.Row> rows =
        GeneratorValidation.run(
            real,
            new int[] {1_500, 2_000},
            candidates,
            200,
            seed,
            2,
            new PrintStream(log, true, StandardCharsets.UTF_8));
    assertEquals(8, rows.size());
    GeneratorValidation.Row variants = rows.get(6);
    GeneratorValidation.Row check = rows.get(7);
    for (double ks : check.ks()) {
      // The same dot products, up to the last bit that JIT tiers may sum differently (one query).
      assertTrue(ks <= 1.0 / 200, "the held-out real documents are the real corpus: KS " + ks);
    }
    assertEquals(check.realNearCopy(), check.nearCopy(), 0);
    assertEquals(check.realHapax(), check.hapax(), 0);
    assertEquals(check.realQueryPostings(), check.queryPostings(), 0);
    for (GeneratorValidation.Row r : rows) {
      assertEquals(rows.indexOf(r) < 4 ? 1_500 : 2_000, r.base());
      assertEquals(2_600, r.size());
      for (double ks : r.ks()) {
        assertTrue(ks >= 0 && ks <= 1, r.candidate().name() + " KS " + ks);
      }
    }
    // σ = 0.001 puts copies at cosine ≈ 1 beside 30% of the base: near-copies the real corpus has
    // not got, which is what the KS of the 1st-neighbour distance must catch.
    assertTrue(variants.nearCopy() > variants.realNearCopy() + 0.1, "near " + variants.nearCopy());
    assertTrue(variants.ks()[0] > 0.1, "KS 1st " + variants.ks()[0]);
    // The chosen setting is the generator whose worst KS over both bases is the smaller.
    double mixesWorst = Math.max(rows.get(0).worst(), rows.get(4).worst());
    double stepsWorst = Math.max(rows.get(1).worst(), rows.get(5).worst());
    GeneratorValidation.Row chosen = GeneratorValidation.chosen(rows);
    assertEquals(
        mixesWorst <= stepsWorst ? "mixes m=3 K=10 α=1.0" : "steps v2 K=10 c=1.5 γ=0.2 j=0.7",
        chosen.candidate().name());
    assertEquals(Math.min(mixesWorst, stepsWorst), chosen.worst(), 0);
    String table = GeneratorValidation.markdown(rows);
    assertTrue(table.contains("held-out real documents (check)"), table);
    assertTrue(log.toString(StandardCharsets.UTF_8).contains("worst KS"));
  }
}
