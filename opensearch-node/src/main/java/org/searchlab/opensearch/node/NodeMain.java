package org.searchlab.opensearch.node;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.codelibs.opensearch.runner.OpenSearchRunner;

/**
 * Runs one embedded OpenSearch node until its parent goes away: {@code NodeMain <base dir>
 * key=value...}, where every {@code key=value} is an OpenSearch node setting ({@code key=[a,b,c]}
 * for a list) and the base directory receives the node's {@code config}, {@code data} and {@code
 * logs}. The k-NN plugin ({@value #KNN_PLUGIN}) is loaded from the class path.
 *
 * <p>Lifecycle, so that no node outlives the JVM that started it:
 *
 * <ol>
 *   <li>The node starts; {@value #STARTED} and its settings go to stdout (readiness itself is
 *       checked by the parent over HTTP: green health).
 *   <li>The main thread then reads stdin until end of stream. The parent never writes to it, so the
 *       stream ends only when the parent closes it or dies, even by SIGKILL (the kernel closes the
 *       pipe). The node then closes and the JVM exits with status 0.
 *   <li>SIGTERM runs the same close through a shutdown hook.
 * </ol>
 *
 * <p>Not thread-safe and not reusable: one run per JVM.
 */
public final class NodeMain {
  /** The k-NN plugin's entry class (org.opensearch.plugin:opensearch-knn). */
  public static final String KNN_PLUGIN = "org.opensearch.knn.plugin.KNNPlugin";

  /** The first line printed once the node has started. */
  public static final String STARTED = "searchlab-opensearch-node started";

  private NodeMain() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 1) {
      System.err.println("usage: NodeMain <base dir> key=value...");
      System.exit(2);
    }
    Path base = Path.of(args[0]).toAbsolutePath();
    Map<String, String> settings = parseSettings(Arrays.asList(args).subList(1, args.length));
    Files.createDirectories(base);
    OpenSearchRunner runner = new OpenSearchRunner();
    Thread close =
        new Thread(
            () -> {
              try {
                runner.close();
              } catch (IOException | RuntimeException e) {
                System.err.println("searchlab-opensearch-node: close failed: " + e);
              }
            },
            "close-opensearch-node");
    Runtime.getRuntime().addShutdownHook(close);
    runner.onBuild(
        (index, builder) ->
            settings.forEach(
                (key, value) -> {
                  if (value.startsWith("[") && value.endsWith("]")) {
                    builder.putList(key, value.substring(1, value.length() - 1).split(","));
                  } else {
                    builder.put(key, value);
                  }
                }));
    OpenSearchRunner.Configs configs =
        OpenSearchRunner.newConfigs()
            .basePath(base.toString())
            // One node per JVM; several JVMs form a cluster through the discovery settings.
            .numOfNode(1)
            .pluginTypes(KNN_PLUGIN);
    String clusterName = settings.get("cluster.name");
    if (clusterName != null) {
      configs.clusterName(clusterName);
    }
    try {
      runner.build(configs);
    } catch (RuntimeException | LinkageError e) {
      // A missing class (LinkageError) would otherwise end only this thread and leave the JVM up.
      e.printStackTrace();
      // The shutdown hook closes whatever part of the node started.
      System.exit(1);
    }
    System.out.println(STARTED + " " + settings);
    System.out.flush();
    awaitEndOfStream(System.in);
    System.out.println("searchlab-opensearch-node: parent gone, closing");
    System.exit(0);
  }

  /** Parses {@code key=value} arguments, keeping their order; rejects anything else. */
  static Map<String, String> parseSettings(List<String> args) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("setting '" + a + "' is not key=value");
      }
      out.put(a.substring(0, eq), a.substring(eq + 1));
    }
    return out;
  }

  private static void awaitEndOfStream(InputStream in) {
    byte[] sink = new byte[256];
    try {
      while (in.read(sink) >= 0) {
        // the parent writes nothing; anything it does write is ignored
      }
    } catch (IOException e) {
      // a broken pipe means the parent is gone, the same as end of stream
    }
  }
}
