package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.searchlab.bench.load.CellStats;
import org.searchlab.bench.report.Intervals;
import org.searchlab.bench.report.ResultRow;

/**
 * The faceted query type (issue 67): the benchmark's lexical query, plain and filtered, plus the
 * {@link Facets} aggregations, measured per variant as the other types are, in paired rounds of the
 * same cells (the variants of a cell back to back, their order reversed every other round), each
 * cell a row per round and a summary row with the median and its interval, so the report's tables
 * and ratios cover it. Before the rounds, every variant answers the quality queries once: its
 * buckets must equal the exact oracle's ({@link ExactSearch#facetBuckets}), every count exact; a
 * variant whose buckets differ fails the run, after {@value #FILE_MD} says which. recall@10 of the
 * hits is the lexical query's, measured on the same answers.
 *
 * <p>A variant that refuses the body (a 4xx) is reported as refused, with the answer's status and
 * the start of its message, and gets no cells; a Vespa-dialect target is skipped (the runner does
 * not write Vespa grouping requests yet). searchlab's own mutable server, which speaks the Vespa
 * dialect for the other types, gets the Elasticsearch dialect's body (it answers both). In the last
 * round, the cells at the largest faceted client count carry a flight recording of each searchlab
 * server ({@link FacetProfile}): where its faceting time goes. Runs on the caller's thread; not
 * thread-safe.
 */
final class FacetedRounds {
  /** The query type's name in results. */
  static final String LABEL = "faceted";

  /** The report's section, which {@code ReportWriter} includes. */
  static final String FILE_MD = "facets.md";

  /** The same, as data. */
  static final String FILE_JSON = "facets.json";

  /** How much of a refusal's message the report quotes. */
  private static final int MESSAGE_PREFIX = 200;

  private final RunContext ctx;
  private final List<BenchQuery> quality;
  private final ExactSearch exact;
  private final Servers servers;
  private final Facets facets;
  private final List<BenchQuery> measured;
  private final BenchMapping mapping;

  FacetedRounds(
      RunContext ctx, Corpus corpus, List<BenchQuery> quality, ExactSearch exact, Servers servers) {
    this.ctx = ctx;
    this.quality = quality;
    this.exact = exact;
    this.servers = servers;
    this.facets = Facets.of(corpus.mapping(), corpus.docs());
    this.measured = corpus.queries();
    this.mapping = corpus.mapping();
  }

  /** Timed cells of all rounds, for the progress estimate. */
  static int cells(Profile p, int variants) {
    return p.facets() ? p.rounds() * variants * 2 * p.facetClients().size() : 0;
  }

  /** Queries of the bucket checks, for the progress estimate. */
  static long checks(Profile p, int variants) {
    return p.facets() ? 2L * p.recallQueries() * variants : 0;
  }

  /** What became of a variant: measured, refused by the engine, or skipped by the runner. */
  private record Status(String state, String reason) {}

  void run() throws IOException, InterruptedException {
    Profile p = ctx.profile;
    ObjectNode json = Json.object();
    json.put("facets", facets.describe());
    StringBuilder md = new StringBuilder("## Faceted queries\n\n");
    md.append("The lexical query (plain and filtered) plus aggregations over all its matches: ")
        .append(facets.describe())
        .append(
            ". Cells as the other types' (paired rounds, QPS/core with intervals in the tables"
                + " above; ratios in the ratio tables), at ")
        .append(p.facetClients())
        .append(" clients. recall@10 is the lexical hits'. Buckets: the share of the quality")
        .append(" queries whose buckets (keys and counts, in order) equal the exact oracle's.\n\n");
    if (!facets.any()) {
      md.append("No faceted cells: the mapping has no field to aggregate.\n\n");
      write(md, json);
      return;
    }
    if (!p.facets()) {
      // The bucket check scans every match of each quality query (about 100 min at 1M documents).
      md.append("No faceted cells: the ")
          .append(p.name())
          .append(" profile (or --no-facets) leaves them out.\n\n");
      json.put("skipped", "profile");
      write(md, json);
      return;
    }
    List<Variant> variants = servers.variants();
    Map<Variant, Status> status = new LinkedHashMap<>();
    Map<Variant, SearchDialect> dialects = new LinkedHashMap<>();
    for (Variant v : variants) {
      SearchDialect d = servers.session(v, 0).dialect;
      if (d instanceof VespaDialect) {
        if (v.isTarget()) {
          status.put(
              v,
              new Status(
                  "skipped",
                  "a Vespa-dialect target: this runner does not write Vespa grouping requests yet,"
                      + " so no faceted request is sent"));
          continue;
        }
        // searchlab's mutable server answers the Elasticsearch dialect too.
        d = new EsDialect(mapping, false);
      }
      dialects.put(v, d);
    }
    Map<String, Double> exactShare = new LinkedHashMap<>();
    Map<String, ResultRow> qualityOf = new HashMap<>();
    List<String> mismatches = new ArrayList<>();
    for (boolean f : new boolean[] {false, true}) {
      long checkStart = System.nanoTime();
      List<List<String>> oracle = new ArrayList<>();
      for (BenchQuery q : quality) {
        oracle.add(exact.facetBuckets(q, f, facets));
      }
      Map<String, List<List<String>>> answers = new LinkedHashMap<>();
      for (Map.Entry<Variant, SearchDialect> e : dialects.entrySet()) {
        Variant v = e.getKey();
        if (status.containsKey(v)) {
          continue;
        }
        double share = 1;
        for (int i = 0; i < servers.feeds(v) && !status.containsKey(v); i++) {
          Session s = servers.session(v, i);
          List<HttpRequest> requests = new ArrayList<>();
          for (BenchQuery q : quality) {
            requests.add(e.getValue().faceted(s.base, q, f, facets));
          }
          List<HttpResponse<byte[]>> responses = s.responses(requests);
          List<List<String>> ids = new ArrayList<>();
          int equal = 0;
          for (int qi = 0; qi < responses.size(); qi++) {
            HttpResponse<byte[]> r = responses.get(qi);
            String body = new String(r.body(), StandardCharsets.UTF_8);
            if (r.statusCode() != 200) {
              if (r.statusCode() >= 500) {
                throw new IOException(
                    v.label() + ": a faceted search answered " + r.statusCode() + ": " + body);
              }
              status.put(
                  v,
                  new Status(
                      "refused",
                      "HTTP "
                          + r.statusCode()
                          + ": "
                          + body.substring(0, Math.min(body.length(), MESSAGE_PREFIX))));
              break;
            }
            JsonNode answer = Json.MAPPER.readTree(r.body());
            ids.add(EsDialect.hitIds(r.body()));
            List<String> got = Facets.buckets(answer.path("aggregations"));
            if (got.equals(oracle.get(qi))) {
              equal++;
            } else if (mismatches.size() < 5) {
              mismatches.add(
                  String.format(
                      Locale.ROOT,
                      "%s%s%s, query \"%s\": expected %s, got %s",
                      v.label(),
                      i == 0 ? "" : " feed " + (i + 1),
                      f ? " filtered" : "",
                      quality.get(qi).text(),
                      oracle.get(qi),
                      got));
            }
          }
          if (!status.containsKey(v)) {
            share = Math.min(share, equal / (double) quality.size());
            answers.put(feedLabel(v, i), ids);
          }
        }
        if (!status.containsKey(v)) {
          exactShare.put(key(v, f), share);
        }
      }
      List<Variant> answering =
          variants.stream().filter(v -> !status.containsKey(v) && dialects.containsKey(v)).toList();
      List<List<String>> pairs = pairs(answering);
      QualityCheck.Result q =
          QualityCheck.evaluate(exact, quality, QueryType.LEXICAL, f, answers, pairs);
      for (Variant v : answering) {
        String pair = PairedRounds.pairKey(pairs, v);
        // With several feeds, recall is the lowest over them; overlap is the first feed's.
        qualityOf.put(
            key(v, f),
            Rows.query(ctx.info, v.label(), "", LABEL, f, 0, null, null, PairedRounds.EMPTY)
                .withQuality(lowest(q.recall(), v), q.overlap().get(pair))
                .withIdQuality(lowest(q.recallIds(), v), q.overlapIds().get(pair)));
      }
      ctx.progress.checked(
          (long) answers.size() * quality.size(), (System.nanoTime() - checkStart) / 1e9);
      ctx.progress.step(
          PairedRounds.phaseOf(variants.get(0)),
          String.format(
              "%s%s: buckets equal to the oracle's %s, tie-aware recall@10 %s",
              LABEL, f ? " filtered" : "", exactShare, q.recall()));
    }
    for (Variant v : dialects.keySet()) {
      status.putIfAbsent(v, new Status("measured", null));
    }
    md.append("| variant | faceted | buckets exact | buckets exact, filtered | note |\n")
        .append("|---|---|---:|---:|---|\n");
    ArrayNode vs = json.putArray("variants");
    for (Variant v : variants) {
      Status st = status.get(v);
      ObjectNode n = vs.addObject();
      n.put("variant", v.label());
      n.put("state", st.state());
      n.put("reason", st.reason());
      Double plain = exactShare.get(key(v, false));
      Double filtered = exactShare.get(key(v, true));
      n.put("buckets_exact", plain);
      n.put("buckets_exact_filtered", filtered);
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s |%n",
              v.label(),
              st.state(),
              share(plain),
              share(filtered),
              st.reason() == null
                  ? ""
                  : st.reason().replace('|', '/').replace('\n', ' ').replace('`', '\'')));
    }
    md.append('\n');
    if (!mismatches.isEmpty()) {
      md.append("**Buckets differ from the exact oracle's** (the run stopped here):\n\n");
      mismatches.forEach(m -> md.append("- ").append(m).append('\n'));
      json.putPOJO("mismatches", mismatches);
      write(md, json);
      throw new IllegalStateException(
          "faceted buckets differ from the exact oracle's: " + String.join("; ", mismatches));
    }
    List<Variant> timed =
        variants.stream().filter(v -> status.get(v).state().equals("measured")).toList();
    Map<String, FacetProfile.Summary> profiles = new LinkedHashMap<>();
    if (!timed.isEmpty()) {
      measure(timed, dialects, qualityOf, profiles);
    }
    profileTable(md, json, profiles);
    write(md, json);
  }

  private void measure(
      List<Variant> timed,
      Map<Variant, SearchDialect> dialects,
      Map<String, ResultRow> qualityOf,
      Map<String, FacetProfile.Summary> profiles)
      throws IOException, InterruptedException {
    Profile p = ctx.profile;
    Map<String, List<HttpRequest>> requests = new HashMap<>();
    for (Variant v : timed) {
      for (int i = 0; i < servers.feeds(v); i++) {
        Session s = servers.session(v, i);
        for (boolean f : new boolean[] {false, true}) {
          List<HttpRequest> r = new ArrayList<>(measured.size());
          for (BenchQuery q : measured) {
            r.add(dialects.get(v).faceted(s.base, q, f, facets));
          }
          requests.put(key(v, f) + "#" + i, r);
        }
      }
    }
    List<Integer> clientCounts = p.facetClients();
    int profiled = clientCounts.getLast();
    Map<String, List<ResultRow>> perCell = new LinkedHashMap<>();
    for (int round = 1; round <= p.rounds(); round++) {
      List<Variant> order = new ArrayList<>(timed);
      if (round % 2 == 0) {
        java.util.Collections.reverse(order);
      }
      for (boolean f : new boolean[] {false, true}) {
        for (int clients : clientCounts) {
          for (Variant v : order) {
            int feed = servers.feedOfRound(v, round);
            Session s = servers.session(v, feed);
            ctx.progress.cell(
                PairedRounds.phaseOf(v),
                String.format(
                    "round %d/%d %s %s%s clients=%d%s",
                    round,
                    p.rounds(),
                    v.label(),
                    LABEL,
                    f ? " filtered" : "",
                    clients,
                    servers.feeds(v) > 1 ? " feed " + (feed + 1) : ""),
                PairedRounds.seconds(p));
            boolean profile =
                round == p.rounds() && clients == profiled && s.serverPid().isPresent();
            FacetProfile jfr = profile ? startProfile(v, s) : null;
            CellStats c;
            try {
              c = s.cell(requests.get(key(v, f) + "#" + feed), clients, p.warmup(), p.duration());
              if (jfr != null) {
                Path file =
                    ctx.outDir
                        .resolve("profiles")
                        .resolve(v.label() + "-" + LABEL + (f ? "-filtered" : "") + ".jfr");
                FacetProfile.Summary sum = jfr.stop(file);
                profiles.merge(v.label(), sum, FacetedRounds::add);
              }
            } finally {
              if (jfr != null) {
                jfr.close();
              }
            }
            if (c.errors() > 0) {
              ctx.log.printf(
                  "WARNING: %s %s: %d failed requests in the cell, the first: %s%n",
                  v.label(), LABEL, c.errors(), c.firstError());
            }
            ResultRow row =
                Rows.query(
                        ctx.info,
                        v.label(),
                        PairedRounds.phaseOf(v),
                        LABEL,
                        f,
                        clients,
                        servers.segments(v, feed),
                        null,
                        c)
                    .withRound(round);
            ctx.add(row);
            perCell.computeIfAbsent(key(v, f) + "|" + clients, k -> new ArrayList<>()).add(row);
          }
        }
      }
    }
    for (List<ResultRow> rounds : perCell.values()) {
      ResultRow first = rounds.get(0);
      ResultRow q = qualityOf.get(first.variant() + "|" + first.filtered());
      ctx.add(
          Rows.query(
                  ctx.info,
                  first.variant(),
                  first.phase(),
                  LABEL,
                  first.filtered(),
                  first.clients(),
                  first.segments(),
                  null,
                  PairedRounds.median(rounds))
              .withInterval(
                  Intervals.median(PairedRounds.values(rounds, ResultRow::qps)),
                  Intervals.median(PairedRounds.values(rounds, ResultRow::qpsPerCore)))
              .withQuality(q == null ? null : q.recallAt10(), q == null ? null : q.overlapAt10())
              .withIdQuality(
                  q == null ? null : q.recallAt10Ids(), q == null ? null : q.overlapAt10Ids()));
    }
  }

  /**
   * The overlap pairs of the variants that answer: the query phase's ({@link PairedRounds#pairs}),
   * and a variant without one there (the segmented variants where mutable refused) against the
   * first other variant that answers.
   */
  static List<List<String>> pairs(List<Variant> answering) {
    List<List<String>> out = new ArrayList<>(PairedRounds.pairs(answering));
    for (Variant v : answering) {
      if (out.stream().noneMatch(x -> x.get(0).equals(v.label()))) {
        answering.stream()
            .filter(o -> !o.equals(v))
            .findFirst()
            .ifPresent(o -> out.add(List.of(v.label(), o.label())));
      }
    }
    return out;
  }

  /** A flight recording in the server of {@code s}, or null (and a warning) where none starts. */
  private FacetProfile startProfile(Variant v, Session s) {
    try {
      return FacetProfile.start(s.serverPid().getAsLong());
    } catch (IOException | RuntimeException e) {
      ctx.log.printf("WARNING: %s: no flight recording of its faceted cells: %s%n", v.label(), e);
      return null;
    }
  }

  private static FacetProfile.Summary add(FacetProfile.Summary a, FacetProfile.Summary b) {
    Map<String, Long> cat = new LinkedHashMap<>(a.byCategory());
    b.byCategory().forEach((k, x) -> cat.merge(k, x, Long::sum));
    Map<String, Long> methods = new java.util.TreeMap<>(a.byMethod());
    b.byMethod().forEach((k, x) -> methods.merge(k, x, Long::sum));
    return new FacetProfile.Summary(a.samples() + b.samples(), cat, methods);
  }

  /** The table of where faceting time goes, a column per profiled variant, and its top methods. */
  private void profileTable(
      StringBuilder md, ObjectNode json, Map<String, FacetProfile.Summary> profiles) {
    if (profiles.isEmpty()) {
      return;
    }
    md.append("### Where faceting time goes\n\n")
        .append(
            "Share of the server JVM's Java execution samples (JDK Flight Recorder, `profile`"
                + " settings, one sample per running thread every 10 ms) over the last round's"
                + " faceted cells at ")
        .append(ctx.profile.facetClients().getLast())
        .append(
            " clients, plain and filtered together, by the innermost frame of searchlab, Lucene,"
                + " Jackson or Netty (`FacetProfile`). The recordings are in `profiles/`; open"
                + " them with `jfr print` or JDK Mission Control.\n\n| category |");
    profiles.keySet().forEach(v -> md.append(' ').append(v).append(" |"));
    md.append("\n|---|").append("---:|".repeat(profiles.size())).append('\n');
    for (String c : FacetProfile.CATEGORIES) {
      md.append("| ").append(c).append(" |");
      for (FacetProfile.Summary s : profiles.values()) {
        md.append(String.format(Locale.ROOT, " %.0f%% |", 100 * s.share(c)));
      }
      md.append('\n');
    }
    md.append("| samples |");
    profiles.values().forEach(s -> md.append(' ').append(s.samples()).append(" |"));
    md.append("\n\n");
    ObjectNode pj = json.putObject("profiles");
    for (Map.Entry<String, FacetProfile.Summary> e : profiles.entrySet()) {
      md.append("Top methods of ").append(e.getKey()).append(": ");
      List<String> top = new ArrayList<>();
      for (Map.Entry<String, Long> m : e.getValue().top(5)) {
        top.add(
            String.format(
                Locale.ROOT,
                "`%s` %.0f%%",
                m.getKey(),
                100.0 * m.getValue() / Math.max(1, e.getValue().samples())));
      }
      md.append(String.join(", ", top)).append(".\n\n");
      ObjectNode n = pj.putObject(e.getKey());
      n.put("samples", e.getValue().samples());
      n.putPOJO("by_category", e.getValue().byCategory());
      n.putPOJO("top_methods", e.getValue().top(10).stream().map(Map.Entry::getKey).toList());
    }
  }

  private void write(StringBuilder md, ObjectNode json) throws IOException {
    Files.writeString(ctx.outDir.resolve(FILE_MD), md);
    Files.writeString(ctx.outDir.resolve(FILE_JSON), json.toPrettyString());
  }

  /** The lowest of a per-feed measure over {@code v}'s feeds, null where a feed has none. */
  private Double lowest(Map<String, Double> measure, Variant v) {
    Double min = null;
    for (int i = 0; i < servers.feeds(v); i++) {
      Double x = measure.get(feedLabel(v, i));
      if (x == null) {
        return null;
      }
      min = min == null ? x : Math.min(min, x);
    }
    return min;
  }

  private static String share(Double d) {
    return d == null ? "–" : String.format(Locale.ROOT, "%.3f", d);
  }

  private static String key(Variant v, boolean f) {
    return v.label() + "|" + f;
  }

  private static String feedLabel(Variant v, int feed) {
    return feed == 0 ? v.label() : v.label() + "#" + (feed + 1);
  }
}
