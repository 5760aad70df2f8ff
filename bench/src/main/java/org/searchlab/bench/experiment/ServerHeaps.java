package org.searchlab.bench.experiment;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The {@code -Xmx} of each store's server child in the main phases. The stores hold different
 * things on the heap: the mutable store keeps its whole index there (vectors, graph, postings,
 * document store), the segmented one only its indexing buffer and version map, while its index is
 * mapped from files the kernel caches outside the heap. One heap for both wastes memory on the
 * segmented side, which at 1M documents decides whether the three variants and the runner fit the
 * machine at all (design-68 §2.3 chose mutable 7g, segmented 2g; the first 1M attempt measured the
 * mutable store's live set at 3.9–4.0 GB, so full and scale now give it 6g). Immutable and
 * thread-safe.
 *
 * @param mutable the mutable store's heap, e.g. {@code 7g}; larger holds a larger index
 * @param segmented the segmented store's heap; larger leaves less of the machine to its mapped
 *     files
 * @param other every other engine's heap (OpenSearch nodes)
 */
public record ServerHeaps(String mutable, String segmented, String other) {
  /** A JVM heap size as {@code -Xmx} takes it: digits and an optional k, m or g. */
  private static final Pattern SIZE = Pattern.compile("[1-9][0-9]*[kKmMgG]?");

  public ServerHeaps {
    check("mutable", mutable);
    check("segmented", segmented);
    check("other", other);
  }

  private static void check(String what, String heap) {
    Objects.requireNonNull(heap, what);
    if (!SIZE.matcher(heap).matches()) {
      throw new IllegalArgumentException(
          "the " + what + " server heap must be a size such as 2g or 512m; got '" + heap + "'");
    }
  }

  /** The same heap for every store: what every profile but {@code full} runs. */
  public static ServerHeaps uniform(String heap) {
    return new ServerHeaps(heap, heap, heap);
  }

  /** The heap of a store ({@link Variant#store()}). */
  public String of(String store) {
    return switch (store) {
      case Variant.MUTABLE_STORE -> mutable;
      case Variant.SEGMENTED_STORE -> segmented;
      default -> other;
    };
  }

  /** Whether every store gets the same heap. */
  public boolean isUniform() {
    return mutable.equals(segmented) && segmented.equals(other);
  }

  /** As the report and the progress log print it, e.g. {@code mutable 7g, segmented 2g}. */
  public String describe() {
    return isUniform()
        ? mutable
        : String.format(
            Locale.ROOT, "mutable %s, segmented %s, other engines %s", mutable, segmented, other);
  }
}
