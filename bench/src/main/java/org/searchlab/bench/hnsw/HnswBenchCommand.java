package org.searchlab.bench.hnsw;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.searchlab.mutable.hnsw.GraphHits;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.mutable.hnsw.MutableHnswGraph;
import org.searchlab.mutable.hnsw.VectorStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code searchlab hnsw-bench}: builds the mutable HNSW graph and a Lucene single-segment HNSW
 * index over the same vectors with the same M and beam width, then for each {@code ef} runs every
 * query once to warm up and once timed on one thread, and prints one JSON line per (implementation,
 * ef).
 */
@Command(
    name = "hnsw-bench",
    mixinStandardHelpOptions = true,
    description = {
      "Mutable HNSW graph vs Lucene HNSW (one force-merged segment): recall@10, qps, build rate.",
      "Prints one JSON line per (impl, ef)."
    })
public final class HnswBenchCommand implements Callable<Integer> {
  @Option(names = "--docs", defaultValue = "100000", description = "Documents (default 100000).")
  int docs;

  @Option(names = "--queries", defaultValue = "1000", description = "Queries (default 1000).")
  int queries;

  @Option(names = "--dim", defaultValue = "384", description = "Synthetic dimension (384).")
  int dim;

  @Option(
      names = "--vectors",
      description =
          "An .fvecs file: the first --docs vectors are indexed, the next --queries query.")
  Path vectors;

  @Option(
      names = "--ef",
      split = ",",
      defaultValue = "16,32,64,128,256",
      description = "Beam widths to search with (Lucene: k = ef, then the top 10).")
  List<Integer> efs;

  @Option(names = "--m", defaultValue = "16", description = "Max links per node (16).")
  int m;

  @Option(
      names = "--ef-construction",
      defaultValue = "200",
      description = "Insert beam width (200).")
  int efConstruction;

  @Option(
      names = "--threads",
      defaultValue = "1",
      description = "Build threads of the mutable graph (Lucene builds on one). Default 1.")
  int threads;

  @Option(names = "--seed", defaultValue = "42", description = "Seed of vectors and levels.")
  long seed;

  @Option(
      names = "--impl",
      defaultValue = "mutable,lucene",
      split = ",",
      description = "Implementations to run: mutable, lucene.")
  List<String> impls;

  static final int K = 10;

  @Override
  public Integer call() throws Exception {
    BenchVectors v =
        vectors != null
            ? BenchVectors.fvecs(vectors, docs, queries)
            : BenchVectors.synthetic(seed, docs, queries, dim);
    float[] kth = v.kthBestScores(K);
    ObjectMapper json = new ObjectMapper();
    for (String impl : impls) {
      List<Map<String, Object>> lines =
          switch (impl) {
            case "mutable" -> runMutable(v, kth);
            case "lucene" -> runLucene(v, kth);
            default -> throw new IllegalArgumentException("unknown --impl " + impl);
          };
      for (Map<String, Object> line : lines) {
        System.out.println(json.writeValueAsString(line));
      }
    }
    return 0;
  }

  private List<Map<String, Object>> runMutable(BenchVectors v, float[] kth) {
    HnswConfig config =
        HnswConfig.DEFAULT
            .withM(m)
            .withEfConstruction(efConstruction)
            .withSeed(seed)
            .withBuildThreads(threads);
    MutableHnswGraph graph = MutableHnswGraph.create(VectorStore.create(v.dimension()), config);
    int[] ids = new int[v.docs().length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
    }
    long t0 = System.nanoTime();
    graph.insertAll(ids, v.docs());
    double buildSeconds = (System.nanoTime() - t0) / 1e9;
    List<Map<String, Object>> out = new ArrayList<>();
    for (int ef : efs) {
      long visited = 0;
      double recall = 0;
      for (int pass = 0; pass < 2; pass++) {
        long start = System.nanoTime();
        visited = 0;
        recall = 0;
        for (int q = 0; q < v.queries().length; q++) {
          GraphHits hits = graph.search(v.queries()[q], K, ef);
          visited += hits.visited();
          recall += v.recall(q, hits.nodes(), kth[q], K);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (pass == 1) {
          out.add(line("mutable-hnsw", v, ef, recall, seconds, buildSeconds, threads, visited));
        }
      }
    }
    return out;
  }

  private List<Map<String, Object>> runLucene(BenchVectors v, float[] kth) throws IOException {
    Path dir = Files.createTempDirectory("hnsw-bench-lucene");
    try (LuceneHnswIndex index = LuceneHnswIndex.build(dir, v.docs(), m, efConstruction)) {
      List<Map<String, Object>> out = new ArrayList<>();
      for (int ef : efs) {
        long visited = 0;
        for (int q = 0; q < v.queries().length; q++) {
          visited += index.visited(v.queries()[q], ef);
        }
        double recall = 0;
        for (int pass = 0; pass < 2; pass++) {
          long start = System.nanoTime();
          recall = 0;
          for (int q = 0; q < v.queries().length; q++) {
            int[] hits = index.search(v.queries()[q], ef, K);
            recall += v.recall(q, hits, kth[q], K);
          }
          double seconds = (System.nanoTime() - start) / 1e9;
          if (pass == 1) {
            out.add(line("lucene-hnsw", v, ef, recall, seconds, index.buildSeconds(), 1, visited));
          }
        }
      }
      return out;
    } finally {
      LuceneHnswIndex.deleteRecursively(dir);
    }
  }

  private Map<String, Object> line(
      String impl,
      BenchVectors v,
      int ef,
      double recallSum,
      double searchSeconds,
      double buildSeconds,
      int buildThreads,
      long visited) {
    int nq = v.queries().length;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("impl", impl);
    m.put("n", v.docs().length);
    m.put("dim", v.dimension());
    m.put("M", this.m);
    m.put("efConstruction", efConstruction);
    m.put("ef", ef);
    m.put("recallAt10", round(recallSum / nq, 4));
    m.put("qps", round(nq / searchSeconds, 1));
    m.put("buildSeconds", round(buildSeconds, 2));
    m.put("buildThreads", buildThreads);
    m.put("buildDocsPerSecPerThread", round(v.docs().length / buildSeconds / buildThreads, 1));
    m.put("visitedPerQuery", round(visited / (double) nq, 1));
    return m;
  }

  private static double round(double x, int digits) {
    double f = Math.pow(10, digits);
    return Math.round(x * f) / f;
  }
}
