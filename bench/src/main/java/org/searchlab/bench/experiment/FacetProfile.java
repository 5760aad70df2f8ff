package org.searchlab.bench.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.management.JMX;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import jdk.management.jfr.FlightRecorderMXBean;

/**
 * Where a server's faceting time goes: a JDK Flight Recorder recording of the server's JVM (the
 * JDK's {@code profile} settings: a Java stack sample every 10 ms of each running thread), started
 * and stopped from the runner over the server's local management agent (the attach API starts it;
 * no extra process), and a summary of its {@code jdk.ExecutionSample} events by where each sample
 * was: the innermost frame of searchlab, Lucene, Jackson or Netty decides ({@link #category}),
 * frames of the JDK's own classes below it count for their caller. Not thread-safe; one per
 * recording.
 */
final class FacetProfile implements AutoCloseable {
  /** The report's categories, in its order. */
  static final List<String> CATEGORIES =
      List.of(
          "query matching and scoring",
          "aggregation collection",
          "doc values, ordinals and columns",
          "request parsing",
          "JSON rendering",
          "HTTP and dispatch",
          "other");

  private final JMXConnector connector;
  private final FlightRecorderMXBean jfr;
  private final long recording;

  private FacetProfile(JMXConnector connector, FlightRecorderMXBean jfr, long recording) {
    this.connector = connector;
    this.jfr = jfr;
    this.recording = recording;
  }

  /** Starts a recording in the JVM of {@code pid} (a child of this process, the same user). */
  static FacetProfile start(long pid) throws IOException {
    JMXConnector c = ServerJmx.connect(pid).connector();
    try {
      FlightRecorderMXBean jfr =
          JMX.newMXBeanProxy(
              c.getMBeanServerConnection(),
              new ObjectName(FlightRecorderMXBean.MXBEAN_NAME),
              FlightRecorderMXBean.class);
      long id = jfr.newRecording();
      jfr.setPredefinedConfiguration(id, "profile");
      jfr.setRecordingOptions(id, Map.of("name", "searchlab-facets", "disk", "true"));
      jfr.startRecording(id);
      return new FacetProfile(c, jfr, id);
    } catch (javax.management.MalformedObjectNameException | IOException | RuntimeException e) {
      c.close();
      throw new IOException("starting a flight recording in " + pid, e);
    }
  }

  /**
   * Stops the recording, writes it to {@code file} (the server runs on this machine) and returns
   * its samples by category.
   */
  Summary stop(Path file) throws IOException {
    jfr.stopRecording(recording);
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.deleteIfExists(file);
    jfr.copyTo(recording, file.toAbsolutePath().toString());
    return summarise(file);
  }

  @Override
  public void close() throws IOException {
    try {
      jfr.closeRecording(recording);
    } catch (RuntimeException e) {
      // the server may be gone; the recording goes with it
    } finally {
      connector.close();
    }
  }

  /**
   * Samples of a recording by category, and by the innermost searchlab, Lucene or Jackson method
   * (its top methods).
   *
   * @param samples {@code jdk.ExecutionSample} events
   * @param byCategory samples per category of {@link #CATEGORIES}
   * @param byMethod samples per innermost method, most first
   */
  record Summary(long samples, Map<String, Long> byCategory, Map<String, Long> byMethod) {
    /** The share of samples in a category, 0 without samples. */
    double share(String category) {
      return samples == 0 ? 0 : byCategory.getOrDefault(category, 0L) / (double) samples;
    }

    /** The {@code n} methods with the most samples. */
    List<Map.Entry<String, Long>> top(int n) {
      return byMethod.entrySet().stream()
          .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
          .limit(n)
          .toList();
    }
  }

  /** Reads a recording's execution samples and sorts them by {@link #category}. */
  static Summary summarise(Path file) throws IOException {
    Map<String, Long> byCategory = new LinkedHashMap<>();
    CATEGORIES.forEach(c -> byCategory.put(c, 0L));
    Map<String, Long> byMethod = new TreeMap<>();
    long samples = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
        continue;
      }
      List<String> classes = new ArrayList<>();
      List<String> methods = new ArrayList<>();
      for (RecordedFrame f : e.getStackTrace().getFrames()) {
        if (f.isJavaFrame() && f.getMethod() != null) {
          classes.add(f.getMethod().getType().getName());
          methods.add(f.getMethod().getType().getName() + "." + f.getMethod().getName());
        }
      }
      samples++;
      byCategory.merge(category(classes), 1L, Long::sum);
      for (int i = 0; i < classes.size(); i++) {
        if (ours(classes.get(i))) {
          byMethod.merge(methods.get(i), 1L, Long::sum);
          break;
        }
      }
    }
    return new Summary(samples, byCategory, byMethod);
  }

  private static boolean ours(String cls) {
    return cls.startsWith("org.searchlab.")
        || cls.startsWith("org.apache.lucene.")
        || cls.startsWith("com.fasterxml.jackson.")
        || cls.startsWith("io.netty.");
  }

  /**
   * The category of a stack, innermost frame first: the first frame of searchlab, Lucene, Jackson
   * or Netty decides (the JDK's own classes count for their caller); Jackson is request parsing
   * when an Elasticsearch-dialect parser is below it, else rendering. A stack without such a frame
   * is {@code other} (threads of the JDK alone).
   */
  static String category(List<String> classes) {
    boolean lucene = false;
    for (int i = 0; i < classes.size(); i++) {
      String c = classes.get(i);
      if (!ours(c)) {
        continue;
      }
      if (generic(c)) {
        // Lucene's byte reading and utilities serve postings and doc values alike: the caller says
        // which.
        lucene = true;
        continue;
      }
      String simple = c.substring(c.lastIndexOf('.') + 1);
      if (c.startsWith("com.fasterxml.jackson.")) {
        for (String below : classes.subList(i, classes.size())) {
          if (below.startsWith("org.searchlab.server.") && below.contains("Parser")) {
            return "request parsing";
          }
        }
        return "JSON rendering";
      }
      if (simple.contains("DocValues")
          || simple.contains("Ordinal")
          || c.startsWith("org.apache.lucene.util.packed.")
          || c.startsWith("org.searchlab.mutable.attributes.")
          || simple.contains("AggregationSource")) {
        return "doc values, ordinals and columns";
      }
      if (c.startsWith("org.searchlab.core.agg.")) {
        return "aggregation collection";
      }
      if (c.startsWith("io.netty.")) {
        return "HTTP and dispatch";
      }
      if (c.startsWith("org.searchlab.server.")) {
        return simple.contains("Parser")
            ? "request parsing"
            : simple.contains("Response") || simple.contains("Render")
                ? "JSON rendering"
                : "HTTP and dispatch";
      }
      return "query matching and scoring";
    }
    return lucene ? "query matching and scoring" : "other";
  }

  /** Lucene classes that serve every part of a search: the caller's frame decides. */
  private static boolean generic(String cls) {
    return cls.startsWith("org.apache.lucene.store.")
        || (cls.startsWith("org.apache.lucene.util.")
            && !cls.startsWith("org.apache.lucene.util.packed."));
  }
}
