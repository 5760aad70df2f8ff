package org.searchlab.segmented;

import org.apache.lucene.index.FilterMergePolicy;
import org.apache.lucene.index.LogByteSizeMergePolicy;
import org.apache.lucene.index.MergePolicy;
import org.apache.lucene.index.MergeTrigger;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.TieredMergePolicy;

/**
 * Builds the Lucene merge policy a {@link SegmentedConfig} names. Stateless and thread-safe; the
 * policies it returns are used by one {@code IndexWriter}.
 */
final class MergePolicies {
  private MergePolicies() {}

  /**
   * The policy {@code c} names, held by a {@link HeldDuringRecovery} until the store's recovery
   * releases it.
   */
  static HeldDuringRecovery create(SegmentedConfig c) {
    return new HeldDuringRecovery(named(c));
  }

  private static MergePolicy named(SegmentedConfig c) {
    return switch (c.mergePolicy()) {
      case TIERED -> tiered(c);
      case LOG_BYTE_SIZE -> {
        LogByteSizeMergePolicy p = new LogByteSizeMergePolicy();
        p.setMergeFactor(c.maxMergeAtOnce());
        p.setMinMergeMB(c.floorSegmentMB());
        p.setMaxMergeMB(c.maxMergedSegmentMB());
        yield p;
      }
      // forceMerge still has to work (the benchmark force-merges), so only natural merges are off.
      case NONE -> new ForceMergeOnly(tiered(c));
    };
  }

  private static TieredMergePolicy tiered(SegmentedConfig c) {
    TieredMergePolicy p = new TieredMergePolicy();
    p.setSegmentsPerTier(c.segmentsPerTier());
    // TieredMergePolicy wants maxMergeAtOnce ≤ segmentsPerTier; Elasticsearch lowers it likewise.
    p.setMaxMergeAtOnce((int) Math.max(2, Math.min(c.maxMergeAtOnce(), c.segmentsPerTier())));
    p.setFloorSegmentMB(c.floorSegmentMB());
    p.setMaxMergedSegmentMB(c.maxMergedSegmentMB());
    p.setDeletesPctAllowed(c.deletesPctAllowed());
    return p;
  }

  /**
   * A policy that never merges on its own (after flushes, commits or refreshes) but still answers
   * {@code forceMerge} and {@code forceMergeDeletes} through its delegate.
   */
  static final class ForceMergeOnly extends FilterMergePolicy {
    ForceMergeOnly(MergePolicy forced) {
      super(forced);
    }

    @Override
    public MergeSpecification findMerges(
        MergeTrigger trigger, SegmentInfos infos, MergeContext context) {
      return null;
    }

    @Override
    public MergeSpecification findFullFlushMerges(
        MergeTrigger trigger, SegmentInfos infos, MergeContext context) {
      return null;
    }
  }

  /**
   * Finds no natural merges until {@link #release()}: while the store replays its log on open, a
   * merge of the committed segments would take the cores the replay needs, and the store answers
   * nothing until the replay ends. Forced merges pass (nothing forces one while opening). After the
   * release the next flush, commit or {@code maybeMerge} finds the merges held back.
   */
  static final class HeldDuringRecovery extends FilterMergePolicy {
    private volatile boolean held = true;

    HeldDuringRecovery(MergePolicy policy) {
      super(policy);
    }

    /** Lets natural merges run from now on. */
    void release() {
      held = false;
    }

    boolean held() {
      return held;
    }

    @Override
    public MergeSpecification findMerges(
        MergeTrigger trigger, SegmentInfos infos, MergeContext context) throws java.io.IOException {
      return held ? null : super.findMerges(trigger, infos, context);
    }

    @Override
    public MergeSpecification findFullFlushMerges(
        MergeTrigger trigger, SegmentInfos infos, MergeContext context) throws java.io.IOException {
      return held ? null : super.findFullFlushMerges(trigger, infos, context);
    }
  }
}
