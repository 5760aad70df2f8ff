package org.searchlab.core.wal;

/**
 * When the log is fsynced, as Elasticsearch's {@code index.translog.durability}.
 *
 * <ul>
 *   <li>{@link #REQUEST}: before a write is acknowledged; concurrent writers share fsyncs (group
 *       commit). Nothing acknowledged is lost in a crash.
 *   <li>{@link #ASYNC}: every {@link WalConfig#asyncInterval()}; faster, and a crash may lose the
 *       writes of the last interval. Experiments that use it must report it.
 * </ul>
 */
public enum SyncPolicy {
  REQUEST,
  ASYNC;

  public static SyncPolicy parse(String name) {
    for (SyncPolicy p : values()) {
      if (p.name().equalsIgnoreCase(name)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "unknown sync policy '" + name + "'; expected request or async");
  }
}
