package org.searchlab.core.embed;

import java.util.List;

/**
 * A sentence embedding model that turns text into a unit-length vector. Implementations state their
 * thread-safety; {@link #embedAll} is the efficient path for batches.
 */
public interface Embedder extends AutoCloseable {
  /** The model's short name, as the CLI and responses show it (e.g. {@code minilm}). */
  String name();

  /** The vector dimension. */
  int dimension();

  /** The L2-normalised embedding of one text. */
  float[] embed(String text);

  /** The L2-normalised embeddings of many texts, in order. */
  List<float[]> embedAll(List<String> texts);

  /** Releases the model's native resources. */
  @Override
  void close();
}
