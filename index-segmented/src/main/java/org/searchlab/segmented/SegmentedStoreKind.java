package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.StoreKind;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;

/**
 * The segmented store as a {@link StoreKind} ({@code segmented}): every index it opens is a {@link
 * LuceneSegmentedIndex} of its mapping, with the settings the launcher gave. Immutable and
 * thread-safe.
 */
public final class SegmentedStoreKind implements StoreKind {
  public static final String NAME = "segmented";

  private final SegmentedConfig config;

  public SegmentedStoreKind(SegmentedConfig config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  @Override
  public String name() {
    return NAME;
  }

  /** The store settings every index opens with. */
  public SegmentedConfig config() {
    return config;
  }

  @Override
  public SearchIndex open(Path dir, IndexSettings settings, Mapping mapping) throws IOException {
    return LuceneSegmentedIndex.open(dir, settings, mapping, config);
  }
}
