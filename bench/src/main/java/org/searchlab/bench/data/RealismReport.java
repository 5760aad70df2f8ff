package org.searchlab.bench.data;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Stream;
import org.searchlab.core.Document;

/**
 * The realism statistics of one or more built datasets side by side ({@code dataset stats}):
 * neighbour distances, local intrinsic dimension and near-copies ({@link NeighbourStats}) and
 * posting-list lengths ({@link PostingStats}), written as {@value #JSON} and {@value #MARKDOWN}.
 * Stateless.
 */
final class RealismReport {
  static final String JSON = "realism.json";
  static final String MARKDOWN = "realism.md";

  /** The quantiles every distribution is summarised by. */
  static final double[] QUANTILES = {0.1, 0.5, 0.9};

  private RealismReport() {}

  /**
   * One corpus's statistics.
   *
   * @param name what the corpus is, as the table's column heads it
   * @param documents its size
   * @param neighbours the neighbour statistics of its sampled queries
   * @param identical its groups of identical vectors
   * @param postings its posting statistics
   * @param queryPostings per query, the postings its text touches
   */
  record Corpus(
      String name,
      long documents,
      NeighbourStats neighbours,
      IdenticalVectors identical,
      PostingStats postings,
      double[] queryPostings) {}

  /**
   * The statistics of a built dataset: neighbours of its first {@code queries} benchmark queries
   * (documents of the corpus, so their own document is left out), postings of every document.
   */
  static Corpus of(Dataset ds, String name, int queries, int threads, PrintStream log)
      throws IOException {
    List<DatasetQuery> qs = ds.queries().subList(0, Math.min(queries, ds.queries().size()));
    float[][] vectors = new float[qs.size()][];
    int[] ordinals = new int[qs.size()];
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < qs.size(); i++) {
      vectors[i] = qs.get(i).vector();
      ordinals[i] = qs.get(i).docOrdinal();
      texts.add(qs.get(i).text());
    }
    long start = System.nanoTime();
    NeighbourStats ns;
    try (VecsFiles.Reader r = new VecsFiles.Reader(ds.directory().resolve(Dataset.VECTORS_FILE))) {
      ns = NeighbourStats.compute(records(r), ds.size(), vectors, ordinals, threads);
    }
    IdenticalVectors identical;
    try (VecsFiles.Reader r = new VecsFiles.Reader(ds.directory().resolve(Dataset.VECTORS_FILE))) {
      identical = IdenticalVectors.of(records(r), Math.toIntExact(ds.size()));
    }
    PostingStats ps;
    try (Stream<Document> docs = ds.documents()) {
      ps = PostingStats.of(docs.iterator());
    }
    log.printf(
        Locale.ROOT,
        "stats: %s: %,d documents, %d queries in %.1f s%n",
        name,
        ds.size(),
        qs.size(),
        (System.nanoTime() - start) / 1e9);
    return new Corpus(name, ds.size(), ns, identical, ps, ps.queryPostings(texts));
  }

  /** The records of {@code r}, one by one, for as long as they are asked for. */
  private static Iterator<float[]> records(VecsFiles.Reader r) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return true;
      }

      @Override
      public float[] next() {
        try {
          return r.next();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    };
  }

  /** Writes {@value #JSON} and {@value #MARKDOWN} into {@code dir}. */
  static void write(Path dir, List<Corpus> corpora, String note) throws IOException {
    Files.createDirectories(dir);
    ArrayNode all = DocumentJson.MAPPER.createArrayNode();
    for (Corpus c : corpora) {
      all.add(json(c));
    }
    ObjectNode root = DocumentJson.MAPPER.createObjectNode();
    root.put("note", note);
    root.set("corpora", all);
    DocumentJson.MAPPER
        .writerWithDefaultPrettyPrinter()
        .writeValue(dir.resolve(JSON).toFile(), root);
    Files.writeString(dir.resolve(MARKDOWN), markdown(corpora, note), StandardCharsets.UTF_8);
  }

  static ObjectNode json(Corpus c) {
    ObjectNode o = DocumentJson.MAPPER.createObjectNode();
    o.put("name", c.name());
    o.put("documents", c.documents());
    o.put("queries", c.neighbours().d1().length);
    quantiles(o.putObject("l2_distance_1st"), c.neighbours().d1());
    quantiles(o.putObject("l2_distance_10th"), c.neighbours().d10());
    quantiles(o.putObject("l2_distance_100th"), c.neighbours().d100());
    quantiles(o.putObject("lid"), c.neighbours().lid());
    o.put("near_copy_share", c.neighbours().nearCopyShare());
    ObjectNode id = o.putObject("identical_vectors");
    id.put("documents_in_groups", c.identical().inGroups());
    id.put("groups", c.identical().groups());
    id.put("largest_group", c.identical().largest());
    for (String f : PostingStats.FIELDS) {
      ObjectNode p = o.putObject("postings_" + f);
      double[] df = c.postings().docFreqs(f);
      p.put("terms", c.postings().terms(f));
      p.put("hapax_share", c.postings().hapaxShare(f));
      p.put("df_p50", NeighbourStats.quantile(df, 0.5));
      p.put("df_p90", NeighbourStats.quantile(df, 0.9));
      p.put("df_p99", NeighbourStats.quantile(df, 0.99));
      p.put("df_max", NeighbourStats.quantile(df, 1));
    }
    quantiles(o.putObject("query_postings"), c.queryPostings());
    return o;
  }

  private static void quantiles(ObjectNode o, double[] values) {
    for (double p : QUANTILES) {
      o.put("p" + Math.round(p * 100), NeighbourStats.quantile(values, p));
    }
  }

  /** The side-by-side table, one column per corpus. */
  static String markdown(List<Corpus> corpora, String note) {
    StringBuilder b = new StringBuilder("# Realism statistics\n\n");
    b.append(note).append("\n\n| statistic |");
    corpora.forEach(c -> b.append(' ').append(c.name()).append(" |"));
    b.append("\n|---|");
    corpora.forEach(c -> b.append("---:|"));
    b.append('\n');
    row(b, corpora, "documents", c -> String.format(Locale.ROOT, "%,d", c.documents()));
    row(b, corpora, "queries sampled", c -> Integer.toString(c.neighbours().d1().length));
    spread(b, corpora, "L2 to 1st neighbour", c -> c.neighbours().d1(), "%.3f");
    spread(b, corpora, "L2 to 10th neighbour", c -> c.neighbours().d10(), "%.3f");
    spread(b, corpora, "L2 to 100th neighbour", c -> c.neighbours().d100(), "%.3f");
    spread(b, corpora, "LID (MLE, top 100)", c -> c.neighbours().lid(), "%.1f");
    row(
        b,
        corpora,
        "near-copy share (1st at cos ≥ 0.99)",
        c -> String.format(Locale.ROOT, "%.3f", c.neighbours().nearCopyShare()));
    row(
        b,
        corpora,
        "documents in groups of identical vectors (largest group)",
        c ->
            String.format(
                Locale.ROOT, "%,d (%,d)", c.identical().inGroups(), c.identical().largest()));
    for (String f : PostingStats.FIELDS) {
      row(
          b,
          corpora,
          f + ": terms, hapax share",
          c ->
              String.format(
                  Locale.ROOT, "%,d, %.2f", c.postings().terms(f), c.postings().hapaxShare(f)));
      row(
          b,
          corpora,
          f + ": df p50 / p90 / p99 / max",
          c -> {
            double[] df = c.postings().docFreqs(f);
            return String.format(
                Locale.ROOT,
                "%.0f / %.0f / %.0f / %.0f",
                NeighbourStats.quantile(df, 0.5),
                NeighbourStats.quantile(df, 0.9),
                NeighbourStats.quantile(df, 0.99),
                NeighbourStats.quantile(df, 1));
          });
    }
    spread(b, corpora, "Σ df of a query's terms", RealismReport.Corpus::queryPostings, "%,.0f");
    b.append(
        "\nDistances are L2 between unit vectors (√(2 − 2·cos)), excluding the query's own"
            + " document; each cell of a distribution is p10 / p50 / p90 over the sampled queries."
            + " Postings are document frequencies of analysed terms.\n");
    return b.toString();
  }

  private static void spread(
      StringBuilder b,
      List<Corpus> corpora,
      String label,
      Function<Corpus, double[]> f,
      String fmt) {
    row(
        b,
        corpora,
        label + " (p10 / p50 / p90)",
        c -> {
          double[] v = f.apply(c);
          return String.format(
              Locale.ROOT,
              fmt + " / " + fmt + " / " + fmt,
              NeighbourStats.quantile(v, 0.1),
              NeighbourStats.quantile(v, 0.5),
              NeighbourStats.quantile(v, 0.9));
        });
  }

  private static void row(
      StringBuilder b, List<Corpus> corpora, String label, Function<Corpus, String> cell) {
    b.append("| ").append(label).append(" |");
    corpora.forEach(c -> b.append(' ').append(cell.apply(c)).append(" |"));
    b.append('\n');
  }
}
