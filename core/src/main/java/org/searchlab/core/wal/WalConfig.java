package org.searchlab.core.wal;

import java.time.Duration;
import java.util.Objects;

/**
 * Write-ahead log settings. Immutable; build one with {@link #builder()} (which starts from {@link
 * #DEFAULT}) or change one with {@link #toBuilder()}.
 *
 * @param syncPolicy when to fsync; {@link SyncPolicy#REQUEST} is safe, {@link SyncPolicy#ASYNC}
 *     faster
 * @param asyncInterval the fsync period under {@code ASYNC}, 1 ms to 1 h; shorter loses less in a
 *     crash and costs more fsyncs (Elasticsearch's default is 5 s)
 * @param fileBytes roll to a new file past this size, 1 MiB to 16 GiB; larger means fewer files,
 *     coarser trimming
 */
public record WalConfig(SyncPolicy syncPolicy, Duration asyncInterval, long fileBytes) {
  public static final WalConfig DEFAULT =
      new WalConfig(SyncPolicy.REQUEST, Duration.ofSeconds(5), 64L << 20);

  public WalConfig {
    Objects.requireNonNull(syncPolicy, "syncPolicy");
    Objects.requireNonNull(asyncInterval, "asyncInterval");
    if (asyncInterval.toMillis() < 1 || asyncInterval.toHours() > 1) {
      throw new IllegalArgumentException(
          "WAL async interval " + asyncInterval + " is outside [1 ms, 1 h]");
    }
    if (fileBytes < (1L << 20) || fileBytes > (16L << 30)) {
      throw new IllegalArgumentException(
          "WAL file size " + fileBytes + " is outside [1 MiB, 16 GiB]");
    }
  }

  /** A builder starting from {@link #DEFAULT}. */
  public static Builder builder() {
    return DEFAULT.toBuilder();
  }

  /** A builder preloaded with this config's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.syncPolicy = syncPolicy;
    b.asyncInterval = asyncInterval;
    b.fileBytes = fileBytes;
    return b;
  }

  /**
   * Builds a {@link WalConfig}, one setter per component; {@link #build()} runs the record's
   * validation. Not thread-safe.
   */
  public static final class Builder {
    private SyncPolicy syncPolicy;
    private Duration asyncInterval;
    private long fileBytes;

    private Builder() {}

    public Builder syncPolicy(SyncPolicy v) {
      syncPolicy = v;
      return this;
    }

    public Builder asyncInterval(Duration v) {
      asyncInterval = v;
      return this;
    }

    public Builder fileBytes(long v) {
      fileBytes = v;
      return this;
    }

    public WalConfig build() {
      return new WalConfig(syncPolicy, asyncInterval, fileBytes);
    }
  }
}
