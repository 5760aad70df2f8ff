package org.searchlab.bench.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.searchlab.segmented.MergePolicyType;
import org.searchlab.segmented.SegmentedConfig;

/**
 * One merge policy of {@code experiment --merge-policies}, with its settings: a policy name ({@code
 * tiered}, {@code log-byte-size}, {@code none}) and Elasticsearch's {@code index.merge.policy.*}
 * keys, written {@code name:key=value,key=value}. The keys each policy takes and the {@code serve}
 * flag each becomes:
 *
 * <ul>
 *   <li>{@code tiered}: {@code segments_per_tier} ({@code --segments-per-tier}), {@code
 *       max_merge_at_once}, {@code floor_segment} (a size, {@code 2mb}), {@code max_merged_segment}
 *       (a size, {@code 5gb}), {@code deletes_pct_allowed};
 *   <li>{@code log-byte-size}: {@code merge_factor} ({@code --max-merge-at-once}, which the store
 *       gives Lucene's {@code LogByteSizeMergePolicy} as its merge factor), {@code floor_segment}
 *       (its minimum merge size), {@code max_merged_segment} (its maximum merge size);
 *   <li>{@code none}: no key; its index is force-merged to one segment after each feed.
 * </ul>
 *
 * Values are checked against the store's ranges ({@link SegmentedConfig}) when parsed, so a bad one
 * is a usage error before any server starts. Immutable.
 *
 * @param policy the Lucene merge policy
 * @param settings the keys as given, in order, their values as given
 */
public record MergePolicySpec(MergePolicyType policy, Map<String, String> settings) {

  /** The keys each policy takes, in the order the usage names them. */
  static final Map<MergePolicyType, List<String>> KEYS =
      Map.of(
          MergePolicyType.TIERED,
          List.of(
              "segments_per_tier",
              "max_merge_at_once",
              "floor_segment",
              "max_merged_segment",
              "deletes_pct_allowed"),
          MergePolicyType.LOG_BYTE_SIZE,
          List.of("merge_factor", "floor_segment", "max_merged_segment"),
          MergePolicyType.NONE,
          List.of());

  public MergePolicySpec {
    Objects.requireNonNull(policy, "policy");
    settings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(settings));
    List<String> allowed = KEYS.get(policy);
    for (String k : settings.keySet()) {
      if (!allowed.contains(k)) {
        throw new IllegalArgumentException(
            "merge policy "
                + policy.cliName()
                + ": unknown setting '"
                + k
                + "'; "
                + (allowed.isEmpty() ? "it takes none" : "it takes " + String.join(", ", allowed)));
      }
    }
    // The store's own checks, so that a value out of its range is refused here, not by a child
    // server that then fails to start.
    config(policy, settings);
  }

  /**
   * Parses {@code --merge-policies}: policies separated by commas, each {@code name} or {@code
   * name:key=value}, further settings of the same policy as further {@code key=value} items ({@code
   * tiered:segments_per_tier=4,max_merge_at_once=4,none}). A policy given twice with the same
   * settings is refused, since its two servers would measure the same thing under two names.
   */
  public static List<MergePolicySpec> parseList(String text) {
    Objects.requireNonNull(text, "text");
    List<MergePolicyType> names = new ArrayList<>();
    List<Map<String, String>> settings = new ArrayList<>();
    for (String raw : text.split(",", -1)) {
      String item = raw.trim();
      if (item.isEmpty()) {
        throw new IllegalArgumentException(
            "--merge-policies '" + text + "' has an empty item; use name[:key=value,...],...");
      }
      int colon = item.indexOf(':');
      int eq = item.indexOf('=');
      if (eq >= 0 && (colon < 0 || colon > eq)) {
        // key=value: a further setting of the policy before it
        if (names.isEmpty()) {
          throw new IllegalArgumentException(
              "--merge-policies '" + text + "': setting '" + item + "' comes before any policy");
        }
        put(settings.getLast(), item, names.getLast());
        continue;
      }
      String name = colon < 0 ? item : item.substring(0, colon).trim();
      MergePolicyType type = MergePolicyType.parse(name);
      names.add(type);
      settings.add(new LinkedHashMap<>());
      if (colon >= 0) {
        put(settings.getLast(), item.substring(colon + 1).trim(), type);
      }
    }
    List<MergePolicySpec> out = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      MergePolicySpec s = new MergePolicySpec(names.get(i), settings.get(i));
      if (out.stream().anyMatch(o -> o.label().equals(s.label()))) {
        throw new IllegalArgumentException(
            "--merge-policies names " + s.label() + " twice; each policy runs once");
      }
      out.add(s);
    }
    return out;
  }

  private static void put(Map<String, String> into, String kv, MergePolicyType type) {
    int eq = kv.indexOf('=');
    if (eq <= 0 || eq == kv.length() - 1) {
      throw new IllegalArgumentException(
          "merge policy " + type.cliName() + ": '" + kv + "' is not key=value");
    }
    String key = kv.substring(0, eq).trim().toLowerCase(Locale.ROOT);
    if (into.put(key, kv.substring(eq + 1).trim()) != null) {
      throw new IllegalArgumentException(
          "merge policy " + type.cliName() + ": setting '" + key + "' is given twice");
    }
  }

  /**
   * The name in rows, logs and the report: the policy and its settings as given, {@code
   * tiered:segments_per_tier=4}.
   */
  public String label() {
    if (settings.isEmpty()) {
      return policy.cliName();
    }
    List<String> kv = new ArrayList<>();
    settings.forEach((k, v) -> kv.add(k + "=" + v));
    return policy.cliName() + ":" + String.join(",", kv);
  }

  /** A name for the policy's data directory and log file: the label with only [a-z0-9-_]. */
  String directoryName() {
    return "policy-" + label().replaceAll("[^a-z0-9._-]", "_");
  }

  /** Whether the policy never merges on its own, so that the comparison force-merges it. */
  public boolean forceMerges() {
    return policy == MergePolicyType.NONE;
  }

  /** The {@code serve} flags of the policy and its settings. */
  List<String> serveFlags() {
    SegmentedConfig c = config(policy, settings);
    List<String> f = new ArrayList<>(List.of("--merge-policy", policy.cliName()));
    for (String k : settings.keySet()) {
      switch (k) {
        case "segments_per_tier" -> f.add("--segments-per-tier=" + c.segmentsPerTier());
        case "max_merge_at_once", "merge_factor" ->
            f.add("--max-merge-at-once=" + c.maxMergeAtOnce());
        case "floor_segment" -> f.add("--floor-segment-mb=" + c.floorSegmentMB());
        case "max_merged_segment" -> f.add("--max-merged-segment-mb=" + c.maxMergedSegmentMB());
        case "deletes_pct_allowed" -> f.add("--deletes-pct-allowed=" + c.deletesPctAllowed());
        default -> throw new AssertionError("checked in the constructor: " + k);
      }
    }
    return f;
  }

  /** The store's config these settings make, which runs its range checks. */
  private static SegmentedConfig config(MergePolicyType policy, Map<String, String> settings) {
    SegmentedConfig.Builder b = SegmentedConfig.builder().mergePolicy(policy);
    for (Map.Entry<String, String> e : settings.entrySet()) {
      String k = e.getKey();
      String v = e.getValue();
      try {
        switch (k) {
          case "segments_per_tier" -> b.segmentsPerTier(Double.parseDouble(v));
          case "max_merge_at_once", "merge_factor" -> b.maxMergeAtOnce(Integer.parseInt(v));
          case "floor_segment" -> b.floorSegmentMB(megabytes(v));
          case "max_merged_segment" -> b.maxMergedSegmentMB(megabytes(v));
          case "deletes_pct_allowed" -> b.deletesPctAllowed(Double.parseDouble(v));
          default -> throw new AssertionError("checked by the caller: " + k);
        }
      } catch (NumberFormatException nfe) {
        throw new IllegalArgumentException(
            "merge policy " + policy.cliName() + ": " + k + "='" + v + "' is not a number");
      }
    }
    try {
      return b.build();
    } catch (IllegalArgumentException range) {
      // The store names its components; say the keys the user wrote.
      String m = range.getMessage();
      String factor = settings.containsKey("merge_factor") ? "merge_factor" : "max_merge_at_once";
      String[][] names = {
        {"segmentsPerTier", "segments_per_tier"},
        {"maxMergeAtOnce", factor},
        {"floorSegmentMB", "floor_segment (MB)"},
        {"maxMergedSegmentMB", "max_merged_segment (MB)"},
        {"deletesPctAllowed", "deletes_pct_allowed"}
      };
      for (String[] n : names) {
        m = m.replace(n[0], n[1]);
      }
      throw new IllegalArgumentException("merge policy " + policy.cliName() + ": " + m, range);
    }
  }

  /**
   * An Elasticsearch byte size ({@code 512kb}, {@code 2mb}, {@code 5gb}, {@code 1tb}, or bytes with
   * {@code b} or no unit) in megabytes.
   */
  static double megabytes(String size) {
    String s = size.trim().toLowerCase(Locale.ROOT);
    String[][] units = {{"tb", "1048576"}, {"gb", "1024"}, {"mb", "1"}, {"kb", "0.0009765625"}};
    for (String[] u : units) {
      if (s.endsWith(u[0])) {
        return Double.parseDouble(s.substring(0, s.length() - 2).trim()) * Double.parseDouble(u[1]);
      }
    }
    String bytes = s.endsWith("b") ? s.substring(0, s.length() - 1).trim() : s;
    return Double.parseDouble(bytes) / (1 << 20);
  }
}
