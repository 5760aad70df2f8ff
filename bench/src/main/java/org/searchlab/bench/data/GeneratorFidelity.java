package org.searchlab.bench.data;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.lucene.util.VectorUtil;
import org.searchlab.core.Document;
import org.searchlab.core.embed.Embedder;

/**
 * How far a {@link Grower}'s generated vectors are from what the model makes of the generated text:
 * a seeded sample of generated documents is embedded for real, and the cosine between the true and
 * the interpolated vector is summarised, beside the cosine between the true vector and the primary
 * parent's (what a copy of the parent would give). The interpolation stands for a real embedding
 * only if the first is high, and it adds something over a copy only if it beats the second.
 * Stateless.
 *
 * @param documents how many generated documents were embedded
 * @param interpolated p5, p50, p95 of cos(true, interpolated)
 * @param primary p5, p50, p95 of cos(true, primary parent's vector)
 * @param seconds the embedding's wall time
 */
record GeneratorFidelity(int documents, double[] interpolated, double[] primary, double seconds) {
  /**
   * Embeds {@code count} of the generated documents {@code base.size() … size − 1}, drawn with
   * {@code seed}.
   */
  static GeneratorFidelity measure(
      List<Document> base,
      int[][] neighbours,
      Grower params,
      int size,
      int count,
      long seed,
      Embedder embedder,
      PrintStream log) {
    GrownCorpus mixes = params.open(base, neighbours, size, seed);
    int generated = size - base.size();
    int[] picked = QuerySampler.sample(generated, Math.min(count, generated), seed + 17);
    List<Document> docs = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    for (int j : picked) {
      Document d = mixes.document(base.size() + j);
      docs.add(d);
      texts.add(DocumentEmbedder.text(d));
    }
    long start = System.nanoTime();
    List<float[]> truth = new ArrayList<>();
    for (int from = 0; from < texts.size(); from += DocumentEmbedder.BATCH) {
      truth.addAll(
          embedder.embedAll(
              texts.subList(from, Math.min(texts.size(), from + DocumentEmbedder.BATCH))));
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    double[] toMix = new double[docs.size()];
    double[] toPrimary = new double[docs.size()];
    for (int i = 0; i < docs.size(); i++) {
      int j = base.size() + picked[i];
      toMix[i] = VectorUtil.dotProduct(truth.get(i), docs.get(i).embedding());
      toPrimary[i] = VectorUtil.dotProduct(truth.get(i), base.get(mixes.primary(j)).embedding());
    }
    GeneratorFidelity f =
        new GeneratorFidelity(docs.size(), spread(toMix), spread(toPrimary), seconds);
    log.println("fidelity: " + f.line());
    return f;
  }

  private static double[] spread(double[] v) {
    return new double[] {
      NeighbourStats.quantile(v, 0.05),
      NeighbourStats.quantile(v, 0.5),
      NeighbourStats.quantile(v, 0.95)
    };
  }

  /** One line for the log and the table's footnote. */
  String line() {
    return String.format(
        Locale.ROOT,
        "%d generated documents embedded in %.0f s: cos(true, interpolated) p5/p50/p95"
            + " %.3f/%.3f/%.3f; cos(true, primary parent) %.3f/%.3f/%.3f",
        documents,
        seconds,
        interpolated[0],
        interpolated[1],
        interpolated[2],
        primary[0],
        primary[1],
        primary[2]);
  }
}
