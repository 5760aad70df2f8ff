package org.searchlab.opensearch;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How to start a local OpenSearch: how many nodes (one JVM each), each node's heap and CPU budget,
 * and the node settings that differ from OpenSearch's defaults. Immutable; change it with {@link
 * #toBuilder()}. The constructor rejects out-of-range values with {@link IllegalArgumentException}
 * naming the value and the limit.
 *
 * @param nodes nodes, one JVM each, 1 to {@value #MAX_NODES}; 1 is the benchmark's single node, 3 a
 *     local cluster (every node cluster-manager-eligible and a data node). More nodes on the same
 *     cores only add coordination cost
 * @param heap each node's {@code -Xms} and {@code -Xmx}, such as {@code 1g} or {@code 768m} (at
 *     least 256 MB); give it what a searchlab server of the same experiment gets. Larger leaves
 *     less page cache for the index files
 * @param processors 0 lets each node see every core of the machine; N from 1 to 1024 sets both
 *     OpenSearch's {@code node.processors} (thread pool sizes) and the JVM's {@code
 *     -XX:ActiveProcessorCount} (GC and JIT threads) to N. Lower budgets a node to fewer cores
 *     without pinning it
 * @param concurrentSegmentSearch true searches a shard's segments in slices on OpenSearch's
 *     index-searcher pool ({@code search.concurrent_segment_search.mode: all}, Lucene's slicing),
 *     as the segmented store does by default (and as Elasticsearch 8 does); false searches them one
 *     after another ({@code none}). OpenSearch 3.5's own default, {@code auto}, decides per
 *     request: pass it through {@link #settings()} to measure that
 * @param startupTimeout how long to wait for every node to start and the cluster to turn green, 10
 *     s to 1 h; a node starts in 20–50 s on 2 cores
 * @param settings further node settings, applied last (so they override the ones above), such as
 *     {@code indices.memory.index_buffer_size}; a list value is written {@code [a,b]}. Names,
 *     addresses, ports, paths and discovery belong to the launcher ({@link #MANAGED_SETTINGS}) and
 *     are rejected
 */
public record OpenSearchConfig(
    int nodes,
    String heap,
    int processors,
    boolean concurrentSegmentSearch,
    Duration startupTimeout,
    Map<String, String> settings) {

  /**
   * Setting prefixes the launcher sets itself: overriding them would break the addresses it reports
   * or let clusters on one machine find each other.
   */
  public static final java.util.List<String> MANAGED_SETTINGS =
      java.util.List.of(
          "cluster.name",
          "node.name",
          "network.",
          "http.port",
          "transport.port",
          "discovery.",
          "cluster.initial_cluster_manager_nodes",
          "path.");

  /** The most nodes one machine is asked to run. */
  public static final int MAX_NODES = 9;

  // Before DEFAULT: static fields initialise in order, and DEFAULT's constructor reads it.
  private static final Pattern HEAP = Pattern.compile("([0-9]{1,7})([mMgG])");

  /** One node with a 1 GB heap on every core, concurrent segment search, 3 minutes to start. */
  public static final OpenSearchConfig DEFAULT =
      new OpenSearchConfig(1, "1g", 0, true, Duration.ofMinutes(3), Map.of());

  public OpenSearchConfig {
    if (nodes < 1 || nodes > MAX_NODES) {
      throw new IllegalArgumentException("nodes " + nodes + " is outside [1, " + MAX_NODES + "]");
    }
    Objects.requireNonNull(heap, "heap");
    if (heapMegabytes(heap) < 256) {
      throw new IllegalArgumentException("heap " + heap + " is below 256m");
    }
    if (processors < 0 || processors > 1024) {
      throw new IllegalArgumentException("processors " + processors + " is outside [0, 1024]");
    }
    Objects.requireNonNull(startupTimeout, "startupTimeout");
    if (startupTimeout.compareTo(Duration.ofSeconds(10)) < 0
        || startupTimeout.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException(
          "startupTimeout " + startupTimeout + " is outside [10 s, 1 h]");
    }
    settings = Map.copyOf(settings);
    for (String key : settings.keySet()) {
      if (key.isEmpty() || key.contains("=")) {
        throw new IllegalArgumentException("setting name '" + key + "' is empty or contains '='");
      }
      for (String managed : MANAGED_SETTINGS) {
        if (key.startsWith(managed)) {
          throw new IllegalArgumentException(
              "setting '" + key + "' is set by the launcher (" + managed + "); leave it out");
        }
      }
    }
  }

  /** The heap in megabytes; throws when {@code heap} is not a number followed by m or g. */
  static long heapMegabytes(String heap) {
    var m = HEAP.matcher(heap);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "heap '" + heap + "' is not a size such as 1g or 768m (up to 7 digits, then m or g)");
    }
    long n = Long.parseLong(m.group(1));
    return Character.toLowerCase(m.group(2).charAt(0)) == 'g' ? n * 1024 : n;
  }

  /** A builder starting from {@link #DEFAULT}. */
  public static Builder builder() {
    return DEFAULT.toBuilder();
  }

  /** A builder starting from this configuration. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.nodes = nodes;
    b.heap = heap;
    b.processors = processors;
    b.concurrentSegmentSearch = concurrentSegmentSearch;
    b.startupTimeout = startupTimeout;
    b.settings = settings;
    return b;
  }

  /**
   * Builds a {@link OpenSearchConfig}; {@link #build()} validates as the record's constructor does.
   */
  public static final class Builder {
    private int nodes;
    private String heap;
    private int processors;
    private boolean concurrentSegmentSearch;
    private Duration startupTimeout;
    private Map<String, String> settings;

    private Builder() {}

    public Builder nodes(int v) {
      this.nodes = v;
      return this;
    }

    public Builder heap(String v) {
      this.heap = v;
      return this;
    }

    public Builder processors(int v) {
      this.processors = v;
      return this;
    }

    public Builder concurrentSegmentSearch(boolean v) {
      this.concurrentSegmentSearch = v;
      return this;
    }

    public Builder startupTimeout(Duration v) {
      this.startupTimeout = v;
      return this;
    }

    public Builder settings(Map<String, String> v) {
      this.settings = v;
      return this;
    }

    public OpenSearchConfig build() {
      return new OpenSearchConfig(
          nodes, heap, processors, concurrentSegmentSearch, startupTimeout, settings);
    }
  }
}
