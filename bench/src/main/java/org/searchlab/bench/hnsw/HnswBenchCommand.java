// Over 500 lines: its options, the alternating pass driver and one small builder per
// implementation read the same option fields; the read-only copy it measures (FlatLevelZero) and
// the peer process are classes of their own.
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
import org.searchlab.bench.load.ProcessCpu;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.mutable.hnsw.MutableHnswGraph;
import org.searchlab.mutable.hnsw.VectorStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code searchlab hnsw-bench}: builds the mutable HNSW graph and a Lucene single-segment HNSW
 * index over the same vectors with the same M and beam width, then for each {@code ef} runs all
 * queries once per implementation to warm up and {@code --rounds} more times, alternating between
 * the implementations (who goes first alternates too) so that both meet the same load on a shared
 * machine, and prints one JSON line per (implementation, ef) with the median round, and {@code
 * qpsVsLucene}, the median over rounds of the ratio of the two passes of one round. Besides
 * wall-clock {@code qps} it reports {@code cpuQps} (queries per CPU-second of the search thread)
 * and build CPU time, which depend far less on other processes.
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
      description =
          "Implementations to run: mutable, lucene, mutable-flat (the mutable graph's bottom level"
              + " copied, read-only, into hnswlib's layout: a measurement, not a store),"
              + " mutable-bbq (the mutable graph over 1-bit codes whatever --quantization says),"
              + " mutable-bbq-inline (the same with the neighbours' codes in each node's row,"
              + " serve --inline-codes), mutable-int4 (the mutable graph over 4-bit codes whatever"
              + " --quantization says).")
  List<String> impls;

  @Option(
      names = "--queries-from",
      defaultValue = "documents",
      description =
          "Synthetic queries: 'documents' (a random document's own vector, as the reference"
              + " benchmark does) or 'random' (near a cluster centre).")
  String queriesFrom;

  @Option(
      names = "--latent-dim",
      defaultValue = "0",
      description =
          "When > 0, synthetic vectors of this intrinsic dimension mapped into --dim (closer to"
              + " text embeddings) instead of SyntheticCorpus's isotropic clusters.")
  int latentDim;

  @Option(
      names = "--rounds",
      defaultValue = "5",
      description =
          "Timed passes per (impl, ef), alternating between the implementations so both see the"
              + " same machine load; qps is the median pass, qpsVsLucene the median of the"
              + " per-round ratios (default ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--build-rounds",
      defaultValue = "1",
      description =
          "Builds per implementation before the passes, alternating between the implementations"
              + " (who goes first alternates too) so that a slow spell of the machine meets both;"
              + " the last graphs are searched. buildSeconds is then the median build and"
              + " buildSecondsVs<Peer> the median of the per-round ratios. The first build in a"
              + " fresh JVM includes JIT compilation: buildSecondsPerRound lists each"
              + " (default ${DEFAULT-VALUE}).")
  int buildRounds;

  @Option(
      names = "--quantization",
      defaultValue = "none",
      description =
          "Vectors of the mutable graph: none (floats), int8 (int8 beam and build, float"
              + " rescoring of k x --oversample), int4 (4-bit codes, float build and rerank as bbq's)"
              + " or bbq (1-bit codes searched with a 4-bit query,"
              + " float build, float rescoring to the depth the codes' error bounds choose, at"
              + " least k x --oversample); Lucene's single segment stays float"
              + " (default ${DEFAULT-VALUE}).")
  String quantization;

  @Option(
      names = "--oversample",
      defaultValue = "3",
      description =
          "With --quantization int8 or bbq: candidates rescored per hit (bbq: at least), 1-10"
              + " (default 3).")
  int oversample;

  @Option(
      names = "--rerank-confidence",
      defaultValue = "1.9",
      description =
          "With --quantization bbq or int4 or --impl mutable-bbq[-inline] or mutable-int4: how"
              + " many standard deviations of a 1-bit or 4-bit estimate's error the rerank allows"
              + " before it stops reading floats (RaBitQ's"
              + " epsilon_0; default ${DEFAULT-VALUE}).")
  float rerankConfidence;

  @Option(
      names = "--float-storage",
      defaultValue = "mapped",
      description =
          "With --quantization int8 or bbq: where the mutable graph keeps the floats it rescores and"
              + " builds with: mapped (a scratch file in the temporary directory, as the store"
              + " does) or heap (default ${DEFAULT-VALUE}).")
  FloatStorage floatStorage;

  @Option(
      names = "--peer",
      description =
          "A command (run by /bin/sh -c) that starts another implementation speaking the peer"
              + " protocol of bench/hnswlib/hnswlib_bench.py --serve. It is built after ours and"
              + " measured in the same alternating passes, never at the same time as ours, and"
              + " every line gets the paired ratio to it (bench/hnswlib/compare.sh runs hnswlib"
              + " this way).")
  String peer;

  /** Where the int8 graph's floats live (picocli rejects any other value, naming these). */
  enum FloatStorage {
    mapped,
    heap
  }

  static final int K = 10;

  /** One implementation under test: a searcher and what its build cost. */
  private interface Impl {
    String name();

    int[] search(float[] query, int ef) throws IOException;

    /** Nodes whose distance one search computed, or -1 when the implementation does not say. */
    long visited(float[] query, int ef) throws IOException;

    /**
     * Candidates one search scored again by their floats after a quantized beam (its rescoring
     * depth), or -1 when the implementation does not rescore or does not say.
     */
    default long rescored(float[] query, int ef) throws IOException {
      return -1;
    }

    /**
     * One timed pass over every query at {@code ef}: wall seconds, CPU seconds of the searching
     * thread, and the recall@10 summed over the queries. Only the searches are timed: recall is
     * computed afterwards, as the peer computes it outside its timed batch (inside the loop, its
     * exact dot products with vectors out of the cache cost a few percent at small ef).
     */
    default double[] pass(BenchVectors v, float[] kth, int ef) throws IOException {
      int[][] hits = new int[v.queries().length][];
      long cpu0 = THREADS.getCurrentThreadCpuTime();
      long wall0 = System.nanoTime();
      for (int q = 0; q < hits.length; q++) {
        hits[q] = search(v.queries()[q], ef);
      }
      double wall = (System.nanoTime() - wall0) / 1e9;
      double cpu = (THREADS.getCurrentThreadCpuTime() - cpu0) / 1e9;
      double sum = 0;
      for (int q = 0; q < hits.length; q++) {
        sum += v.recall(q, hits[q], kth[q], K);
      }
      return new double[] {wall, cpu, sum};
    }

    double buildSeconds();

    double buildCpuSeconds();

    /**
     * Builds the peer's index again in the same process ({@code --build-rounds}); ours rebuild
     * anew.
     */
    default void buildAgain() throws IOException {
      throw new UnsupportedOperationException(name() + " is built anew, not again");
    }

    int buildThreads();

    /** Whether this implementation ran on transparent huge pages (null: unknown). */
    default Boolean transparentHugePages() {
      return org.searchlab.bench.report.HugePages.enabled();
    }

    /** Its memory on transparent huge pages now, in MB (null: unknown). */
    default Double anonHugePagesMB() {
      long huge = org.searchlab.bench.report.HugePages.anonHugePageBytes();
      return huge < 0 ? null : round(huge / 1048576.0, 1);
    }
  }

  @Override
  public Integer call() throws Exception {
    if (rounds < 1) {
      throw new org.searchlab.core.InvalidRequestException("--rounds " + rounds + " must be ≥ 1");
    }
    if (buildRounds < 1 || buildRounds > 20) {
      throw new org.searchlab.core.InvalidRequestException(
          "--build-rounds " + buildRounds + " must be between 1 and 20");
    }
    BenchVectors v;
    if (vectors != null) {
      v = BenchVectors.fvecs(vectors, docs, queries);
    } else if (latentDim > 0) {
      v = BenchVectors.lowRank(seed, docs, queries, dim, latentDim);
    } else {
      v = BenchVectors.synthetic(seed, docs, queries, dim, !queriesFrom.equals("random"));
    }
    float[] kth = v.kthBestScores(K);
    List<Impl> built = new ArrayList<>();
    Path dir = Files.createTempDirectory("hnsw-bench-lucene");
    try {
      for (String impl : impls) {
        if (!impl.equals("mutable")
            && !impl.equals("lucene")
            && !impl.equals("mutable-flat")
            && !impl.equals("mutable-bbq")
            && !impl.equals("mutable-bbq-inline")
            && !impl.equals("mutable-int4")) {
          throw new IllegalArgumentException("unknown --impl " + impl);
        }
        built.add(null);
      }
      int peerIndex = -1;
      if (peer != null) {
        built.add(null);
        peerIndex = built.size() - 1;
      }
      // Per implementation, per build round: wall and CPU seconds of the build.
      double[][] buildWall = new double[built.size()][buildRounds];
      double[][] buildCpu = new double[built.size()][buildRounds];
      for (int br = 0; br < buildRounds; br++) {
        for (int j = 0; j < built.size(); j++) {
          int i = (br & 1) == 0 ? j : built.size() - 1 - j; // alternate who builds first
          Impl old = built.get(i);
          if (i == peerIndex && old != null) {
            old.buildAgain();
          } else {
            built.set(i, null);
            if (old instanceof AutoCloseable c) {
              c.close(); // the last round's graph is the one searched
            }
            if (old != null && impls.get(i).equals("lucene")) {
              // An earlier round's segment is not searched: do not keep N indexes on disk.
              LuceneHnswIndex.deleteRecursively(dir.resolve("build" + (br - 1)));
            }
            built.set(
                i,
                i == peerIndex
                    ? buildPeer(peer)
                    : impls.get(i).equals("mutable")
                        ? buildMutable(v)
                        : impls.get(i).equals("mutable-flat")
                            ? buildFlat(v)
                            : impls.get(i).equals("mutable-bbq")
                                ? buildMutable(v, "bbq", false, "mutable-bbq")
                                : impls.get(i).equals("mutable-bbq-inline")
                                    ? buildMutable(v, "bbq", true, "mutable-bbq-inline")
                                    : impls.get(i).equals("mutable-int4")
                                        ? buildMutable(v, "int4", false, "mutable-int4")
                                        : buildLucene(v, dir.resolve("build" + br)));
          }
          buildWall[i][br] = built.get(i).buildSeconds();
          buildCpu[i][br] = built.get(i).buildCpuSeconds();
        }
      }
      double[] medianBuild = new double[built.size()];
      double[] medianBuildCpu = new double[built.size()];
      for (int i = 0; i < built.size(); i++) {
        medianBuild[i] = median(buildWall[i]);
        medianBuildCpu[i] = median(buildCpu[i]);
      }
      String peerLabel = peerIndex < 0 ? null : label(built.get(peerIndex).name());
      ObjectMapper json = new ObjectMapper();
      int lucene = -1;
      for (int i = 0; i < built.size(); i++) {
        if (built.get(i).name().equals("lucene-hnsw")) {
          lucene = i;
        }
      }
      // Warm up every implementation over the whole ef list first: the per-ef warm-up pass alone
      // left the first (smallest) efs measured while the JIT was still compiling the search loop.
      for (Impl impl : built) {
        for (int ef : efs) {
          impl.pass(v, kth, ef);
        }
      }
      // Per ef, per implementation, per round: the pass's wall seconds; and each recall.
      List<double[][]> walls = new ArrayList<>();
      List<double[]> recalls = new ArrayList<>();
      List<List<double[]>> curves = new ArrayList<>();
      for (int i = 0; i < built.size(); i++) {
        curves.add(new ArrayList<>());
      }
      for (int ef : efs) {
        int n = built.size();
        double[][] wall = new double[n][rounds];
        double[][] cpu = new double[n][rounds];
        double[] recall = new double[n];
        for (int round = -1; round < rounds; round++) { // round -1 warms up
          for (int j = 0; j < n; j++) {
            int i = (round & 1) == 0 ? j : n - 1 - j; // alternate who goes first
            double[] pass = built.get(i).pass(v, kth, ef);
            if (round >= 0) {
              wall[i][round] = pass[0];
              cpu[i][round] = pass[1];
            }
            recall[i] = pass[2];
          }
        }
        walls.add(wall);
        recalls.add(recall);
        for (int i = 0; i < n; i++) {
          Impl impl = built.get(i);
          long visited = 0;
          long rescored = 0;
          for (float[] q : v.queries()) {
            long one = impl.visited(q, ef);
            visited = one < 0 || visited < 0 ? -1 : visited + one;
            long again = impl.rescored(q, ef);
            rescored = again < 0 || rescored < 0 ? -1 : rescored + again;
          }
          Map<String, Object> line =
              line(
                  impl,
                  v,
                  ef,
                  recall[i],
                  median(wall[i]),
                  median(cpu[i]),
                  visited,
                  rescored,
                  medianBuild[i],
                  medianBuildCpu[i]);
          curves
              .get(i)
              .add(new double[] {recall[i] / v.queries().length, (double) line.get("qps")});
          if (lucene >= 0) {
            // Side by side: this pass's qps over Lucene's pass of the same round, median.
            // (A pass's QPS ratio is the inverse of its time ratio.)
            line.put("qpsVsLucene", round(median(pairedRatios(wall[lucene], wall[i])), 3));
          }
          if (peerIndex >= 0 && i != peerIndex) {
            // Side by side with the peer's pass of the same round, seconds apart.
            line.put("qpsVs" + peerLabel, round(median(pairedRatios(wall[peerIndex], wall[i])), 3));
          }
          System.out.println(json.writeValueAsString(line));
        }
      }
      for (int i = 0; i < built.size(); i++) {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("impl", built.get(i).name());
        summary.put("summary", true);
        summary.put("qpsAtRecall095", interpolatedQps(curves.get(i), 0.95));
        summary.put("qpsAtRecall099", interpolatedQps(curves.get(i), 0.99));
        summary.put("buildSeconds", round(medianBuild[i], 2));
        if (buildRounds > 1) {
          summary.put("buildSecondsPerRound", rounded(buildWall[i], 2));
        }
        if (peerIndex >= 0 && i != peerIndex) {
          summary.put("peer", built.get(peerIndex).name());
          for (double target : new double[] {0.95, 0.99}) {
            List<Double> ratios =
                pairedRatiosAtRecall(walls, recalls, i, peerIndex, target, v.queries().length);
            String key = "qpsAtRecall" + (target == 0.95 ? "095" : "099") + "Vs" + peerLabel;
            summary.put(
                key,
                ratios.isEmpty()
                    ? null
                    : round(median(ratios.stream().mapToDouble(Double::doubleValue).toArray()), 3));
            summary.put(key + "PerPass", ratios);
          }
          double[] buildRatios = pairedRatios(buildWall[i], buildWall[peerIndex]);
          summary.put("buildSecondsVs" + peerLabel, round(median(buildRatios), 3));
          if (buildRounds > 1) {
            summary.put("buildSecondsVs" + peerLabel + "PerRound", rounded(buildRatios, 3));
          }
        }
        System.out.println(json.writeValueAsString(summary));
      }
    } finally {
      for (Impl impl : built) {
        if (impl instanceof AutoCloseable c) {
          c.close();
        }
      }
      LuceneHnswIndex.deleteRecursively(dir);
    }
    return 0;
  }

  /**
   * Round by round, {@code mine[r] / theirs[r]}: two timings taken one after the other (builds, or
   * passes), so that a slow minute of the machine weighs on both sides of a ratio.
   */
  static double[] pairedRatios(double[] mine, double[] theirs) {
    if (mine.length != theirs.length) {
      throw new IllegalArgumentException(mine.length + " rounds against " + theirs.length);
    }
    double[] out = new double[mine.length];
    for (int r = 0; r < mine.length; r++) {
      out[r] = mine[r] / theirs[r];
    }
    return out;
  }

  private static List<Double> rounded(double[] xs, int digits) {
    List<Double> out = new ArrayList<>();
    for (double x : xs) {
      out.add(round(x, digits));
    }
    return out;
  }

  /** "hnswlib" → "Hnswlib", for field names such as {@code qpsVsHnswlib}. */
  static String label(String name) {
    String letters = name.replaceAll("[^A-Za-z0-9]", "");
    return letters.isEmpty()
        ? "Peer"
        : Character.toUpperCase(letters.charAt(0)) + letters.substring(1);
  }

  /**
   * Per round, implementation {@code i}'s QPS at {@code target} recall over the peer's, each
   * interpolated on that round's passes (the recall of a pass does not change between rounds; its
   * time does): the ratio of two curves measured seconds apart, pass by pass. Rounds where either
   * curve does not bracket the target are left out.
   */
  static List<Double> pairedRatiosAtRecall(
      List<double[][]> walls, List<double[]> recalls, int i, int peer, double target, int nq) {
    int rounds = walls.get(0)[i].length;
    List<Double> out = new ArrayList<>();
    for (int r = 0; r < rounds; r++) {
      List<double[]> mine = new ArrayList<>();
      List<double[]> theirs = new ArrayList<>();
      for (int e = 0; e < walls.size(); e++) {
        mine.add(new double[] {recalls.get(e)[i] / nq, nq / walls.get(e)[i][r]});
        theirs.add(new double[] {recalls.get(e)[peer] / nq, nq / walls.get(e)[peer][r]});
      }
      Double a = interpolatedQps(mine, target);
      Double b = interpolatedQps(theirs, target);
      if (a != null && b != null) {
        out.add(round(a / b, 3));
      }
    }
    return out;
  }

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  /** A mutable graph built on one or more threads, and what the build cost. */
  private record MutableBuild(MutableHnswGraph graph, double seconds, double cpuSeconds) {}

  private MutableBuild buildMutableGraph(BenchVectors v) {
    return buildMutableGraph(v, quantization, false);
  }

  /**
   * The mutable graph over {@code quantization}, with {@code inline} and 1-bit codes the
   * neighbours' codes in each row ({@link HnswConfig#inlineCodes()}).
   */
  private MutableBuild buildMutableGraph(BenchVectors v, String quantization, boolean inline) {
    HnswConfig config =
        HnswConfig.builder()
            .inlineCodes(inline)
            .m(m)
            .efConstruction(efConstruction)
            .seed(seed)
            .buildThreads(threads)
            .quantization(org.searchlab.core.VectorQuantization.parse(quantization))
            .oversample(oversample)
            .rerankConfidence(rerankConfidence)
            .build();
    Path scratch =
        floatStorage == FloatStorage.heap ? null : Path.of(System.getProperty("java.io.tmpdir"));
    MutableHnswGraph graph =
        MutableHnswGraph.create(VectorStore.create(v.dimension(), config, scratch), config);
    int[] ids = new int[v.docs().length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
    }
    long cpu0 = ProcessCpu.thisJvmNanos();
    long t0 = System.nanoTime();
    graph.insertAll(ids, v.docs());
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cpu = (ProcessCpu.thisJvmNanos() - cpu0) / 1e9;
    return new MutableBuild(graph, seconds, cpu);
  }

  /** One search of a graph in this JVM, answering its hits. */
  @FunctionalInterface
  private interface Hits {
    int[] search(float[] query, int ef);
  }

  /** One search of a graph in this JVM, answering the nodes it scored. */
  @FunctionalInterface
  private interface Visits {
    long search(float[] query, int ef);
  }

  /** A graph searched in this JVM, with what its build cost. */
  private record InProcess(
      String name,
      Hits hits,
      Visits visits,
      Visits rescores,
      double buildSeconds,
      double buildCpuSeconds,
      int buildThreads)
      implements Impl {
    @Override
    public int[] search(float[] query, int ef) {
      return hits.search(query, ef);
    }

    @Override
    public long visited(float[] query, int ef) {
      return visits.search(query, ef);
    }

    @Override
    public long rescored(float[] query, int ef) {
      return rescores == null ? -1 : rescores.search(query, ef);
    }
  }

  private Impl buildMutable(BenchVectors v) {
    return buildMutable(v, quantization, false, "mutable-hnsw");
  }

  /**
   * The mutable graph over {@code quantization} (with {@code inline}, the neighbours' 1-bit codes
   * in each row), reported as {@code name}: {@code --impl mutable-bbq} builds it over 1-bit codes
   * whatever {@code --quantization} says, so that one run measures them beside the floats in
   * alternating passes.
   */
  private Impl buildMutable(BenchVectors v, String quantization, boolean inline, String name) {
    MutableBuild build = buildMutableGraph(v, quantization, inline);
    MutableHnswGraph graph = build.graph();
    return new InProcess(
        name,
        (query, ef) -> graph.search(query, K, ef).nodes(),
        (query, ef) -> graph.search(query, K, ef).visited(),
        graph.config().quantization().quantized()
            ? (query, ef) -> graph.search(query, K, ef).rescored()
            : null,
        build.seconds(),
        build.cpuSeconds(),
        threads);
  }

  /**
   * The mutable graph built as {@link #buildMutable} builds it, then its bottom level copied into
   * {@link FlatLevelZero}'s rows; the build time covers both, so its ratio to a peer's build is not
   * the store's (the store builds no copy).
   */
  private Impl buildFlat(BenchVectors v) {
    if (!quantization.equals("none")) {
      throw new org.searchlab.core.InvalidRequestException(
          "--impl mutable-flat copies float vectors; it runs with --quantization none only, not "
              + quantization);
    }
    MutableBuild build = buildMutableGraph(v);
    long cpu0 = ProcessCpu.thisJvmNanos();
    long t0 = System.nanoTime();
    FlatLevelZero flat = FlatLevelZero.copy(build.graph(), v.docs(), m);
    double seconds = build.seconds() + (System.nanoTime() - t0) / 1e9;
    double cpu = build.cpuSeconds() + (ProcessCpu.thisJvmNanos() - cpu0) / 1e9;
    return new InProcess(
        "mutable-flat",
        (query, ef) -> flat.search(query, K, ef),
        (query, ef) -> {
          flat.search(query, K, ef);
          return flat.scored();
        },
        null,
        seconds,
        cpu,
        threads);
  }

  /** Starts the peer and has it build its index, after ours, while this process waits. */
  static Impl buildPeer(String command) throws IOException {
    PeerProcess process = new PeerProcess(command);
    com.fasterxml.jackson.databind.JsonNode built;
    try {
      built = process.call("build");
    } catch (IOException | RuntimeException e) {
      try {
        process.close(); // do not leave the peer running after a failed build
      } catch (IOException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
    String name = built.path("impl").asText("peer");
    final class Peer implements Impl, AutoCloseable {
      private double seconds;
      private double cpu;
      private Double huge;

      private void took(com.fasterxml.jackson.databind.JsonNode built) {
        seconds = built.path("buildSeconds").asDouble();
        cpu = built.path("buildCpuSeconds").asDouble();
        huge =
            built.path("anonHugePagesMB").isNumber()
                ? built.get("anonHugePagesMB").asDouble()
                : null;
      }

      @Override
      public void buildAgain() throws IOException {
        took(process.call("build"));
      }

      @Override
      public Boolean transparentHugePages() {
        return null; // its own business: hnswlib's glibc asks for them when GLIBC_TUNABLES says so
      }

      @Override
      public Double anonHugePagesMB() {
        return huge;
      }

      @Override
      public String name() {
        return name;
      }

      @Override
      public int[] search(float[] query, int ef) {
        throw new UnsupportedOperationException("the peer searches whole passes only");
      }

      @Override
      public long visited(float[] query, int ef) {
        return -1;
      }

      @Override
      public double[] pass(BenchVectors v, float[] kth, int ef) throws IOException {
        com.fasterxml.jackson.databind.JsonNode a = process.call("pass " + ef);
        return new double[] {
          a.path("wall").asDouble(), a.path("cpu").asDouble(), a.path("recallSum").asDouble()
        };
      }

      @Override
      public double buildSeconds() {
        return seconds;
      }

      @Override
      public double buildCpuSeconds() {
        return cpu;
      }

      @Override
      public int buildThreads() {
        return 1;
      }

      @Override
      public void close() throws IOException {
        process.close();
      }
    }
    Peer p = new Peer();
    p.took(built);
    return p;
  }

  private Impl buildLucene(BenchVectors v, Path dir) throws IOException {
    long cpu0 = ProcessCpu.thisJvmNanos();
    LuceneHnswIndex index = LuceneHnswIndex.build(dir, v.docs(), m, efConstruction);
    double cpu = (ProcessCpu.thisJvmNanos() - cpu0) / 1e9;
    final class LuceneImpl implements Impl, AutoCloseable {
      @Override
      public String name() {
        return "lucene-hnsw";
      }

      @Override
      public int[] search(float[] query, int ef) throws IOException {
        return index.search(query, ef, K);
      }

      @Override
      public long visited(float[] query, int ef) throws IOException {
        return index.visited(query, ef);
      }

      @Override
      public double buildSeconds() {
        return index.buildSeconds();
      }

      @Override
      public double buildCpuSeconds() {
        return cpu;
      }

      @Override
      public int buildThreads() {
        return 1;
      }

      @Override
      public void close() throws IOException {
        index.close();
      }
    }
    return new LuceneImpl();
  }

  private Map<String, Object> line(
      Impl impl,
      BenchVectors v,
      int ef,
      double recallSum,
      double searchSeconds,
      double searchCpuSeconds,
      long visited,
      long rescored,
      double buildSeconds,
      double buildCpuSeconds) {
    int nq = v.queries().length;
    int n = v.docs().length;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("impl", impl.name());
    m.put("n", n);
    m.put("dim", v.dimension());
    m.put("M", this.m);
    m.put("efConstruction", efConstruction);
    m.put("ef", ef);
    m.put("recallAt10", round(recallSum / nq, 4));
    m.put("qps", round(nq / searchSeconds, 1));
    m.put("buildSeconds", round(buildSeconds, 2));
    m.put("buildThreads", impl.buildThreads());
    m.put("buildDocsPerSecPerThread", round(n / buildSeconds / impl.buildThreads(), 1));
    m.put("visitedPerQuery", visited < 0 ? null : round(visited / (double) nq, 1));
    if (rescored >= 0) {
      m.put("rescoredPerQuery", round(rescored / (double) nq, 1));
    }
    m.put("transparentHugePages", impl.transparentHugePages());
    m.put("anonHugePagesMB", impl.anonHugePagesMB());
    // The cost of one expansion: search CPU time over the nodes whose distance it computed.
    m.put(
        "nsPerVisited",
        visited < 0 ? null : round(searchCpuSeconds * 1e9 / Math.max(1, visited), 1));
    // On a shared machine wall time depends on the neighbours; CPU time much less so.
    m.put("cpuQps", round(nq / searchCpuSeconds, 1));
    m.put("buildCpuSeconds", round(buildCpuSeconds, 2));
    m.put("buildDocsPerCpuSec", round(n / buildCpuSeconds, 1));
    return m;
  }

  /**
   * The QPS at {@code target} recall@10, interpolated log-linearly in QPS between the two measured
   * (recall, QPS) points around it, or null when no two points bracket the target (then extend
   * {@code --ef}). {@code bench/hnswlib/hnswlib_bench.py} interpolates the same way.
   */
  static Double interpolatedQps(List<double[]> points, double target) {
    List<double[]> pts = new ArrayList<>(points);
    pts.sort(java.util.Comparator.comparingDouble(p -> p[0]));
    for (int i = 0; i + 1 < pts.size(); i++) {
      double r0 = pts.get(i)[0];
      double r1 = pts.get(i + 1)[0];
      if (r0 <= target && target <= r1 && r1 > r0) {
        double t = (target - r0) / (r1 - r0);
        double q0 = Math.log(pts.get(i)[1]);
        double q1 = Math.log(pts.get(i + 1)[1]);
        return round(Math.exp(q0 + t * (q1 - q0)), 1);
      }
    }
    return null;
  }

  private static double median(double[] xs) {
    double[] sorted = xs.clone();
    java.util.Arrays.sort(sorted);
    int h = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[h] : (sorted[h - 1] + sorted[h]) / 2;
  }

  private static double round(double x, int digits) {
    double f = Math.pow(10, digits);
    return Math.round(x * f) / f;
  }
}
