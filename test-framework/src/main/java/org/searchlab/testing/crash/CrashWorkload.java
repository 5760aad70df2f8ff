package org.searchlab.testing.crash;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.SearchIndex;
import org.searchlab.testing.disk.ForgetfulFileSystem;

/**
 * A seeded single-threaded workload whose file operations a crash-point test records (design note
 * of issue 70, §4.1): puts (60 %), partial updates (20 %), deletes (15 %) and flushes (5 %) over 20
 * to 50 ids; {@link Mix#WITH_BULKS_AND_REFRESHES} also turns some steps into bulks of 2 to 6 writes
 * and refreshes. Every version of a document carries a keyword token no other version has ({@code
 * category} {@code "v<k>"} for position k), so a recovered document names the write that made it;
 * every put has a unit vector, and one update in three assigns a new one, so the graph files are
 * written.
 *
 * <p><em>Positions</em> number the writes the reference counts, from 1: a bulk of m writes takes m
 * positions, every other step one. {@link #run} puts {@code "invoke k"} before a step and {@code
 * "ack k"} after it returned into the trace, k being the step's last position; so with a bulk in
 * flight the invoked count is ahead of the acknowledged one by its m writes, any prefix of which a
 * crash may keep. One thread runs the steps, so the trace's order is the log's.
 *
 * <p>Immutable once generated; {@link #run} is not thread-safe (one store, one thread).
 */
public final class CrashWorkload {
  /** One step: a write, a bulk of writes, a refresh or a flush. */
  public sealed interface Step permits Write, Bulk, Refresh, Flush {}

  /** A write through the store's API. */
  public record Write(Operation op) implements Step {}

  /**
   * Writes in one {@link SearchIndex#bulk} call, applied and logged in order; one position each.
   */
  public record Bulk(List<Operation> ops) implements Step {
    public Bulk {
      ops = List.copyOf(ops);
      if (ops.isEmpty()) {
        throw new IllegalArgumentException("a bulk needs at least one write");
      }
    }
  }

  /** A refresh: new segments or views for search; the documents do not change. */
  public record Refresh() implements Step {}

  /** A flush: a snapshot or a commit, and a log trim; the documents do not change. */
  public record Flush() implements Step {}

  /**
   * Which steps besides single writes and flushes a generated workload has.
   *
   * @param bulks the share of steps that are bulks, in [0, 1)
   * @param refreshes the share of steps that are refreshes, in [0, 1)
   */
  public record Mix(double bulks, double refreshes) {
    /** Single writes and flushes only: the workload the mutable store's crash points run. */
    public static final Mix WRITES_AND_FLUSHES = new Mix(0, 0);

    /** One step in ten a bulk and one in ten a refresh, besides the writes and flushes. */
    public static final Mix WITH_BULKS_AND_REFRESHES = new Mix(0.1, 0.1);

    public Mix {
      if (!(bulks >= 0 && refreshes >= 0 && bulks + refreshes < 1)) {
        throw new IllegalArgumentException(
            "bulks " + bulks + " and refreshes " + refreshes + " must be >= 0 and sum below 1");
      }
    }
  }

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
   * components: single writes and flushes ({@link Mix#WRITES_AND_FLUSHES}).
   */
  public static CrashWorkload generate(long seed, int n, int dimension) {
    return generate(seed, n, dimension, Mix.WRITES_AND_FLUSHES);
  }

  /**
   * A workload of {@code n} steps drawn from {@code seed} with the steps {@code mix} adds, with
   * vectors of {@code dimension} components. With {@link Mix#WRITES_AND_FLUSHES} it draws exactly
   * what {@link #generate(long, int, int)} always drew, so a seed's trace stays the same.
   */
  public static CrashWorkload generate(long seed, int n, int dimension, Mix mix) {
    SplittableRandom r = new SplittableRandom(seed);
    List<String> ids = new ArrayList<>();
    int count = 20 + r.nextInt(31);
    for (int i = 0; i < count; i++) {
      ids.add("doc-" + i);
    }
    boolean extras = mix.bulks() > 0 || mix.refreshes() > 0;
    // The reference follows the generation, so updates and deletes mostly hit present ids.
    ReferenceStore now = new ReferenceStore();
    List<Step> steps = new ArrayList<>();
    int position = 0;
    for (int k = 1; k <= n; k++) {
      double q = extras ? r.nextDouble() : 1;
      if (q < mix.bulks()) {
        List<Operation> ops = new ArrayList<>();
        for (int m = 2 + r.nextInt(5); m > 0; m--) {
          Operation op = write(++position, ids, now, dimension, r, 0.95 * r.nextDouble());
          now.apply(op);
          ops.add(op);
        }
        steps.add(new Bulk(ops));
        continue;
      }
      if (q < mix.bulks() + mix.refreshes()) {
        position++;
        steps.add(new Refresh());
        continue;
      }
      position++;
      double p = r.nextDouble();
      if (p >= 0.95) {
        // The same draws as a write would make, so a seed's writes do not depend on the flushes.
        r.nextInt(count);
        steps.add(new Flush());
        continue;
      }
      Operation op = write(position, ids, now, dimension, r, p);
      now.apply(op);
      steps.add(new Write(op));
    }
    return new CrashWorkload(ids, steps);
  }

  /**
   * The write at {@code position}: a put when {@code p < 0.6}, a partial update below 0.8, else a
   * delete; updates and deletes hit a present id four times in five.
   */
  private static Operation write(
      int position,
      List<String> ids,
      ReferenceStore now,
      int dimension,
      SplittableRandom r,
      double p) {
    String id = ids.get(r.nextInt(ids.size()));
    if (p >= 0.6 && r.nextInt(5) != 0) {
      List<String> present = new ArrayList<>(now.documents().keySet());
      if (!present.isEmpty()) {
        id = present.get(r.nextInt(present.size()));
      }
    }
    if (p < 0.6) {
      return Operation.put(version(id, position, dimension, r));
    }
    if (p < 0.8) {
      PartialUpdate u =
          PartialUpdate.of(id).withPrice(r.nextInt(1_000_000)).withCategory("v" + position);
      if (r.nextInt(3) == 0) {
        u = u.withEmbedding(unitVector(dimension, r));
      }
      if (r.nextInt(3) == 0) {
        u = u.withTitle("updated title u" + position);
      }
      return Operation.update(u);
    }
    return Operation.delete(id);
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

  /**
   * This workload with a refresh after every {@code k}-th step that puts a document (a put, or a
   * bulk holding one), so that a store which writes a segment per refresh writes some of its own
   * whatever the seed drew: a refresh right after a put always has a buffered document to write.
   */
  public CrashWorkload withRefreshEveryPuts(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("refresh every " + k + " puts: k must be at least 1");
    }
    List<Step> out = new ArrayList<>();
    int puts = 0;
    for (Step step : steps) {
      out.add(step);
      boolean put =
          switch (step) {
            case Write w -> w.op() instanceof Operation.Put;
            case Bulk b -> b.ops().stream().anyMatch(op -> op instanceof Operation.Put);
            case Refresh r -> false;
            case Flush f -> false;
          };
      if (put && ++puts % k == 0) {
        out.add(new Refresh());
      }
    }
    return new CrashWorkload(new ArrayList<>(ids), out);
  }

  /**
   * This workload with a flush after every {@code k}-th step, so that even a short trace holds
   * several snapshots or commits whatever the seed drew.
   */
  public CrashWorkload withFlushEvery(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("flush every " + k + " steps: k must be at least 1");
    }
    List<Step> out = new ArrayList<>();
    for (int i = 0; i < steps.size(); i++) {
      out.add(steps.get(i));
      if ((i + 1) % k == 0) {
        out.add(new Flush());
      }
    }
    return new CrashWorkload(new ArrayList<>(ids), out);
  }

  /** Every id a step touches, in order. */
  public List<String> ids() {
    return ids;
  }

  /** The steps, in order. */
  public List<Step> steps() {
    return steps;
  }

  /** How many positions a step takes: a bulk's writes, else one. */
  public static int width(Step step) {
    return step instanceof Bulk b ? b.ops().size() : 1;
  }

  /**
   * Runs every step against {@code index}, with its markers in {@code fs}'s trace. Any failure is
   * the test's: no power is cut while the workload runs.
   */
  public void run(SearchIndex index, ForgetfulFileSystem fs) throws IOException {
    Objects.requireNonNull(index, "index");
    int k = 0;
    for (Step step : steps) {
      k += width(step);
      fs.marker("invoke " + k);
      switch (step) {
        case Write w -> {
          switch (w.op()) {
            case Operation.Put p -> index.put(p.document());
            case Operation.Update u -> index.update(u.update());
            case Operation.Delete d -> index.delete(d.id());
          }
        }
        case Bulk b -> {
          for (BulkItemResult item : index.bulk(b.ops())) {
            if (item.error() != null) {
              throw new IOException("bulk item " + item + " failed");
            }
          }
        }
        case Refresh f -> index.refresh();
        case Flush f -> index.flush();
      }
      fs.marker("ack " + k);
    }
  }
}
