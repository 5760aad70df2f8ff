package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link MergePolicies.HeldDuringRecovery}: no natural merge while held, the merges held back run
 * once it is released, and a forced merge passes while held.
 */
class MergePoliciesTest {
  @TempDir Path tmp;

  private static final SegmentedConfig MERGE_EAGERLY =
      SegmentedConfig.builder().segmentsPerTier(2).maxMergeAtOnce(2).build();

  private static int segments(IndexWriter w) throws IOException {
    try (DirectoryReader r = DirectoryReader.open(w)) {
      return r.leaves().size();
    }
  }

  private static IndexWriter writer(Path dir, MergePolicies.HeldDuringRecovery policy)
      throws IOException {
    return new IndexWriter(
        FSDirectory.open(dir),
        new IndexWriterConfig()
            .setMergePolicy(policy)
            .setMergeScheduler(new SerialMergeScheduler()));
  }

  private static void commitSegments(IndexWriter w, int n) throws IOException {
    for (int i = 0; i < n; i++) {
      Document d = new Document();
      d.add(new StringField("id", "d" + i, StringField.Store.NO));
      w.addDocument(d);
      w.commit(); // one segment per commit; each commit also asks the policy for merges
    }
  }

  @Test
  void heldMergesRunOnlyAfterTheRelease() throws IOException {
    MergePolicies.HeldDuringRecovery policy = MergePolicies.create(MERGE_EAGERLY);
    assertTrue(policy.held(), "a new store's policy starts held");
    try (IndexWriter w = writer(tmp.resolve("a"), policy)) {
      commitSegments(w, 8);
      assertEquals(8, segments(w), "held: the commits merged nothing");
      policy.release();
      w.maybeMerge();
      assertTrue(segments(w) < 8, "released: the held merges ran, " + segments(w) + " segments");
      assertEquals(8, w.getDocStats().numDocs);
    }
  }

  @Test
  void aForcedMergePassesWhileHeld() throws IOException {
    MergePolicies.HeldDuringRecovery policy = MergePolicies.create(MERGE_EAGERLY);
    try (IndexWriter w = writer(tmp.resolve("b"), policy)) {
      commitSegments(w, 5);
      w.forceMerge(1);
      assertEquals(1, segments(w));
      assertTrue(policy.held());
    }
  }
}
