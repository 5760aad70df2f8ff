package org.searchlab.core.mapping;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.searchlab.core.analysis.TextAnalysis;

/**
 * An index's settings, read from Elasticsearch's {@code settings} (nested {@code {"index":
 * {"number_of_shards": 1}}}, flat {@code {"index.number_of_shards": 1}} or without the {@code
 * index.} prefix): shards (exactly 1), replicas, the store kind ({@code index.store}: {@code
 * mutable} or {@code segmented}; null for the server's default), the refresh interval, and the
 * analyzers and BM25 similarities that mappings may name. Settings the stores do not model are
 * accepted where Elasticsearch's default is what the stores do, and refused otherwise, naming the
 * setting. Immutable and thread-safe.
 *
 * @param flat every setting as given, flattened ({@code index.number_of_replicas} → {@code "1"}),
 *     for rendering {@code GET /{index}/_settings}
 * @param replicas {@code index.number_of_replicas}, 0 to 16 (Elasticsearch's default is 1; with one
 *     node a replica is never allocated, so health is yellow)
 * @param store the store kind, or null for the server's default
 * @param refreshInterval {@code index.refresh_interval} as given ({@code 1s}, {@code -1}), or null
 * @param defaultAnalyzer the analyzer of text fields that name none
 * @param analyzers custom analyzers by name, each resolved to one both stores implement
 * @param similarities BM25 similarities by name
 */
public record IndexSettings(
    Map<String, String> flat,
    int replicas,
    String store,
    String refreshInterval,
    String defaultAnalyzer,
    Map<String, String> analyzers,
    Map<String, FieldType.Bm25Similarity> similarities) {

  /**
   * What an {@code index.store} name looks like; which names a server knows is its registry's
   * business (the launcher registers {@code mutable} and {@code segmented}).
   */
  private static final java.util.regex.Pattern STORE_NAME =
      java.util.regex.Pattern.compile("[a-z][a-z0-9_]{0,31}");

  public static final IndexSettings DEFAULT = parse(null);

  /**
   * One shard and no replica, as the benchmark's index: a server's default index and an index a
   * caller opened itself, which are green on one node.
   */
  public static final IndexSettings NO_REPLICAS =
      parse(
          com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
              .objectNode()
              .put("number_of_replicas", 0));

  public IndexSettings {
    flat = java.util.Collections.unmodifiableMap(new TreeMap<>(flat));
    analyzers = Map.copyOf(analyzers);
    similarities = Map.copyOf(similarities);
    Objects.requireNonNull(defaultAnalyzer, "defaultAnalyzer");
  }

  /**
   * Reads settings; null or empty gives the defaults.
   *
   * @throws MappingException naming the setting and the value, for a value out of range, a shard
   *     count other than 1, an unknown setting or an analyzer the stores do not implement
   */
  public static IndexSettings parse(JsonNode settings) {
    Map<String, String> flat = new TreeMap<>();
    Map<String, JsonNode> nodes = new TreeMap<>();
    if (settings != null && !settings.isNull()) {
      if (!settings.isObject()) {
        throw MappingException.parsing("[settings] must be an object");
      }
      flatten(settings, "", flat, nodes, 0);
    }
    Map<String, String> normalized = new TreeMap<>();
    for (Map.Entry<String, String> e : flat.entrySet()) {
      String k = e.getKey().startsWith("index.") ? e.getKey() : "index." + e.getKey();
      if (normalized.put(k, e.getValue()) != null) {
        throw MappingException.parsing("setting [" + k + "] is given twice");
      }
    }
    int replicas = 1;
    String store = null;
    String refresh = null;
    Map<String, Map<String, String>> analyzerDefs = new LinkedHashMap<>();
    Map<String, Map<String, String>> filterDefs = new LinkedHashMap<>();
    Map<String, Map<String, String>> similarityDefs = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : normalized.entrySet()) {
      String k = e.getKey();
      String v = e.getValue();
      String rest = k.substring("index.".length());
      if (rest.startsWith("analysis.analyzer.")) {
        group(analyzerDefs, rest.substring("analysis.analyzer.".length()), v);
        continue;
      }
      if (rest.startsWith("analysis.filter.")) {
        group(filterDefs, rest.substring("analysis.filter.".length()), v);
        continue;
      }
      if (rest.startsWith("similarity.")) {
        group(similarityDefs, rest.substring("similarity.".length()), v);
        continue;
      }
      switch (rest) {
        case "number_of_shards" -> {
          if (integer(k, v, 1, 1024) != 1) {
            throw MappingException.parsing(
                "[index.number_of_shards] is "
                    + v
                    + "; an index here has exactly one shard (one node, no routing)");
          }
        }
        case "number_of_replicas" -> replicas = integer(k, v, 0, 16);
        case "store" -> {
          store = v.toLowerCase(Locale.ROOT);
          if (!STORE_NAME.matcher(store).matches()) {
            throw MappingException.parsing(
                "[index.store] is ["
                    + NumberType.abbreviate(v)
                    + "]; expected a store kind such as mutable or segmented");
          }
        }
        case "refresh_interval" -> refresh = interval(k, v);
        case "max_result_window" -> {
          if (integer(k, v, 1, 10_000) != 10_000) {
            throw MappingException.parsing(
                "[index.max_result_window] is " + v + "; only the default 10000 is supported");
          }
        }
        case "mapping.total_fields.limit" -> integer(k, v, 1, Mapping.MAX_FIELDS);
        case "mapping.depth.limit" -> integer(k, v, 1, Mapping.MAX_DEPTH);
        case "translog.durability" -> {
          if (!v.equals("request") && !v.equals("async")) {
            throw MappingException.parsing(
                "[index.translog.durability] is [" + v + "]; expected request or async");
          }
        }
        // Accepted and reported, with no effect on what the stores do: caches, codecs and merge
        // threads the stores do not have, and OpenSearch's knn switch.
        case "codec",
            "knn",
            "requests.cache.enable",
            "queries.cache.enabled",
            "translog.sync_interval",
            "translog.flush_threshold_size",
            "merge.scheduler.max_thread_count",
            "uuid",
            "creation_date",
            "provided_name",
            "version.created",
            "auto_expand_replicas",
            "routing.allocation.include._tier_preference" -> {}
        default ->
            throw MappingException.parsing(
                "unknown setting ["
                    + NumberType.abbreviate(k)
                    + "]; the supported settings are number_of_shards (1), number_of_replicas,"
                    + " store, refresh_interval, analysis, similarity and max_result_window");
      }
    }
    Map<String, String> filters = new LinkedHashMap<>();
    for (Map.Entry<String, Map<String, String>> f : filterDefs.entrySet()) {
      filters.put(f.getKey(), tokenFilter(f.getKey(), f.getValue()));
    }
    Map<String, String> analyzers = new LinkedHashMap<>();
    for (Map.Entry<String, Map<String, String>> a : analyzerDefs.entrySet()) {
      analyzers.put(a.getKey(), analyzer(a.getKey(), a.getValue(), filters));
    }
    Map<String, FieldType.Bm25Similarity> sims = new LinkedHashMap<>();
    for (Map.Entry<String, Map<String, String>> s : similarityDefs.entrySet()) {
      sims.put(s.getKey(), similarity(s.getKey(), s.getValue()));
    }
    String defaultAnalyzer = analyzers.getOrDefault("default", TextAnalysis.NAME);
    return new IndexSettings(
        normalized, replicas, store, refresh, defaultAnalyzer, analyzers, sims);
  }

  private static void flatten(
      JsonNode n, String prefix, Map<String, String> flat, Map<String, JsonNode> nodes, int depth) {
    if (depth > 10) {
      throw MappingException.parsing("[settings] nest deeper than 10 levels");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = prefix + e.getKey();
      JsonNode v = e.getValue();
      if (v.isObject()) {
        flatten(v, key + ".", flat, nodes, depth + 1);
      } else if (v.isArray()) {
        for (int i = 0; i < v.size(); i++) {
          JsonNode item = v.get(i);
          if (item.isObject()) {
            flatten(item, key + "." + i + ".", flat, nodes, depth + 1);
          } else if (item.isValueNode()) {
            flat.put(key + "." + i, item.asText());
          } else {
            throw MappingException.parsing("setting [" + key + "] holds a nested array");
          }
        }
      } else if (!v.isNull()) {
        if (flat.size() >= 1000) {
          throw MappingException.parsing("[settings] has more than 1000 values");
        }
        flat.put(key, v.asText());
      }
    }
  }

  private static void group(Map<String, Map<String, String>> defs, String rest, String v) {
    int dot = rest.indexOf('.');
    if (dot <= 0) {
      throw MappingException.parsing(
          "analysis or similarity setting [" + rest + "] needs an object");
    }
    defs.computeIfAbsent(rest.substring(0, dot), x -> new TreeMap<>())
        .put(rest.substring(dot + 1), v);
  }

  private static int integer(String key, String v, int min, int max) {
    try {
      int i = Integer.parseInt(v.trim());
      if (i >= min && i <= max) {
        return i;
      }
    } catch (NumberFormatException e) {
      // falls through
    }
    throw MappingException.parsing(
        "["
            + key
            + "] is ["
            + NumberType.abbreviate(v)
            + "]; expected an integer in ["
            + min
            + ", "
            + max
            + "]");
  }

  private static String interval(String key, String v) {
    if (!v.matches("-1|0|\\d{1,9}(ms|s|m|h|d)?")) {
      throw MappingException.parsing(
          "["
              + key
              + "] is ["
              + NumberType.abbreviate(v)
              + "]; expected a time such as 1s, 500ms or -1");
    }
    return v;
  }

  /** The refresh interval in milliseconds: −1 for never, null when not set. */
  public Long refreshIntervalMillis() {
    if (refreshInterval == null) {
      return null;
    }
    if (refreshInterval.equals("-1")) {
      return -1L;
    }
    String digits = refreshInterval.replaceAll("[a-z]+$", "");
    long n = Long.parseLong(digits);
    String unit = refreshInterval.substring(digits.length());
    return switch (unit) {
      case "ms", "" -> n;
      case "s" -> n * 1000;
      case "m" -> n * 60_000;
      case "h" -> n * 3_600_000;
      case "d" -> n * 86_400_000;
      default -> throw new AssertionError(unit);
    };
  }

  /** What a token filter is, for the analyzers: {@code porter2} or the filter's type. */
  private static String tokenFilter(String name, Map<String, String> def) {
    String type = def.getOrDefault("type", "");
    String language = def.getOrDefault("language", def.getOrDefault("name", ""));
    if ((type.equals("stemmer") || type.equals("snowball"))
        && (language.equalsIgnoreCase("porter2")
            || language.equalsIgnoreCase("english") && type.equals("snowball"))) {
      return "porter2";
    }
    if (type.equals("lowercase") || type.equals("asciifolding")) {
      return type;
    }
    throw MappingException.parsing(
        "token filter ["
            + NumberType.abbreviate(name)
            + "] of type ["
            + NumberType.abbreviate(type)
            + "] is not supported; the analyzers here are "
            + TextAnalysis.NAME
            + " (standard, lowercase, asciifolding, porter2) and standard");
  }

  /** The built-in analyzer a custom definition amounts to. */
  private static String analyzer(
      String name, Map<String, String> def, Map<String, String> filters) {
    String type = def.getOrDefault("type", "custom");
    if (type.equals("standard")) {
      if (def.keySet().stream().anyMatch(k -> !k.equals("type") && !k.startsWith("stopwords"))
          || !def.getOrDefault("stopwords", "_none_").equals("_none_")) {
        throw unsupportedAnalyzer(name);
      }
      return TextAnalysis.STANDARD;
    }
    if (!type.equals("custom") || !def.getOrDefault("tokenizer", "").equals("standard")) {
      throw unsupportedAnalyzer(name);
    }
    java.util.List<String> chain = new java.util.ArrayList<>();
    for (int i = 0; ; i++) {
      String f = def.get("filter." + i);
      if (f != null) {
        chain.add(filters.getOrDefault(f, f));
        continue;
      }
      String inline = "filter." + i + ".";
      Map<String, String> d = new TreeMap<>();
      def.forEach(
          (k, v) -> {
            if (k.startsWith(inline)) {
              d.put(k.substring(inline.length()), v);
            }
          });
      if (d.isEmpty()) {
        break;
      }
      chain.add(tokenFilter(name + ".filter[" + i + "]", d));
    }
    for (String k : def.keySet()) {
      if (!k.equals("type") && !k.equals("tokenizer") && !k.startsWith("filter.")) {
        throw unsupportedAnalyzer(name);
      }
    }
    if (chain.equals(List.of("lowercase"))) {
      return TextAnalysis.STANDARD;
    }
    if (chain.equals(List.of("lowercase", "asciifolding", "porter2"))) {
      return TextAnalysis.NAME;
    }
    throw unsupportedAnalyzer(name);
  }

  private static MappingException unsupportedAnalyzer(String name) {
    return MappingException.parsing(
        "analyzer ["
            + NumberType.abbreviate(name)
            + "] is not supported: both stores implement "
            + TextAnalysis.NAME
            + " (tokenizer standard, filters lowercase, asciifolding and a porter2 stemmer) and"
            + " standard (tokenizer standard, filter lowercase)");
  }

  private static FieldType.Bm25Similarity similarity(String name, Map<String, String> def) {
    String type = def.getOrDefault("type", "");
    if (!type.equalsIgnoreCase("BM25")) {
      throw MappingException.parsing(
          "similarity ["
              + NumberType.abbreviate(name)
              + "] has type ["
              + type
              + "]; only BM25 is supported");
    }
    float k1 = number(name, def, "k1", org.searchlab.core.scoring.Bm25.K1);
    float b = number(name, def, "b", org.searchlab.core.scoring.Bm25.B);
    for (String k : def.keySet()) {
      if (!List.of("type", "k1", "b", "discount_overlaps").contains(k)) {
        throw MappingException.parsing(
            "similarity [" + name + "] has unknown parameter [" + k + "]");
      }
    }
    if (def.containsKey("discount_overlaps") && !def.get("discount_overlaps").equals("true")) {
      throw MappingException.parsing("similarity [" + name + "]: discount_overlaps must be true");
    }
    return new FieldType.Bm25Similarity(name, k1, b);
  }

  private static float number(String name, Map<String, String> def, String key, float dflt) {
    String v = def.get(key);
    if (v == null) {
      return dflt;
    }
    try {
      return Float.parseFloat(v);
    } catch (NumberFormatException e) {
      throw MappingException.parsing(
          "similarity ["
              + name
              + "]: ["
              + key
              + "] is ["
              + NumberType.abbreviate(v)
              + "], not a number");
    }
  }

  /** The analyzer a mapping's {@code analyzer} value names, resolved. */
  public String resolveAnalyzer(String name) {
    if (name == null) {
      return defaultAnalyzer;
    }
    String custom = analyzers.get(name);
    if (custom != null) {
      return custom;
    }
    if (name.equals("default")) {
      return defaultAnalyzer;
    }
    if (TextAnalysis.known(name)) {
      return name;
    }
    throw MappingException.parsing(
        "analyzer ["
            + NumberType.abbreviate(name)
            + "] has not been configured in mappings; known here: "
            + TextAnalysis.NAME
            + ", "
            + TextAnalysis.STANDARD
            + (analyzers.isEmpty() ? "" : " and " + analyzers.keySet()));
  }

  /** The BM25 parameters a mapping's {@code similarity} value names. */
  public FieldType.Bm25Similarity resolveSimilarity(String name) {
    if (name == null || name.equals("BM25")) {
      return FieldType.Bm25Similarity.DEFAULT;
    }
    FieldType.Bm25Similarity s = similarities.get(name);
    if (s == null) {
      throw MappingException.parsing(
          "unknown similarity ["
              + NumberType.abbreviate(name)
              + "]; only BM25 and the BM25 similarities of the index settings are supported");
    }
    return s;
  }

  /** These settings with {@code key} set (generated ones, such as the uuid and creation date). */
  public IndexSettings with(String key, String value) {
    Map<String, String> f = new TreeMap<>(flat);
    f.put(key, value);
    return new IndexSettings(
        f, replicas, store, refreshInterval, defaultAnalyzer, analyzers, similarities);
  }

  /** The settings as Elasticsearch nests them under {@code settings}. */
  public ObjectNode toJson(boolean flatSettings) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, String> e : flat.entrySet()) {
      if (flatSettings) {
        root.put(e.getKey(), e.getValue());
        continue;
      }
      String[] parts = e.getKey().split("\\.");
      ObjectNode at = root;
      for (int i = 0; i < parts.length - 1; i++) {
        JsonNode next = at.get(parts[i]);
        at = next instanceof ObjectNode o ? o : at.putObject(parts[i]);
      }
      at.put(parts[parts.length - 1], e.getValue());
    }
    return root;
  }
}
