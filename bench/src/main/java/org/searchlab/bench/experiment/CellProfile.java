package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import jdk.management.jfr.FlightRecorderMXBean;

/**
 * Where a server's CPU went during one cell: the JDK Flight Recorder's execution samples of the
 * server JVM (started and stopped over JMX, {@link FlightRecorders}; the {@code profile} settings:
 * a sample every 10 ms of each thread running Java code), each sample put in the {@link Part} of
 * the first frame from the top whose class says what the code was doing. The scale run profiles one
 * extra, unmeasured cell per store, query type and size, so that the report can say why a store's
 * cost grows: which part's CPU per query grew (design-68 §4.2 step 7). A profile is evidence of
 * where the time went, not a measurement: its cell is not a round, and JFR costs the server a
 * little CPU of its own. Stateless apart from the recording in progress; one cell at a time per
 * server.
 */
public final class CellProfile {
  /** What the code of a sample was doing. */
  public enum Part {
    DISTANCES("distance computations"),
    GRAPH("graph walks"),
    POSTINGS("postings and scoring"),
    FILTERS("filters and doc values"),
    RESULTS("collecting and merging results"),
    FETCH("fetching documents"),
    REQUEST("HTTP, JSON and query translation"),
    OTHER("other");

    private final String label;

    Part(String label) {
      this.label = label;
    }

    /** The part's name in the report and in {@code scale.json}. */
    public String label() {
      return label;
    }
  }

  /**
   * The classes each part is recognised by, in the order they are tried on each frame: a class name
   * that starts with a prefix (or, for the entries with a {@code *}, whose simple name contains the
   * text after it) belongs to that part. Earlier entries win, so that the more specific classes of
   * a package come first.
   */
  private static final List<Map.Entry<String, Part>> RULES =
      List.of(
          // Lucene 10 decodes postings and advances over them with SIMD code that lives beside
          // its vector kernels: those first.
          Map.entry("org.apache.lucene.internal.vectorization.*PostingDecoding", Part.POSTINGS),
          // VectorUtil's (and its SIMD support's) advance over doc ids and MaxScore's filter of
          // scores serve the postings, whichever class they are in.
          Map.entry("#findNextGEQ", Part.POSTINGS),
          Map.entry("#filterByScore", Part.POSTINGS),
          // Distances: Lucene's SIMD dot products and scorers, the mutable store's kernels.
          Map.entry("org.apache.lucene.util.VectorUtil", Part.DISTANCES),
          Map.entry("org.apache.lucene.internal.vectorization.", Part.DISTANCES),
          Map.entry("jdk.incubator.vector.", Part.DISTANCES),
          Map.entry("org.apache.lucene.codecs.hnsw.", Part.DISTANCES),
          Map.entry("org.apache.lucene.util.quantization.", Part.DISTANCES),
          Map.entry("org.apache.lucene.codecs.lucene95.OffHeap", Part.DISTANCES),
          Map.entry("org.apache.lucene.codecs.lucene99.OffHeapQuantized", Part.DISTANCES),
          Map.entry(
              "org.apache.lucene.codecs.lucene99.Lucene99ScalarQuantizedVectorScorer",
              Part.DISTANCES),
          Map.entry("org.searchlab.mutable.hnsw.PanamaDots", Part.DISTANCES),
          Map.entry("org.searchlab.mutable.hnsw.PanamaSquares", Part.DISTANCES),
          Map.entry("org.searchlab.mutable.hnsw.BulkDot", Part.DISTANCES),
          Map.entry("org.searchlab.mutable.hnsw.Int8Codes", Part.DISTANCES),
          Map.entry("org.searchlab.mutable.hnsw.Int8Dots", Part.DISTANCES),
          Map.entry("org.searchlab.mutable.hnsw.PanamaInt8", Part.DISTANCES),
          Map.entry("org.searchlab.mutable.hnsw.GraphSimilarity", Part.DISTANCES),
          // Filters inside a graph search or a posting walk, before the packages they sit in.
          Map.entry("org.searchlab.mutable.hnsw.AcceptBits", Part.FILTERS),
          Map.entry("org.searchlab.mutable.postings.FilterBits", Part.FILTERS),
          Map.entry("org.searchlab.mutable.postings.FilterIds", Part.FILTERS),
          Map.entry("org.searchlab.mutable.attributes.", Part.FILTERS),
          Map.entry("org.apache.lucene.util.FixedBitSet", Part.FILTERS),
          Map.entry("org.apache.lucene.util.SparseFixedBitSet", Part.FILTERS),
          Map.entry("org.apache.lucene.util.BitSet", Part.FILTERS),
          Map.entry("org.apache.lucene.util.bkd.", Part.FILTERS),
          Map.entry("org.apache.lucene.search.PointRangeQuery", Part.FILTERS),
          Map.entry("org.apache.lucene.codecs.lucene90.Lucene90DocValues", Part.FILTERS),
          Map.entry("org.apache.lucene.index.*DocValues", Part.FILTERS),
          Map.entry("org.apache.lucene.search.*DocValues", Part.FILTERS),
          // Lucene's kNN queries and their collectors, before the collectors of hits below.
          Map.entry("org.apache.lucene.search.knn.", Part.GRAPH),
          Map.entry("org.apache.lucene.search.*Knn", Part.GRAPH),
          // Results: top-k heaps and the merge of per-segment results.
          Map.entry("org.searchlab.mutable.postings.TopHits", Part.RESULTS),
          Map.entry("org.searchlab.mutable.query.TopK", Part.RESULTS),
          Map.entry("org.searchlab.mutable.hnsw.ScoreHeap", Part.GRAPH),
          Map.entry("org.apache.lucene.search.TopDocs", Part.RESULTS),
          Map.entry("org.apache.lucene.search.HitQueue", Part.RESULTS),
          Map.entry("org.apache.lucene.util.PriorityQueue", Part.RESULTS),
          Map.entry("org.apache.lucene.search.*Collector", Part.RESULTS),
          // Graph walks: Lucene's HNSW and kNN queries, the mutable store's graph, the planner.
          Map.entry("org.apache.lucene.util.hnsw.", Part.GRAPH),
          Map.entry("org.apache.lucene.codecs.lucene99.Lucene99Hnsw", Part.GRAPH),
          Map.entry("org.searchlab.segmented.PlannedKnnQuery", Part.GRAPH),
          Map.entry("org.searchlab.mutable.hnsw.", Part.GRAPH),
          Map.entry("org.searchlab.mutable.VectorPart", Part.GRAPH),
          // Postings: decoding, block-max pruning, BM25.
          Map.entry("org.searchlab.mutable.postings.", Part.POSTINGS),
          Map.entry("org.searchlab.mutable.query.", Part.POSTINGS),
          Map.entry("org.apache.lucene.codecs.*Postings", Part.POSTINGS),
          Map.entry("org.apache.lucene.codecs.*ForUtil", Part.POSTINGS),
          Map.entry("org.apache.lucene.codecs.*ForDelta", Part.POSTINGS),
          Map.entry("org.apache.lucene.codecs.*Terms", Part.POSTINGS),
          Map.entry("org.apache.lucene.codecs.*Impacts", Part.POSTINGS),
          Map.entry("org.apache.lucene.search.similarities.", Part.POSTINGS),
          Map.entry("org.apache.lucene.search.*Scorer", Part.POSTINGS),
          Map.entry("org.apache.lucene.search.*DISI", Part.POSTINGS),
          Map.entry("org.apache.lucene.search.*Conjunction", Part.POSTINGS),
          Map.entry("org.apache.lucene.search.*Disjunction", Part.POSTINGS),
          Map.entry("org.apache.lucene.search.*Term", Part.POSTINGS),
          Map.entry("org.apache.lucene.search.*Impacts", Part.POSTINGS),
          // Fetching the hits' documents.
          Map.entry("org.searchlab.mutable.docstore.", Part.FETCH),
          Map.entry("org.apache.lucene.codecs.*StoredFields", Part.FETCH),
          Map.entry("org.apache.lucene.codecs.compressing.", Part.FETCH),
          Map.entry("org.apache.lucene.util.compress.", Part.FETCH),
          Map.entry("org.searchlab.segmented.DocumentFields", Part.FETCH),
          // The request around the search.
          Map.entry("io.netty.", Part.REQUEST),
          Map.entry("com.fasterxml.jackson.", Part.REQUEST),
          Map.entry("org.searchlab.server.", Part.REQUEST),
          Map.entry("org.searchlab.core.", Part.REQUEST));

  /** How many of the hottest methods a profile keeps. */
  static final int TOP_METHODS = 8;

  private CellProfile() {}

  /**
   * A cell's profile.
   *
   * @param samples the execution samples of the server's threads
   * @param parts samples per part
   * @param topMethods the methods most samples were in (the top frame), most first, with their
   *     share of the samples; at most {@value #TOP_METHODS}
   */
  public record Result(
      int samples, Map<Part, Integer> parts, List<Map.Entry<String, Double>> topMethods) {
    public Result {
      parts = Map.copyOf(parts);
      topMethods = List.copyOf(topMethods);
    }

    /** The share of the samples in {@code p}, 0 when there are none. */
    public double share(Part p) {
      return samples == 0 ? 0 : parts.getOrDefault(p, 0) / (double) samples;
    }

    /** {@code {"samples": …, "parts": {label: share}, "top_methods": [[method, share]…]}}. */
    public ObjectNode json() {
      ObjectNode o = Json.object();
      o.put("samples", samples);
      ObjectNode ps = o.putObject("parts");
      for (Part p : Part.values()) {
        ps.put(p.label(), share(p));
      }
      var top = o.putArray("top_methods");
      for (Map.Entry<String, Double> m : topMethods) {
        top.addArray().add(m.getKey()).add(m.getValue());
      }
      return o;
    }
  }

  /** A cell to run while the recording is on. */
  @FunctionalInterface
  public interface Cell {
    void run() throws IOException, InterruptedException;
  }

  /**
   * Runs {@code cell} with a flight recording of the JVM {@code pid} on ({@link FlightRecorders}),
   * writes the recording to {@code file} and reads it. Empty, with the reason in {@code log}, when
   * the recording cannot be started or read (attach refused, the agent unreachable): the cell still
   * runs, and a profile is never a reason for a run to fail.
   */
  static Optional<Result> record(long pid, Path file, Cell cell, PrintStream log)
      throws IOException, InterruptedException {
    FlightRecorderMXBean jfr;
    long id;
    try {
      jfr = FlightRecorders.of(pid);
      id = jfr.newRecording();
      jfr.setPredefinedConfiguration(id, "profile");
      jfr.startRecording(id);
    } catch (IOException | RuntimeException e) {
      // A broken connection is not kept: the next cell attaches again.
      FlightRecorders.forget(pid);
      log.printf("profile: cannot start a recording of pid %d: %s%n", pid, shorten(e.toString()));
      cell.run();
      return Optional.empty();
    }
    try {
      cell.run();
    } finally {
      Files.createDirectories(file.toAbsolutePath().getParent());
      try {
        jfr.stopRecording(id);
        jfr.copyTo(id, file.toAbsolutePath().toString());
      } catch (IOException | RuntimeException e) {
        FlightRecorders.forget(pid);
        log.printf(
            "profile: cannot stop the recording of pid %d: %s%n", pid, shorten(e.toString()));
      } finally {
        try {
          jfr.closeRecording(id);
        } catch (RuntimeException e) {
          // Closed with its process, or already forgotten above.
        }
      }
    }
    if (!Files.exists(file)) {
      log.printf("profile: pid %d wrote no recording%n", pid);
      return Optional.empty();
    }
    try {
      return Optional.of(read(file));
    } catch (IOException | RuntimeException e) {
      log.printf("profile: cannot read %s: %s%n", file.getFileName(), e);
      return Optional.empty();
    }
  }

  /** The execution samples of a recording, by part. */
  static Result read(Path file) throws IOException {
    Map<Part, Integer> parts = new EnumMap<>(Part.class);
    Map<String, Integer> methods = new HashMap<>();
    int samples = 0;
    try (RecordingFile f = new RecordingFile(file)) {
      while (f.hasMoreEvents()) {
        RecordedEvent e = f.readEvent();
        if (!e.getEventType().getName().equals("jdk.ExecutionSample")
            || e.getStackTrace() == null) {
          continue;
        }
        List<String> classes = new ArrayList<>();
        List<RecordedFrame> frames = e.getStackTrace().getFrames();
        for (RecordedFrame fr : frames) {
          if (fr.isJavaFrame() && fr.getMethod() != null && fr.getMethod().getType() != null) {
            classes.add(fr.getMethod().getType().getName() + "#" + fr.getMethod().getName());
          }
        }
        if (classes.isEmpty()) {
          continue;
        }
        samples++;
        parts.merge(classify(classes), 1, Integer::sum);
        RecordedFrame top = frames.get(0);
        methods.merge(
            top.getMethod().getType().getName() + "." + top.getMethod().getName(), 1, Integer::sum);
      }
    }
    int total = samples;
    List<Map.Entry<String, Double>> topMethods =
        methods.entrySet().stream()
            .sorted(
                Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder())
                    .thenComparing(Map.Entry.comparingByKey()))
            .limit(TOP_METHODS)
            .map(m -> Map.entry(m.getKey(), m.getValue() / (double) total))
            .toList();
    return new Result(samples, parts, topMethods);
  }

  /**
   * The part of a sample whose frames are {@code classes} ({@code class} or {@code class#method}),
   * top first: that of the first frame a rule recognises, else {@link Part#OTHER}.
   */
  static Part classify(List<String> classes) {
    for (String c : classes) {
      for (Map.Entry<String, Part> r : RULES) {
        if (matches(c, r.getKey())) {
          return r.getValue();
        }
      }
    }
    return Part.OTHER;
  }

  private static boolean matches(String frame, String rule) {
    int hash = frame.indexOf('#');
    // A rule '#m' names a method (its prefix) of any Lucene class; any other, the class alone.
    if (rule.startsWith("#")) {
      return hash >= 0
          && frame.startsWith("org.apache.lucene.")
          && frame.startsWith(rule.substring(1), hash + 1);
    }
    String className = hash < 0 ? frame : frame.substring(0, hash);
    int star = rule.indexOf('*');
    if (star < 0) {
      return className.startsWith(rule);
    }
    String pkg = rule.substring(0, star);
    if (!className.startsWith(pkg)) {
      return false;
    }
    String simple = className.substring(className.lastIndexOf('.') + 1);
    return simple.contains(rule.substring(star + 1));
  }

  private static String shorten(String s) {
    String one = s.replace('\n', ' ');
    return one.length() <= 200 ? one : one.substring(0, 200) + "…";
  }

  /** One line: the parts' shares, largest first. */
  static String describe(Result r) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%d samples:", r.samples()));
    List<Part> order = new ArrayList<>(List.of(Part.values()));
    order.sort(Comparator.comparingDouble(r::share).reversed());
    for (Part p : order) {
      if (r.share(p) > 0) {
        b.append(String.format(Locale.ROOT, " %s %.0f%%,", p.label(), 100 * r.share(p)));
      }
    }
    b.setLength(b.length() - 1);
    return b.toString();
  }
}
