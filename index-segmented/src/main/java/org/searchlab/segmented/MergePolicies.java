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

  static MergePolicy create(SegmentedConfig c) {
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
}
