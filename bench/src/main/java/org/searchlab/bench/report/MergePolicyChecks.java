package org.searchlab.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The store's merge accounting checked against readings that do not come from it: per segmented
 * variant and write window (the feeds, and the force-merges of {@code none}), each figure of {@code
 * _stats} and {@code _admin/stats} beside the experiment's own reading of the same thing and
 * whether the two agree within {@value #TOLERANCE_PERCENT}%. A figure the store does not report, or
 * one the experiment cannot read independently, is listed as such and not counted. The refeeds are
 * left out of the input checks: a refeed also drops segments whose documents were all replaced,
 * which the poll cannot tell from a merge. Stateless and thread-safe.
 */
final class MergePolicyChecks {
  static final int TOLERANCE_PERCENT = 5;

  private MergePolicyChecks() {}

  /**
   * One comparison.
   *
   * @param store the store's figure, null when it does not report it
   * @param reading the experiment's reading, null when it has none
   * @param upper where the reading is a range (it can miss a known amount), its upper end; {@link
   *     Double#POSITIVE_INFINITY} where it is a lower bound only; null where it is one value
   * @param how what the reading is and what it can miss
   */
  record Check(
      String variant,
      String window,
      String figure,
      Double store,
      Double reading,
      Double upper,
      String how) {
    /** A check against one value. */
    Check(String variant, String window, String figure, Double store, Double reading, String how) {
      this(variant, window, figure, store, reading, null, how);
    }

    /**
     * True or false where both sides exist, else null: within the tolerance of the reading, or of
     * the range from the reading to its upper end.
     */
    Boolean agrees() {
      if (store == null || reading == null) {
        return null;
      }
      if (store == 0 && reading == 0) {
        return true;
      }
      double tol = TOLERANCE_PERCENT / 100.0;
      if (upper != null && store >= reading) {
        return upper.isInfinite() || store <= upper || store - upper <= tol * store;
      }
      double base = Math.max(Math.abs(store), Math.abs(reading));
      return Math.abs(store - reading) <= tol * base;
    }
  }

  /** Every check of the segmented variants' windows. */
  static List<Check> checks(List<MergeWindow> windows) {
    List<Check> out = new ArrayList<>();
    for (MergeWindow w : windows) {
      if (w.vanishedDocs() == null) {
        continue; // the mutable store, which has no merges
      }
      // In a refeed, segments whose documents were all replaced are dropped whole, which a poll
      // cannot tell from a merge's input: the input checks are of the first feed only.
      boolean inputs = w.round() == null;
      String v = w.variant();
      String p = w.round() == null ? w.phase() : w.phase() + " " + w.round();
      out.add(
          new Check(
              v,
              p,
              "merges.total",
              d(w.mergesTotal()),
              w.mergeThreads() == null ? null : (double) w.mergeThreads(),
              "merge threads seen in /proc/<pid>/task every 50 ms (Lucene starts one per"
                  + " merge; one shorter than a poll can go unseen)"));
      out.add(
          new Check(
              v,
              p,
              "merges.total_time_in_millis",
              d(w.mergeTimeMs()),
              w.threadMergeWallMs(),
              "the merge threads' lifetimes: start from their starttime, end half a poll after"
                  + " the last poll that saw them"));
      out.add(
          new Check(
              v,
              p,
              "merges_cpu_ms (_admin/stats)",
              d(w.mergeCpuMs()),
              w.threadMergeCpuMs(),
              w.threadMergeCpuMs() == null || w.threadMergeCpuTailMs() == null
                  ? null
                  : w.threadMergeCpuMs() + w.threadMergeCpuTailMs(),
              "the merge threads' time on a CPU (/proc/<pid>/task/<tid>/schedstat) at their last"
                  + " poll; what a thread ran between its last poll and its end is lost, at most"
                  + " that interval, so the reading is a range up to the sum of those"));
      if (inputs) {
        out.add(
            new Check(
                v,
                p,
                "merges.total_docs",
                d(w.mergeDocs()),
                d(w.vanishedDocs()),
                "documents of the segments seen in one poll of _segments and gone in a later one"
                    + " (a segment merged away before any refresh showed it is missed)"));
        out.add(
            new Check(
                v,
                p,
                "merges.total_size_in_bytes",
                d(w.mergeInputBytes()),
                d(w.vanishedBytes()),
                "bytes of those segments"));
      }
      out.add(
          new Check(
              v,
              p,
              "index_written_merge_page_bytes (_admin/stats)",
              d(w.mergeWrittenPageBytes()),
              d(w.threadMergeWriteBytes()),
              Double.POSITIVE_INFINITY,
              "write_bytes of the merge threads (/proc/<pid>/task/<tid>/io), every file a merge"
                  + " writes (temporary files and a compound file's parts included);"
                  + " what a thread wrote after its last poll is lost, and a merge writes its"
                  + " last files at its end, so the reading is a lower bound"));
      out.add(
          new Check(
              v,
              p,
              "wal_written_bytes + index_written_page_bytes (_admin/stats)",
              d(w.storeAllWrittenBytes()),
              d(w.kernelWriteBytes()),
              "write_bytes of the server process (/proc/<pid>/io), dead threads included: every"
                  + " page the process dirtied, whatever the file (also the server's own small"
                  + " files, and a log page dirtied again after an fsync)"));
      out.add(
          new Check(
              v,
              p,
              "merges.total_throttled_time_in_millis",
              d(w.mergeThrottledMs()),
              null,
              "no independent reading: the throttle is a sleep inside Lucene's rate limiter,"
                  + " which nothing outside the JVM can tell from any other wait"));
    }
    return out;
  }

  /** The report's section. */
  static String section(List<MergeWindow> windows) {
    List<Check> checks = checks(windows);
    StringBuilder md = new StringBuilder("## The store's merge accounting, checked\n\n");
    if (checks.isEmpty()) {
      return md.append("No segmented window to check.\n\n").toString();
    }
    int both = 0;
    int agree = 0;
    for (Check c : checks) {
      if (c.agrees() != null) {
        both++;
        agree += c.agrees() ? 1 : 0;
      }
    }
    md.append(
        String.format(
            Locale.ROOT,
            "Each figure the store reports over each write window beside the experiment's own reading"
                + " of the same thing (a round's line only where the store reports the figure). **%d of %d** comparisons with both sides agree within %d%%;"
                + " the rest are listed as they are, with what each reading can miss. Where a reading"
                + " can miss a known amount it is a range, and the store agrees when it lies in"
                + " the range (within the same tolerance of its ends); where it can miss an"
                + " unknown amount it is a lower bound (≥). A figure the store does not report"
                + " (n/a) is not counted.\n\n",
            agree,
            both,
            TOLERANCE_PERCENT));
    md.append(
        "| variant | window | figure | store | experiment | store ÷ experiment | within 5% |"
            + " experiment's reading |\n|---|---|---|---|---|---|---|---|\n");
    for (Check c : checks) {
      if (c.window().matches(".* [0-9]+") && c.store() == null) {
        continue; // a round's window: said once already, for the first feed
      }
      Boolean a = c.agrees();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | `%s` | %s | %s | %s | %s | %s |\n",
              c.variant(),
              c.window(),
              c.figure(),
              num(c.store()),
              c.upper() == null
                  ? num(c.reading())
                  : c.upper().isInfinite()
                      ? "≥ " + num(c.reading())
                      : num(c.reading()) + " – " + num(c.upper()),
              c.store() == null || c.reading() == null || c.reading() == 0
                  ? ""
                  : String.format(Locale.ROOT, "%.3f", c.store() / c.reading()),
              a == null ? "n/a" : a ? "yes" : "**no**",
              c.how()));
    }
    md.append('\n');
    return md.toString();
  }

  private static Double d(Long v) {
    return v == null ? null : v.doubleValue();
  }

  private static String num(Double v) {
    if (v == null) {
      return "n/a";
    }
    return v == Math.rint(v)
        ? String.format(Locale.ROOT, "%,d", v.longValue())
        : String.format(Locale.ROOT, "%,.1f", v);
  }
}
