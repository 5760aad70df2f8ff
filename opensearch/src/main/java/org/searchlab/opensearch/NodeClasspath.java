package org.searchlab.opensearch;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where an OpenSearch child JVM finds its classes: the {@code opensearch-node} module's build
 * output, {@code classes} (its main class) and {@code lib} (OpenSearch, the k-NN plugin and their
 * dependencies, with OpenSearch's own Lucene). Both appear when that module is compiled, so any
 * {@code ./mvnw test|verify|package} of the reactor, or the first {@code bin/searchlab}, creates
 * them. Immutable.
 *
 * @param home the module's build directory, {@code <repository>/opensearch-node/target}
 */
public record NodeClasspath(Path home) {
  /** System property naming {@link #home()} directly (set by this module's tests). */
  public static final String HOME_PROPERTY = "searchlab.opensearch.node.home";

  /** System property the launcher sets to the repository root ({@code bin/searchlab}). */
  public static final String SEARCHLAB_HOME_PROPERTY = "searchlab.home";

  /** The child's main class, in {@code opensearch-node}. */
  public static final String MAIN_CLASS = "org.searchlab.opensearch.node.NodeMain";

  /** A jar that must be in {@code lib}: the k-NN plugin, unpacked from its zip. */
  private static final String KNN_JAR_PREFIX = "opensearch-knn-";

  public NodeClasspath {
    home = home.toAbsolutePath().normalize();
  }

  /**
   * The class path this JVM was told about: {@value #HOME_PROPERTY}, else {@code
   * <searchlab.home>/opensearch-node/target}, else {@code opensearch-node/target} under the working
   * directory. Call {@link #check()} before starting a node.
   */
  public static NodeClasspath locate() {
    String home = System.getProperty(HOME_PROPERTY);
    if (home != null) {
      return new NodeClasspath(Path.of(home));
    }
    String root = System.getProperty(SEARCHLAB_HOME_PROPERTY, ".");
    return new NodeClasspath(Path.of(root, "opensearch-node", "target"));
  }

  public Path classes() {
    return home.resolve("classes");
  }

  public Path lib() {
    return home.resolve("lib");
  }

  /** The {@code -cp} value: the classes directory, then every jar of {@code lib}. */
  public String asClasspath() {
    return classes() + File.pathSeparator + lib().resolve("*");
  }

  /**
   * Fails with a message that says how to build the node when its main class or the k-NN plugin is
   * missing; returns this otherwise.
   */
  public NodeClasspath check() throws IOException {
    Path main = classes().resolve(MAIN_CLASS.replace('.', '/') + ".class");
    if (!Files.isRegularFile(main) || !hasKnnJar()) {
      throw new IOException(
          "no OpenSearch node class path at "
              + home
              + " (needs classes/"
              + MAIN_CLASS.replace('.', '/')
              + ".class and lib/"
              + KNN_JAR_PREFIX
              + "*.jar); build it with './mvnw -q -B -DskipTests package' in the repository root"
              + " or set -D"
              + HOME_PROPERTY);
    }
    return this;
  }

  private boolean hasKnnJar() throws IOException {
    if (!Files.isDirectory(lib())) {
      return false;
    }
    try (DirectoryStream<Path> jars = Files.newDirectoryStream(lib(), KNN_JAR_PREFIX + "*.jar")) {
      return jars.iterator().hasNext();
    }
  }
}
