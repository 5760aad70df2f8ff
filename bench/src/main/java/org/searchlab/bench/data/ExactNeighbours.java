package org.searchlab.bench.data;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.searchlab.testing.ExactCorpus;
import org.searchlab.testing.TopK;

/**
 * Exact top-k by dot product of some query vectors over a corpus of unit vectors, each query
 * excluding one ordinal (its own document): the brute-force kernel of the realism statistics and of
 * the generator's base neighbours. Built on {@link ExactCorpus#scanDot} (Lucene's SIMD dot product)
 * with the same blocks and tiles as {@link GroundTruthBuilder}, so the corpus streams (from a file
 * at 1M documents) while the queries and their heaps stay in memory. Stateless and thread-safe;
 * each call uses its own pool.
 */
final class ExactNeighbours {
  /** Per query, best-first ordinals and dot products, the excluded ordinal left out. */
  record Result(int[][] neighbours, float[][] scores) {}

  private ExactNeighbours() {}

  /**
   * The exact top-{@code k} of each query.
   *
   * @param corpus the corpus vectors in ordinal order; exactly {@code n} of them
   * @param queries the query vectors
   * @param exclude per query, the ordinal never returned (its own document), or −1
   * @param k neighbours kept, 1 or more
   * @param threads 1 or more
   */
  static Result topK(
      Iterator<float[]> corpus, int n, float[][] queries, int[] exclude, int k, int threads) {
    if (k < 1 || threads < 1 || exclude.length != queries.length) {
      throw new IllegalArgumentException(
          "k " + k + ", threads " + threads + ", " + exclude.length + " exclusions");
    }
    int nq = queries.length;
    TopK[] top = new TopK[nq];
    for (int q = 0; q < nq; q++) {
      top[q] = new TopK(k);
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      float[][] block = new float[Math.min(GroundTruthBuilder.BLOCK, Math.max(n, 1))][];
      for (int base = 0; base < n; base += GroundTruthBuilder.BLOCK) {
        int count = Math.min(GroundTruthBuilder.BLOCK, n - base);
        for (int i = 0; i < count; i++) {
          block[i] = corpus.next();
        }
        int blockBase = base;
        List<Future<?>> tasks = new ArrayList<>();
        int per = (nq + threads - 1) / threads;
        for (int from = 0; from < nq; from += per) {
          int lo = from;
          int hi = Math.min(nq, from + per);
          tasks.add(
              pool.submit(() -> scan(block, count, blockBase, queries, exclude, lo, hi, top)));
        }
        for (Future<?> f : tasks) {
          f.get();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while scanning neighbours", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("neighbour scan failed", e.getCause());
    } finally {
      pool.shutdownNow();
    }
    int[][] ords = new int[nq][];
    float[][] scores = new float[nq][];
    float[][] holder = new float[1][];
    for (int q = 0; q < nq; q++) {
      ords[q] = top[q].drainBestFirst(holder);
      scores[q] = holder[0];
    }
    return new Result(ords, scores);
  }

  /** {@link #topK} over vectors held in memory. */
  static Result topK(float[][] corpus, float[][] queries, int[] exclude, int k, int threads) {
    return topK(
        java.util.Arrays.asList(corpus).iterator(), corpus.length, queries, exclude, k, threads);
  }

  private static void scan(
      float[][] block,
      int count,
      int base,
      float[][] queries,
      int[] exclude,
      int from,
      int to,
      TopK[] top) {
    for (int tile = 0; tile < count; tile += GroundTruthBuilder.TILE) {
      int end = Math.min(count, tile + GroundTruthBuilder.TILE);
      for (int q = from; q < to; q++) {
        int self = exclude[q];
        ExactCorpus.scanDot(queries[q], block, tile, end, base, d -> d != self, top[q]);
      }
    }
  }
}
