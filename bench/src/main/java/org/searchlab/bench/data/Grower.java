package org.searchlab.bench.data;

import java.util.List;
import org.searchlab.core.Document;

/**
 * A way of growing a real base corpus of embedded documents to any size (issue 68's 1M corpus):
 * documents {@code 0 … B−1} are the base, and every later one is made from a primary base document
 * and some of its nearest base neighbours, so that document {@code i} depends only on the seed, the
 * base, the neighbours, the settings and {@code i}. {@link NeighbourMixes} and {@link TangentSteps}
 * are the two; {@code dataset validate-generator} compares them on held-out real documents.
 * Implementations are immutable settings; the corpora they open are iterators for one thread.
 */
sealed interface Grower permits NeighbourMixes.Params, TangentSteps.Params {
  /** How many nearest base neighbours per base document the generator reads. */
  int neighbours();

  /** Whether this is a control the test expects to fail rather than a candidate to choose. */
  boolean control();

  /** The corpus of {@code count} documents, base included, grown from {@code base}. */
  GrownCorpus open(List<Document> base, int[][] neighbours, int count, long seed);
}
