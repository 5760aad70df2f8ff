package org.searchlab.bench.hnsw;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.lucene.util.VectorUtil;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The document and query vectors of one benchmark run, and their exact top-k by dot product.
 * Immutable after construction.
 *
 * @param docs unit document vectors; document i has node id / Lucene doc i
 * @param queries unit query vectors
 */
record BenchVectors(float[][] docs, float[][] queries) {

  /**
   * Seeded synthetic vectors: documents from {@link SyntheticCorpus} (clustered unit vectors). With
   * {@code documentQueries} a query is the vector of a randomly drawn document, as in the reference
   * benchmark (a product's own embedding); otherwise the corpus's {@code randomQueryVector} (near a
   * cluster centre, not a document).
   */
  static BenchVectors synthetic(
      long seed, int docs, int queries, int dim, boolean documentQueries) {
    SyntheticCorpus corpus = new SyntheticCorpus(seed, dim);
    float[][] d = new float[docs][];
    IntStream.range(0, docs).parallel().forEach(i -> d[i] = corpus.document(i).embedding());
    SplittableRandom r = new SplittableRandom(seed ^ 0xC0FFEEL);
    float[][] q = new float[queries][];
    for (int i = 0; i < queries; i++) {
      q[i] = documentQueries ? d[r.nextInt(docs)] : corpus.randomQueryVector(r);
    }
    return new BenchVectors(d, q);
  }

  /**
   * Seeded vectors of low intrinsic dimension, closer to text embeddings than isotropic noise:
   * points are drawn around {@code clusters} centres in a {@code latentDim}-dimensional space,
   * mapped to {@code dim} dimensions by one fixed random linear map, plus a little isotropic noise,
   * and normalised. Queries are drawn the same way (not documents).
   */
  static BenchVectors lowRank(long seed, int docs, int queries, int dim, int latentDim) {
    SplittableRandom r = new SplittableRandom(seed);
    float[][] map = new float[latentDim][dim];
    for (float[] row : map) {
      for (int j = 0; j < dim; j++) {
        row[j] = (float) (gaussian(r) / Math.sqrt(dim));
      }
    }
    int clusters = 64;
    float[][] centres = new float[clusters][latentDim];
    for (float[] c : centres) {
      for (int j = 0; j < latentDim; j++) {
        c[j] = (float) gaussian(r);
      }
    }
    float[][] d = new float[docs][];
    for (int i = 0; i < docs; i++) {
      d[i] = lowRankPoint(r, map, centres, dim);
    }
    float[][] q = new float[queries][];
    for (int i = 0; i < queries; i++) {
      q[i] = lowRankPoint(r, map, centres, dim);
    }
    return new BenchVectors(d, q);
  }

  private static float[] lowRankPoint(
      SplittableRandom r, float[][] map, float[][] centres, int dim) {
    float[] c = centres[r.nextInt(centres.length)];
    float[] v = new float[dim];
    for (int k = 0; k < c.length; k++) {
      float z = (float) (c[k] + 0.7 * gaussian(r));
      float[] row = map[k];
      for (int j = 0; j < dim; j++) {
        v[j] += z * row[j];
      }
    }
    for (int j = 0; j < dim; j++) {
      v[j] += (float) (0.05 * gaussian(r) / Math.sqrt(dim));
    }
    return VectorUtil.l2normalize(v);
  }

  private static double gaussian(SplittableRandom r) {
    double u = 1 - r.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.nextDouble());
  }

  /**
   * Reads an {@code .fvecs} file (per vector: little-endian int dimension, then that many
   * little-endian floats): the first {@code docs} vectors are documents, the next {@code queries}
   * are queries. Vectors are normalised to unit length (dot product needs it).
   */
  static BenchVectors fvecs(Path file, int docs, int queries) throws IOException {
    float[][] all = new float[docs + queries][];
    int n = 0;
    try (InputStream is = Files.newInputStream(file);
        DataInputStream in = new DataInputStream(new BufferedInputStream(is, 1 << 20))) {
      byte[] header = new byte[4];
      while (n < all.length) {
        try {
          in.readFully(header);
        } catch (EOFException e) {
          break;
        }
        int dim = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getInt();
        byte[] body = new byte[4 * dim];
        in.readFully(body);
        float[] v = new float[dim];
        ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(v);
        all[n++] = VectorUtil.l2normalize(v);
      }
    }
    if (n < docs + queries) {
      throw new IOException(
          file + " holds " + n + " vectors, fewer than docs + queries = " + (docs + queries));
    }
    float[][] d = new float[docs][];
    float[][] q = new float[queries][];
    System.arraycopy(all, 0, d, 0, docs);
    System.arraycopy(all, docs, q, 0, queries);
    return new BenchVectors(d, q);
  }

  int dimension() {
    return docs[0].length;
  }

  /** For each query, the exact dot product of its k-th best document (the tie-aware bar). */
  float[] kthBestScores(int k) {
    float[] out = new float[queries.length];
    IntStream.range(0, queries.length)
        .parallel()
        .forEach(
            q -> {
              float[] best = new float[k];
              java.util.Arrays.fill(best, Float.NEGATIVE_INFINITY);
              for (float[] doc : docs) {
                float s = VectorUtil.dotProduct(queries[q], doc);
                if (s > best[0]) {
                  best[0] = s;
                  java.util.Arrays.sort(best);
                }
              }
              out[q] = best[0];
            });
    return out;
  }

  /**
   * Tie-aware recall@k of one result: a hit counts when its exact dot product reaches the exact
   * k-th best (within float rounding), so equally close duplicates are all correct.
   */
  double recall(int query, int[] docIds, float kthBest, int k) {
    int good = 0;
    for (int i = 0; i < Math.min(k, docIds.length); i++) {
      if (VectorUtil.dotProduct(queries[query], docs[docIds[i]]) >= kthBest - 1e-5f) {
        good++;
      }
    }
    return good / (double) k;
  }
}
