package org.searchlab.core;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;

/**
 * One kind of store the server can open an index with ({@code mutable}, {@code segmented}), as
 * Lucene's codec SPI names a codec and Elasticsearch's plugins add engines: the launcher registers
 * each kind with the settings its command line gave, and the server opens every index through this
 * interface alone, so it depends on no store module. Implementations are immutable and thread-safe.
 */
public interface StoreKind {
  /** The name {@code index.store} and {@code serve --store} use. */
  String name();

  /**
   * Opens (or creates) an index of this kind in {@code dir}, which the caller owns and names.
   *
   * @param settings the index's settings (refresh interval, analyzers, similarities)
   * @param mapping the mapping the index is created with; a reopened index merges it into the one
   *     it kept on disk
   */
  SearchIndex open(Path dir, IndexSettings settings, Mapping mapping) throws IOException;
}
