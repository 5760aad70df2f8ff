package org.searchlab.distribution;

import java.util.List;

/**
 * Subcommands another module adds to {@code searchlab}, found with {@link java.util.ServiceLoader}
 * (a {@code META-INF/services/org.searchlab.distribution.CliExtension} entry). The benchmark module
 * uses it, so the server's distribution never depends on the benchmark libraries. Implementations
 * are stateless.
 */
public interface CliExtension {
  /** Picocli command objects (annotated with {@code @Command}), each a new instance. */
  List<Object> subcommands();
}
