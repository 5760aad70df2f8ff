package org.searchlab.mutable.hnsw;

/**
 * A query bound for estimates against the codes a quantized graph walks with its own codes: 1-bit
 * ({@link BinaryCodes.Query}) or 4-bit ({@link Int4Codes.Query}). Each estimate comes with a
 * confidence bound, which the searcher's rerank uses to decide how deep to take the beam's nodes
 * before it brackets them by their int8 codes and rescores the survivors by their floats.
 *
 * <p>Thread-safety: one per searcher thread; {@link #bind} rewrites it.
 */
interface CodeQuery {
  /** Makes this the code of {@code q} (rotated and rounded as the codes were). */
  void bind(float[] q);

  /** The estimated dot product of the bound query and the vector {@code code} stands for. */
  float dot(byte[] code);

  /** The estimated squared distance: {@code ‖q‖² + ‖o‖² − 2·}{@link #dot}. */
  float squareDistance(byte[] code);

  /**
   * How far {@link #dot} may be from the float dot product, at confidence {@code epsilon} standard
   * deviations of the estimate's error.
   */
  float bound(byte[] code, float epsilon);

  /** The bound of {@link #squareDistance}: twice {@link #bound}. */
  float squareDistanceBound(byte[] code, float epsilon);

  /** Bytes of a stored code of {@code dimension} components (the searcher touches its lines). */
  int codeLength();
}
