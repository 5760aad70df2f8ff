package org.searchlab.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.searchlab.core.VectorQuantization;

/**
 * The report's comparison of the two architectures at each quantization: for every quantization the
 * run has a mutable variant of ({@code mutable}, {@code mutable-int8}, {@code mutable-int4}, {@code
 * mutable-bbq}, {@code mutable-bbq-inline}), QPS per core of it ÷ the segmented variant of the same
 * quantization, force-merged and default, for the vector and hybrid cells at the recall target: the
 * median of the per-round ratios at exactly the target with its interval, as the float tables give
 * them. Stateless.
 */
final class QuantizedArchitectures {
  private static final String[] TYPES = {"vector", "hybrid"};

  private QuantizedArchitectures() {}

  /** Appends the table, or nothing when no quantized mutable variant ran beside a segmented one. */
  static void write(
      StringBuilder md, RowIndex idx, Ratios ratios, Double target, List<String> variants) {
    if (target == null) {
      return;
    }
    List<String[]> rows = new ArrayList<>();
    boolean quantized = false;
    for (VectorQuantization q : VectorQuantization.values()) {
      String suffix = q.quantized() ? "-" + q.flag() : "";
      // The 1-bit codes also with the neighbours' codes inline (mutable-bbq-inline).
      String[] mutables =
          q == VectorQuantization.BBQ
              ? new String[] {"mutable" + suffix, "mutable" + suffix + "-inline"}
              : new String[] {"mutable" + suffix};
      for (String mutable : mutables) {
        if (!variants.contains(mutable)) {
          continue;
        }
        String vectors = q.quantized() ? q.esIndexType() : "hnsw (floats)";
        if (mutable.endsWith("-inline")) {
          vectors += ", neighbours' codes inline";
        }
        for (String seg : new String[] {"segmented-forcemerged" + suffix, "segmented" + suffix}) {
          if (variants.contains(seg)) {
            rows.add(new String[] {vectors, mutable, seg});
            quantized |= q.quantized();
          }
        }
      }
    }
    if (!quantized) {
      return;
    }
    List<ResultRow> at = idx.atTarget(target);
    List<ResultRow> estimates = idx.estimates(target);
    int c = at.isEmpty() ? 16 : at.get(0).clients();
    md.append(
            String.format(
                Locale.ROOT,
                "### The architectures at each quantization, recall@10 = %.2f (%d clients)\n\n",
                target,
                c))
        .append(
            "QPS per core of the mutable store ÷ the segmented store with the same vectors: the"
                + " median of the per-round ratios at exactly the target, its interval in"
                + " brackets; above 1 favours mutable; ≥, ≤ and ≈ as in the table of every"
                + " variant above.\n\n")
        .append("| vectors | mutable ÷ | vector | vector filtered | hybrid | hybrid filtered |\n")
        .append("|---|---|---:|---:|---:|---:|\n");
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder("| " + r[0] + " | " + r[2] + " |");
      for (String t : TYPES) {
        for (boolean f : new boolean[] {false, true}) {
          Optional<Intervals.Interval> x =
              ratios.atTarget(r[1], r[2], t, f, c, target, ResultRow::qpsPerCore);
          // As in the float tables: ≥ / ≤ / ≈ where a side stayed short of the common recall.
          String bound = x.isEmpty() ? "" : ReportWriter.bound(estimates, r[1], r[2], t, f, target);
          line.append(' ').append(x.map(i -> bound + Ratios.format(i)).orElse("–")).append(" |");
        }
      }
      md.append(line).append('\n');
    }
    md.append('\n');
  }
}
