package org.searchlab.testing.crash;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.SearchIndex;
import org.searchlab.testing.disk.ForgetfulFileSystem;

/**
 * A seeded single-threaded workload whose file operations a crash-point test records (design note
 * of issue 70, §4.1): puts (60 %), partial updates (20 %), deletes (15 %) and flushes (5 %) over 20
 * to 50 ids. Every version of a document carries a keyword token no other version has ({@code
 * category} {@code "v<k>"} for step k), so a recovered document names the step that wrote it; every
 * put has a unit vector, and one update in three assigns a new one, so the graph files are written.
 *
 * <p>{@link #run} puts {@code "invoke k"} before step k (counting from 1) and {@code "ack k"} after
 * it returned into the trace; one thread runs the steps, so the trace's order is the log's.
 *
 * <p>Immutable once generated; {@link #run} is not thread-safe (one store, one thread).
 */
public final class CrashWorkload {
  /** One step: a write or a flush. */
  public sealed interface Step permits Write, Flush {}

  /** A write through the store's API. */
  public record Write(Operation op) implements Step {}

  /** A flush: a snapshot or a commit, and a log trim; the documents do not change. */
  public record Flush() implements Step {}

  private final List<String> ids;
  private final List<Step> steps;

  private CrashWorkload(List<String> ids, List<Step> steps) {
    this.ids = Collections.unmodifiableList(ids);
    this.steps = Collections.unmodifiableList(steps);
  }

  /** A workload of the given steps over {@code ids}, for a directed test. */
  public static CrashWorkload of(List<String> ids, List<Step> steps) {
    return new CrashWorkload(new ArrayList<>(ids), new ArrayList<>(steps));
  }

  /**
   * A workload of {@code n} steps drawn from {@code seed}, with vectors of {@code dimension}
   * components.
   */
  public static CrashWorkload generate(long seed, int n, int dimension) {
    SplittableRandom r = new SplittableRandom(seed);
    List<String> ids = new ArrayList<>();
    int count = 20 + r.nextInt(31);
    for (int i = 0; i < count; i++) {
      ids.add("doc-" + i);
    }
    // The reference follows the generation, so updates and deletes mostly hit present ids.
    ReferenceStore now = new ReferenceStore();
    List<Step> steps = new ArrayList<>();
    for (int k = 1; k <= n; k++) {
      double p = r.nextDouble();
      String id = ids.get(r.nextInt(count));
      if (p >= 0.6 && p < 0.95 && r.nextInt(5) != 0) {
        // Updates and deletes of a present id, four times in five.
        List<String> present = new ArrayList<>(now.documents().keySet());
        if (!present.isEmpty()) {
          id = present.get(r.nextInt(present.size()));
        }
      }
      Step step;
      if (p < 0.6) {
        step = new Write(Operation.put(version(id, k, dimension, r)));
      } else if (p < 0.8) {
        PartialUpdate u =
            PartialUpdate.of(id).withPrice(r.nextInt(1_000_000)).withCategory("v" + k);
        if (r.nextInt(3) == 0) {
          u = u.withEmbedding(unitVector(dimension, r));
        }
        if (r.nextInt(3) == 0) {
          u = u.withTitle("updated title u" + k);
        }
        step = new Write(Operation.update(u));
      } else if (p < 0.95) {
        step = new Write(Operation.delete(id));
      } else {
        step = new Flush();
      }
      if (step instanceof Write w) {
        now.apply(w.op());
      }
      steps.add(step);
    }
    return new CrashWorkload(ids, steps);
  }

  /** Version {@code k} of document {@code id}: its tokens name step k; seeded by {@code r}. */
  public static Document version(String id, int k, int dimension, SplittableRandom r) {
    return new Document(
        id,
        "title of " + id + " step t" + k,
        "description words w" + r.nextInt(50) + " w" + r.nextInt(50),
        "v" + k,
        r.nextInt(1_000_000),
        r.nextInt(50) / 10f,
        unitVector(dimension, r));
  }

  private static float[] unitVector(int dimension, SplittableRandom r) {
    float[] v = new float[dimension];
    double sq = 0;
    for (int i = 0; i < dimension; i++) {
      v[i] = (float) r.nextGaussian();
      sq += (double) v[i] * v[i];
    }
    float inv = (float) (1 / Math.sqrt(sq));
    for (int i = 0; i < dimension; i++) {
      v[i] *= inv;
    }
    return v;
  }

  /** Every id a step touches, in order. */
  public List<String> ids() {
    return ids;
  }

  /** The steps, in order; step k of the markers is {@code steps().get(k - 1)}. */
  public List<Step> steps() {
    return steps;
  }

  /**
   * Runs every step against {@code index}, with its markers in {@code fs}'s trace. Any failure is
   * the test's: no power is cut while the workload runs.
   */
  public void run(SearchIndex index, ForgetfulFileSystem fs) throws IOException {
    Objects.requireNonNull(index, "index");
    for (int k = 1; k <= steps.size(); k++) {
      fs.marker("invoke " + k);
      switch (steps.get(k - 1)) {
        case Write w -> {
          switch (w.op()) {
            case Operation.Put p -> index.put(p.document());
            case Operation.Update u -> index.update(u.update());
            case Operation.Delete d -> index.delete(d.id());
          }
        }
        case Flush f -> index.flush();
      }
      fs.marker("ack " + k);
    }
  }
}
