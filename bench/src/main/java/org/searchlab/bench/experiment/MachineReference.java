package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;

/**
 * A fixed, seeded CPU-bound workload whose cost tracks the machine's speed: the segment sweep runs
 * it in every round beside its cells, so that two runs whose absolute costs differ can be told
 * apart as a machine that ran slower (a VM's host, its clock, its other tenants) or as the sweep's
 * own noise. One operation is 512 dot products of 384-dimension floats (768 KiB of vectors, more
 * than a core's L2 cache) and a sort of 4,096 integers, the kinds of work a search does; its cost
 * is this thread's CPU time, so time the thread waits for a core does not count, while a slower
 * clock or a cache shared with a busy neighbour does. Also reads the machine's steal time (CPU a
 * hypervisor gave to others) from {@code /proc/stat} where there is one. Not thread-safe: one
 * instance per measuring thread.
 */
final class MachineReference {
  private static final int DIMENSION = 384;
  private static final int VECTORS = 512;
  private static final int INTS = 4_096;

  /** The machine's CPU counters. */
  static final Path PROC_STAT = Path.of("/proc/stat");

  private final float[][] vectors = new float[VECTORS][DIMENSION];
  private final float[] query = new float[DIMENSION];
  private final int[] ints = new int[INTS];
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private double sink;

  MachineReference(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    for (float[] v : vectors) {
      for (int i = 0; i < DIMENSION; i++) {
        v[i] = (float) r.nextGaussian();
      }
    }
    for (int i = 0; i < DIMENSION; i++) {
      query[i] = (float) r.nextGaussian();
    }
    for (int i = 0; i < INTS; i++) {
      ints[i] = r.nextInt();
    }
  }

  /** One operation's result, the same for every instance of one seed (what the JIT must keep). */
  double operation() {
    double sum = 0;
    for (float[] v : vectors) {
      sum += VectorUtil.dotProduct(query, v);
    }
    int[] copy = Arrays.copyOf(ints, INTS);
    Arrays.sort(copy);
    return sum + copy[INTS / 2];
  }

  /**
   * This thread's CPU nanoseconds per operation over {@code ops} operations, after {@code ops}
   * unmeasured ones that warm the JIT on a first call.
   */
  double nanosPerOp(int ops) {
    if (ops < 1) {
      throw new IllegalArgumentException("ops must be 1 or more; got " + ops);
    }
    for (int i = 0; i < ops; i++) {
      sink += operation();
    }
    long t0 = threads.getCurrentThreadCpuTime();
    for (int i = 0; i < ops; i++) {
      sink += operation();
    }
    return (threads.getCurrentThreadCpuTime() - t0) / (double) ops;
  }

  /**
   * Measures {@link #nanosPerOp} and adds it to {@code into} as one object ({@code round}, {@code
   * segments}, {@code ns_per_op}, and {@code steal_share}: the share of the machine's CPU the
   * hypervisor stole since {@code stealBefore} was read, null where {@code /proc/stat} cannot be).
   */
  void record(ArrayNode into, int round, int segments, long[] stealBefore, int ops) {
    double nanos = nanosPerOp(ops);
    long[] after = stealAndTotalTicks(PROC_STAT);
    ObjectNode n = into.addObject();
    n.put("round", round);
    n.put("segments", segments);
    n.put("ns_per_op", Math.round(nanos));
    if (stealBefore.length == 2 && after.length == 2 && after[1] > stealBefore[1]) {
      double steal = (after[0] - stealBefore[0]) / (double) (after[1] - stealBefore[1]);
      n.put("steal_share", Math.round(steal * 10_000) / 10_000.0);
    } else {
      n.putNull("steal_share");
    }
  }

  /** What the operations summed, so that none of them can be left out. */
  double sink() {
    return sink;
  }

  /**
   * The machine's cumulative steal and total CPU ticks from {@code /proc/stat}'s first line ({@code
   * [steal, total]}), or empty where it cannot be read.
   */
  static long[] stealAndTotalTicks(Path procStat) {
    try {
      String first = Files.readAllLines(procStat).getFirst();
      String[] f = first.trim().split(" +");
      if (!f[0].equals("cpu") || f.length < 9) {
        return new long[0];
      }
      long total = 0;
      // user nice system idle iowait irq softirq steal (guest time is already in user)
      for (int i = 1; i <= 8; i++) {
        total += Long.parseLong(f[i]);
      }
      return new long[] {Long.parseLong(f[8]), total};
    } catch (IOException | RuntimeException e) {
      return new long[0];
    }
  }
}
