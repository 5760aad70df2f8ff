package org.searchlab.bench.data;

/** {@link GroundTruth} held in arrays. Immutable and thread-safe (arrays are copied out). */
record ArrayGroundTruth(int[][] neighborArrays, float[][] scoreArrays) implements GroundTruth {
  @Override
  public int queries() {
    return neighborArrays.length;
  }

  @Override
  public int[] neighbors(int query) {
    return neighborArrays[query].clone();
  }

  @Override
  public float[] scores(int query) {
    return scoreArrays[query].clone();
  }
}
