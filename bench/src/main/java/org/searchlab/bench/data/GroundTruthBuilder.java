package org.searchlab.bench.data;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.searchlab.testing.ExactCorpus;
import org.searchlab.testing.TopK;

/**
 * Exact top-k by dot product for every query, over all documents and over the documents of the
 * query's category, in one brute-force pass with the oracle's kernel ({@link ExactCorpus#scanDot},
 * Lucene's SIMD dot product).
 *
 * <p>Documents stream from {@code vectors.fvecs} in blocks of {@value #BLOCK} (so memory does not
 * grow with the corpus); within a block the work is tiled by {@value #TILE} documents (a tile of
 * 384-d vectors stays in L2 while every query of a thread passes over it) and the queries are split
 * across threads. Each thread owns the heaps of its queries, so no synchronization is needed beyond
 * waiting for the block. Not thread-safe itself; use one builder per build.
 */
final class GroundTruthBuilder {
  static final int BLOCK = 16_384;
  static final int TILE = 256;

  /** The result: per query, best-first ordinals and dot products. */
  record Result(
      int[][] allNeighbors, float[][] allScores, int[][] catNeighbors, float[][] catScores) {}

  private GroundTruthBuilder() {}

  /**
   * @param vectorsFile the documents' vectors in ordinal order
   * @param docCategories per document, a category number, or −1 for none
   * @param queryVectors the query vectors
   * @param queryCategories per query, the category number to filter on, or −1 (matches nothing)
   * @param k neighbours kept per query
   * @param threads 1 or more; more is faster up to the core count
   */
  static Result compute(
      Path vectorsFile,
      int[] docCategories,
      float[][] queryVectors,
      int[] queryCategories,
      int k,
      int threads,
      PrintStream log)
      throws IOException {
    int nq = queryVectors.length;
    TopK[] all = new TopK[nq];
    TopK[] cat = new TopK[nq];
    for (int q = 0; q < nq; q++) {
      all[q] = new TopK(k);
      cat[q] = new TopK(k);
    }
    int n = docCategories.length;
    Progress progress = new Progress("ground truth", n, log);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (VecsFiles.Reader reader = new VecsFiles.Reader(vectorsFile)) {
      float[][] block = new float[Math.min(BLOCK, Math.max(n, 1))][];
      for (int base = 0; base < n; base += BLOCK) {
        int count = Math.min(BLOCK, n - base);
        for (int i = 0; i < count; i++) {
          block[i] = reader.next();
        }
        final int blockBase = base;
        List<Future<?>> tasks = new ArrayList<>();
        int per = (nq + threads - 1) / threads;
        for (int t = 0; t < threads; t++) {
          int from = t * per;
          int to = Math.min(nq, from + per);
          if (from >= to) {
            continue;
          }
          tasks.add(
              pool.submit(
                  () ->
                      scan(
                          block,
                          count,
                          blockBase,
                          docCategories,
                          queryVectors,
                          queryCategories,
                          from,
                          to,
                          all,
                          cat)));
        }
        for (Future<?> f : tasks) {
          try {
            f.get();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while computing ground truth", e);
          } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("ground truth failed", e.getCause());
          }
        }
        progress.advance(count);
      }
    } finally {
      pool.shutdownNow();
    }
    int[][] allN = new int[nq][];
    float[][] allS = new float[nq][];
    int[][] catN = new int[nq][];
    float[][] catS = new float[nq][];
    float[][] holder = new float[1][];
    for (int q = 0; q < nq; q++) {
      allN[q] = all[q].drainBestFirst(holder);
      allS[q] = holder[0];
      catN[q] = cat[q].drainBestFirst(holder);
      catS[q] = holder[0];
    }
    return new Result(allN, allS, catN, catS);
  }

  private static void scan(
      float[][] block,
      int count,
      int base,
      int[] docCategories,
      float[][] queryVectors,
      int[] queryCategories,
      int from,
      int to,
      TopK[] all,
      TopK[] cat) {
    for (int tile = 0; tile < count; tile += TILE) {
      int end = Math.min(count, tile + TILE);
      for (int q = from; q < to; q++) {
        int qc = queryCategories[q];
        ExactCorpus.scanDot(queryVectors[q], block, tile, end, base, d -> true, all[q]);
        if (qc >= 0) {
          ExactCorpus.scanDot(
              queryVectors[q], block, tile, end, base, d -> docCategories[d] == qc, cat[q]);
        }
      }
    }
  }
}
