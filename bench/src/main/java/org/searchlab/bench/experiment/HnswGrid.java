package org.searchlab.bench.experiment;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import org.searchlab.bench.load.CellStats;
import org.searchlab.bench.report.RunInfo;

/**
 * DocArray's HNSW parameter grid: M ∈ {16, 32} × efConstruction ∈ {64, 128, 256} × ef ∈ {32, 64,
 * 128, 256}, per store. Each (M, efConstruction) builds a fresh index (the segmented store
 * force-merged to one segment, so the grid measures the graph and not the segment count); each ef
 * measures recall@10 of unfiltered top-10 vector queries against exact search and the queries per
 * second of one client. Runs on the caller's thread; not thread-safe.
 */
final class HnswGrid {
  static final List<Integer> M = List.of(16, 32);
  static final List<Integer> EF_CONSTRUCTION = List.of(64, 128, 256);
  static final List<Integer> EF = List.of(32, 64, 128, 256);
  static final int K = 10;

  private final RunContext ctx;
  private final Corpus corpus;
  private final List<BenchQuery> qualityQueries;
  private final ExactSearch exact;

  HnswGrid(
      RunContext ctx, Corpus corpus, List<BenchQuery> qualityQueries, ExactSearch exactSearch) {
    this.ctx = ctx;
    this.corpus = corpus;
    this.qualityQueries = qualityQueries;
    this.exact = exactSearch;
  }

  static int cells(int stores) {
    return stores * M.size() * EF_CONSTRUCTION.size() * EF.size();
  }

  void run(List<String> stores) throws IOException, InterruptedException {
    Profile p = ctx.profile;
    RunInfo info = ctx.info.withDocs(corpus.docs().size());
    for (String store : stores) {
      String variant = store.equals("segmented") ? Variant.SEGMENTED_FORCEMERGED.label() : store;
      for (int m : M) {
        for (int efc : EF_CONSTRUCTION) {
          String name = "grid-" + store + "-m" + m + "-efc" + efc;
          try (Session s =
              Session.start(
                  ServerOptions.defaults(store, corpus.dimension()).toBuilder()
                      .hnswM(m)
                      .hnswEfConstruction(efc)
                      .feedNiceness(p.serverFeedNiceness())
                      .build(),
                  ctx.dataDir(name),
                  p.serverHeap(),
                  ctx.serverLog(name),
                  ctx.load)) {
            s.admin.createIndex(corpus.dimension(), m, efc);
            FeedStats feed =
                s.feeder(Feeder.ES_BATCH)
                    .feed(corpus.docs(), FeedOp.PUT, s.cpu)
                    .requireComplete(name);
            ctx.progress.fed(feed.docs(), feed.seconds());
            s.admin.refresh();
            if (store.equals("segmented")) {
              s.admin.forceMerge(1);
              s.admin.refresh();
            }
            ctx.progress.step(Phases.GRID, name + ": " + ProcedureRun.describe(feed));
            s.warmUp(corpus.queries(), ProcedureRun.jitWarmup(p));
            for (int ef : EF) {
              List<HttpRequest> quality = new ArrayList<>();
              for (BenchQuery q : qualityQueries) {
                quality.add(s.dialect.vectorSearch(s.base, q, K, ef));
              }
              Double recall =
                  QualityCheck.evaluate(
                          exact,
                          qualityQueries,
                          QueryType.VECTOR,
                          false,
                          java.util.Map.of(name, s.ids(quality)),
                          List.of())
                      .recall()
                      .get(name);
              List<HttpRequest> load = new ArrayList<>();
              for (BenchQuery q : corpus.queries()) {
                load.add(s.dialect.vectorSearch(s.base, q, K, ef));
              }
              ctx.progress.cell(
                  Phases.GRID,
                  String.format(
                      "%s M=%d efC=%d ef=%d recall=%.3f",
                      store, m, efc, ef, recall == null ? Double.NaN : recall),
                  ProcedureRun.seconds(p));
              CellStats c = s.cell(load, 1, p.warmup(), p.duration());
              ctx.add(Rows.grid(info, variant, m, efc, ef, c, recall));
            }
          }
        }
      }
    }
  }
}
