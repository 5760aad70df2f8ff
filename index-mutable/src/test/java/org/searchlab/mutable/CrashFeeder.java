package org.searchlab.mutable;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.mutable.hnsw.HnswConfig;

/**
 * The child process of {@link MutableIndexCrashTest}: opens a mutable index, applies the
 * deterministic operation sequence from a given index in bulks, and prints {@code ACK <next>} after
 * every acknowledged bulk, until it is killed. Operation {@code i} depends only on the seed and
 * {@code i}, so the parent can replay the same sequence.
 *
 * <p>Arguments: directory, seed, first operation index.
 */
public final class CrashFeeder {
  static final int DIM = 16;
  static final int IDS = 400;
  static final int BULK = 8;

  private CrashFeeder() {}

  static MutableConfig config() {
    return MutableConfig.builder()
        .hnsw(HnswConfig.builder().efConstruction(32).build())
        .snapshotInterval(Duration.ZERO)
        .compactionMinDocs(32)
        .build();
  }

  /** Operation {@code i} of the sequence for {@code seed}. */
  static Operation op(long seed, long i) {
    SplittableRandom r = new SplittableRandom(seed * 1_000_003L + i);
    String id = "d" + r.nextInt(IDS);
    double x = r.nextDouble();
    if (x < 0.5) {
      float[] v = new float[DIM];
      double norm = 0;
      for (int k = 0; k < DIM; k++) {
        v[k] = (float) r.nextGaussian();
        norm += v[k] * v[k];
      }
      for (int k = 0; k < DIM; k++) {
        v[k] /= (float) Math.sqrt(norm);
      }
      return Operation.put(
          new Document(
              id,
              words(r, 1 + r.nextInt(6)),
              words(r, r.nextInt(20)),
              "c" + r.nextInt(5),
              r.nextInt(10_000),
              r.nextInt(50) / 10f,
              v));
    } else if (x < 0.75) {
      return Operation.update(
          PartialUpdate.of(id).withPrice(r.nextInt(10_000)).withCategory("c" + r.nextInt(5)));
    } else if (x < 0.85) {
      return Operation.update(PartialUpdate.of(id).withTitle(words(r, 1 + r.nextInt(6))));
    }
    return Operation.delete(id);
  }

  private static String words(SplittableRandom r, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        sb.append(' ');
      }
      sb.append("w").append(Math.min(r.nextInt(200), r.nextInt(200)));
    }
    return sb.toString();
  }

  /** Applies operations [0, n) of the sequence to a map: the expected state. */
  static void simulate(long seed, long from, long to, Map<String, Document> state) {
    for (long i = from; i < to; i++) {
      switch (op(seed, i)) {
        case Operation.Put p -> state.put(p.id(), p.document());
        case Operation.Update u -> {
          Document d = state.get(u.id());
          if (d != null) {
            state.put(u.id(), u.update().applyTo(d));
          }
        }
        case Operation.Delete d -> state.remove(d.id());
      }
    }
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long seed = Long.parseLong(args[1]);
    long next = Long.parseLong(args[2]);
    try (MutableIndex index = MutableIndex.open(dir, new Schema(DIM), config())) {
      int bulks = 0;
      while (true) {
        List<Operation> ops = new ArrayList<>(BULK);
        for (int i = 0; i < BULK; i++) {
          ops.add(op(seed, next + i));
        }
        index.bulk(ops);
        next += BULK;
        System.out.println("ACK " + next);
        System.out.flush();
        if (++bulks % 40 == 0) {
          index.flush();
        }
      }
    }
  }
}
