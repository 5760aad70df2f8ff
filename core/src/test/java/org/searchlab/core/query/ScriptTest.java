package org.searchlab.core.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.searchlab.core.InvalidRequestException;

class ScriptTest {
  private static final float[] DOC = {0.6f, 0.8f, 0f};
  private static final Map<String, Object> PARAMS =
      Map.of("query_vector", new double[] {0.0, 1.0, 0.0}, "w", 2.0);

  private static double run(String source) {
    return Script.parse(source, PARAMS)
        .evaluate(
            new Script.Context() {
              @Override
              public float[] vector(String field) {
                return field.equals("vector") ? DOC : null;
              }

              @Override
              public double score() {
                return 1.5;
              }
            });
  }

  @Test
  void equalScriptsAreEqualWhateverHoldsTheirParams() {
    String src = "cosineSimilarity(params.query_vector, 'vector') + 1.0";
    assertEquals(
        Script.parse(src, PARAMS),
        Script.parse(src, Map.of("query_vector", new long[] {0, 1, 0}, "w", 2.0)),
        "the same vector, parsed twice from different containers");
    assertNotEquals(
        Script.parse(src, PARAMS),
        Script.parse(src, Map.of("query_vector", new double[] {1.0, 0.0, 0.0})),
        "another vector");
  }

  @Test
  void langChainsScriptsEvaluate() {
    float[] q = {0f, 1f, 0f};
    assertEquals(
        VectorUtil.cosine(q, DOC) + 1.0,
        run("cosineSimilarity(params.query_vector, 'vector') + 1.0"),
        1e-9);
    assertEquals(
        1 / (1 + Math.sqrt(VectorUtil.squareDistance(q, DOC))),
        run("1 / (1 + l2norm(params.query_vector, 'vector'))"),
        1e-9);
    double dot = VectorUtil.dotProduct(q, DOC);
    assertEquals(
        1 / (1 + Math.exp(-dot)),
        run(
            "double value = dotProduct(params.query_vector, 'vector');\n"
                + "return sigmoid(1, Math.E, -value);"),
        1e-9);
    assertEquals(
        dot + 1,
        run(
            "double value = dotProduct(params['query_vector'], 'vector');"
                + " if (value < 0) { return 1 / (1 + -1 * value); } return value + 1;"),
        1e-9);
    assertEquals(3.0, run("_score * params.w"), 1e-9);
  }

  @Test
  void unsupportedScriptsAreA400NamingThePart() {
    assertThrows(InvalidRequestException.class, () -> run("doc['x'].value"));
    assertThrows(InvalidRequestException.class, () -> run("cosineSimilarity(params.nope, 'v')"));
    assertThrows(InvalidRequestException.class, () -> run("1 +"));
    assertThrows(InvalidRequestException.class, () -> run("x".repeat(5000)));
  }
}
