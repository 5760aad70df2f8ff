package org.searchlab.mutable;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.StoreKind;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;

/**
 * The mutable store as a {@link StoreKind} named {@value #NAME}: every index it opens uses the
 * {@link MutableConfig} the launcher gave it. Immutable and thread-safe.
 */
public final class MutableStoreKind implements StoreKind {
  /** The name {@code index.store} and {@code serve --store} use. */
  public static final String NAME = "mutable";

  private final MutableConfig config;

  public MutableStoreKind(MutableConfig config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  /** The settings every index of this kind is opened with. */
  public MutableConfig config() {
    return config;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public SearchIndex open(Path dir, IndexSettings settings, Mapping mapping) throws IOException {
    return MutableIndex.open(dir, settings, mapping, config);
  }
}
