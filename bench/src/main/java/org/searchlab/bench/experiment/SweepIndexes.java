package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * The indexes of the segment sweep, one per segment count, each copied once per {@link
 * SweepSetting} so that every setting's server opens its own. The sweep corpus is fed once with one
 * segment per bulk request and merge policy {@code none} (batches sent one at a time, refresh only
 * on request, so B batches make exactly B segments), then force-merged down through the profile's
 * segment counts; after each merge the server is stopped, the index copied and the server started
 * again for the next merge.
 *
 * <p>The batches are not equal: their sizes are drawn log-uniformly over a {@value #SIZE_SPREAD}×
 * range ({@link #batchSizes}, seeded by {@link #SEED}) and fed largest first. That is the spread a
 * tiered merge policy leaves (Lucene's and Elasticsearch's defaults: 10 segments per tier, 10
 * merged at once, so each tier's segments are about ten times the size of the tier below): every
 * decade of size holds about as many segments, most documents sit in the few largest, and the
 * oldest segments are the largest. Equal batches made every segment of a count the same size, which
 * no feed leaves, and let Lucene's default slicing (up to 5 segments per slice) split the work
 * evenly where a real index gives one slice most of it. The force-merges that follow keep a spread
 * (a forced merge joins segments until the count is reached, not into equal parts). The sizes each
 * count ended with are recorded ({@link Built#docsPerSegment}) and shown in the report.
 *
 * <p>Runs on the caller's thread; not thread-safe.
 */
final class SweepIndexes {
  /** Ratio of the largest batch's expected size to the smallest's: two tiers of 10×. */
  static final double SIZE_SPREAD = 100;

  /** The seed of the batch sizes: the same segment structure in every run of a profile. */
  static final long SEED = 71;

  /**
   * What {@link #build} left: per segment count (descending), each setting's copy of the index and
   * the documents of each of its segments (largest first).
   */
  record Built(
      Map<Integer, Map<SweepSetting, Path>> dirs, Map<Integer, List<Integer>> docsPerSegment) {}

  private SweepIndexes() {}

  /**
   * {@code segments} batch sizes that add up to {@code docs}, drawn log-uniformly over a {@value
   * #SIZE_SPREAD}× range, each at least 1, largest first.
   *
   * @throws IllegalArgumentException when there are fewer documents than segments
   */
  static List<Integer> batchSizes(int docs, int segments, long seed) {
    if (segments < 1 || docs < segments) {
      throw new IllegalArgumentException(
          "the sweep needs at least one document per segment: "
              + docs
              + " documents cannot make "
              + segments
              + " segments");
    }
    SplittableRandom random = new SplittableRandom(seed);
    double[] w = new double[segments];
    double sum = 0;
    for (int i = 0; i < segments; i++) {
      w[i] = Math.pow(SIZE_SPREAD, random.nextDouble());
      sum += w[i];
    }
    Arrays.sort(w);
    int[] sizes = new int[segments];
    int assigned = 0;
    for (int i = 0; i < segments; i++) {
      // largest first
      sizes[i] = Math.max(1, (int) Math.floor(docs * w[segments - 1 - i] / sum));
      assigned += sizes[i];
    }
    // The rounding remainder goes to (or comes from) the largest batches first; none drops to 0.
    for (int i = 0, rest = docs - assigned; rest != 0; i = (i + 1) % segments) {
      if (rest > 0) {
        sizes[i]++;
        rest--;
      } else if (sizes[i] > 1) {
        sizes[i]--;
        rest++;
      }
    }
    return Arrays.stream(sizes).boxed().toList();
  }

  /** Feeds, merges and copies the indexes of every segment count of the profile. */
  static Built build(RunContext ctx, Corpus corpus, List<SweepSetting> settings)
      throws IOException, InterruptedException {
    Profile p = ctx.profile;
    List<Integer> counts = p.sweepSegments();
    List<Integer> sizes = batchSizes(corpus.docs().size(), counts.get(0), SEED);
    ServerOptions base =
        ServerOptions.defaults(SegmentSweep.VARIANT, corpus.dimension()).toBuilder()
            .segmentPerBatch(true)
            .mergePolicyNone(true)
            .refreshIntervalMs(-1)
            .feedNiceness(p.serverFeedNiceness())
            .build();
    Path root = ctx.dataDir("sweep");
    Path data = Files.createDirectories(root.resolve("build"));
    Path log = ctx.serverLog("sweep-build");
    Map<Integer, Map<SweepSetting, Path>> dirs = new LinkedHashMap<>();
    Map<Integer, List<Integer>> docsPerSegment = new LinkedHashMap<>();
    Session s = Session.start(base, data, p.serverHeap(), log, ctx.load);
    try {
      s.admin.createIndex(corpus.dimension(), 16, 200);
      ctx.progress.step(
          Phases.SWEEP,
          String.format(
              "indexing %d docs in %d batches of %d to %d docs (log-uniform over %.0f×, seed %d),"
                  + " one segment each",
              corpus.docs().size(),
              sizes.size(),
              sizes.getLast(),
              sizes.getFirst(),
              SIZE_SPREAD,
              SEED));
      List<FeedStats> fed = new ArrayList<>();
      int from = 0;
      for (int size : sizes) {
        fed.add(
            s.feeder(size).feed(corpus.docs().subList(from, from + size), FeedOp.PUT, s.cpu, 1));
        from += size;
      }
      FeedStats feed = FeedStats.sum(fed).requireComplete("the sweep's index");
      ctx.progress.fed(feed.docs(), feed.seconds());
      s.admin.refresh();
      ctx.progress.step(
          Phases.SWEEP, ProcedureRun.describe(feed) + ", segments " + s.admin.segments());
      for (int i = 0; i < counts.size(); i++) {
        int target = counts.get(i);
        Integer before = s.admin.segments();
        if (before == null || before > target) {
          ctx.progress.step(Phases.SWEEP, "force-merging " + before + " → " + target + " segments");
          s.admin.forceMerge(target);
          s.admin.refresh();
        }
        s.admin.flush();
        List<Integer> docs = docsPerSegment(ctx, s);
        docsPerSegment.put(target, docs);
        ctx.progress.step(
            Phases.SWEEP,
            String.format(
                "%d segments of %d to %d docs (median %d)",
                docs.size(),
                docs.isEmpty() ? 0 : docs.getLast(),
                docs.isEmpty() ? 0 : docs.getFirst(),
                docs.isEmpty() ? 0 : docs.get(docs.size() / 2)));
        // A copy of a stopped server's index: nothing is written to it while it is copied.
        s.close();
        s = null;
        Map<SweepSetting, Path> copies = new LinkedHashMap<>();
        for (SweepSetting setting : settings) {
          Path copy = root.resolve(target + "-" + setting.label());
          copyTree(data, copy);
          copies.put(setting, copy);
        }
        dirs.put(target, copies);
        if (i + 1 < counts.size()) {
          s = Session.start(base, data, p.serverHeap(), log, ctx.load);
        }
      }
    } finally {
      if (s != null) {
        s.close();
      }
    }
    ExperimentRunner.deleteData(data);
    return new Built(dirs, docsPerSegment);
  }

  /**
   * The live documents of each searchable segment, largest first, from {@code GET
   * /product/_segments}; empty when the server does not list them.
   */
  private static List<Integer> docsPerSegment(RunContext ctx, Session s)
      throws IOException, InterruptedException {
    String index = BenchMapping.PRODUCT.index();
    HttpResponse<byte[]> r =
        ctx.load
            .http()
            .send(
                HttpRequest.newBuilder(s.base.resolve("/" + index + "/_segments"))
                    .timeout(Json.REQUEST_TIMEOUT)
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    List<Integer> out = new ArrayList<>();
    if (r.statusCode() != 200) {
      return out;
    }
    JsonNode segments =
        Json.MAPPER
            .readTree(r.body())
            .path("indices")
            .path(index)
            .path("shards")
            .path("0")
            .path(0)
            .path("segments");
    segments.forEach(n -> out.add(n.path("num_docs").asInt()));
    out.sort(Comparator.reverseOrder());
    return out;
  }

  /** Copies a directory tree; the target must not exist yet. */
  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path src : walk.toList()) {
        Path dst = to.resolve(from.relativize(src).toString());
        if (Files.isDirectory(src)) {
          Files.createDirectories(dst);
        } else {
          Files.copy(src, dst);
        }
      }
    }
  }
}
