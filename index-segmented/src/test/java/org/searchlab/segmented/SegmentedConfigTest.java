package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.wal.SyncPolicy;

/** The defaults are Elasticsearch's, the knobs parse from their CLI spelling and check ranges. */
class SegmentedConfigTest {
  @Test
  void defaultsAreElasticsearchs() {
    SegmentedConfig c = SegmentedConfig.DEFAULT;
    assertEquals(MergePolicyType.TIERED, c.mergePolicy());
    assertEquals(10.0, c.segmentsPerTier());
    assertEquals(10, c.maxMergeAtOnce());
    assertEquals(2.0, c.floorSegmentMB());
    assertEquals(5120.0, c.maxMergedSegmentMB());
    assertEquals(20.0, c.deletesPctAllowed());
    assertEquals(1000, c.refreshIntervalMs());
    assertEquals(SegmentedConfig.CORES * 3 / 2 + 1, c.searchThreads());
    assertEquals(16, c.hnswM());
    assertEquals(200, c.hnswBeamWidth());
    assertEquals(Math.max(1, Math.min(4, SegmentedConfig.CORES / 2)), c.mergeThreads());
    assertEquals(PartialUpdateMode.REINDEX, c.partialUpdateMode());
    assertEquals(SyncPolicy.REQUEST, c.wal().syncPolicy());
    assertTrue(c.periodicRefresh());
    assertTrue(!c.toBuilder().refreshIntervalMs(-1).build().periodicRefresh());
    assertEquals(512L << 20, c.flushThresholdBytes());
    assertEquals(300_000, c.flushIdleMs()); // indices.memory.shard_inactive_time
    assertTrue(c.idleFlush());
    assertTrue(!c.toBuilder().flushIdleMs(0).build().idleFlush());
  }

  @Test
  void cliNamesParse() {
    assertEquals(MergePolicyType.LOG_BYTE_SIZE, MergePolicyType.parse("log-byte-size"));
    assertEquals("log-byte-size", MergePolicyType.LOG_BYTE_SIZE.cliName());
    assertEquals(MergePolicyType.NONE, MergePolicyType.parse("NONE"));
    assertEquals(Slicing.SEGMENT_PER_SLICE, Slicing.parse("segment-per-slice"));
    assertEquals(PartialUpdateMode.DOCVALUES, PartialUpdateMode.parse("docvalues"));
    InvalidRequestException e =
        assertThrows(InvalidRequestException.class, () -> MergePolicyType.parse("bogus"));
    assertTrue(e.getMessage().contains("tiered, log-byte-size, none"), e.getMessage());
  }

  @Test
  void outOfRangeValuesNameTheLimit() {
    InvalidRequestException e =
        assertThrows(
            InvalidRequestException.class, () -> SegmentedConfig.builder().hnswM(1000).build());
    assertTrue(
        e.getMessage().contains("hnswM 1000") && e.getMessage().contains("512"), e.getMessage());
    assertThrows(
        InvalidRequestException.class,
        () -> SegmentedConfig.builder().refreshIntervalMs(0).build());
    assertThrows(
        InvalidRequestException.class, () -> SegmentedConfig.builder().searchThreads(-1).build());
    assertThrows(
        InvalidRequestException.class,
        () -> SegmentedConfig.builder().deletesPctAllowed(60).build());
    assertEquals(0, SegmentedConfig.builder().searchThreads(0).build().searchThreads());
    e =
        assertThrows(
            InvalidRequestException.class, () -> SegmentedConfig.builder().flushIdleMs(50).build());
    assertTrue(e.getMessage().contains("flushIdleMs 50"), e.getMessage());
    assertEquals(25, SegmentedOpener.idleCheckMillis(100));
    assertEquals(5000, SegmentedOpener.idleCheckMillis(300_000));
  }
}
