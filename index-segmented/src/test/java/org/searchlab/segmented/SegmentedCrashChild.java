package org.searchlab.segmented;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.core.WriteResult;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The child of {@link CrashSafetyTest}: feeds a segmented store until it is killed, printing each
 * operation before it starts ({@code try ...;}) and after it is acknowledged ({@code ack ...;}).
 * Lines end with {@code ;} so the parent can ignore a line cut by the kill. Arguments: directory,
 * seed.
 *
 * <p>Per round: a bulk of 20 new documents, an update of the price of an earlier document, every
 * third round a delete, every fourth round a flush (commit + WAL trim), so recovery replays the log
 * on top of a commit.
 */
public final class SegmentedCrashChild {
  static final int DIM = 16;
  static final int PER_BULK = 20;

  private SegmentedCrashChild() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long seed = Long.parseLong(args[1]);
    SyntheticCorpus corpus = new SyntheticCorpus(seed, DIM);
    SplittableRandom random = new SplittableRandom(seed);
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    // A short refresh interval, so refreshes (and the version map swaps) race the feed.
    SegmentedConfig config = SegmentedConfig.builder().refreshIntervalMs(20).build();
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(dir, new Schema(DIM), config)) {
      out.println("ready;");
      out.flush();
      int next = 0;
      for (int round = 1; ; round++) {
        List<Operation> ops = new ArrayList<>();
        for (int i = 0; i < PER_BULK; i++) {
          ops.add(Operation.put(corpus.document(next++)));
        }
        out.println("try bulk " + (next - PER_BULK) + " " + next + ";");
        out.flush();
        List<BulkItemResult> results = index.bulk(ops);
        for (BulkItemResult r : results) {
          if (r.failed()) {
            throw new IllegalStateException("bulk item failed: " + r.error());
          }
        }
        out.println("ack bulk " + (next - PER_BULK) + " " + next + ";");
        int target = random.nextInt(next);
        int price = random.nextInt(1_000_000);
        String id = corpus.document(target).id();
        out.println("try update " + id + " " + price + ";");
        out.flush();
        WriteResult r = index.update(PartialUpdate.of(id).withPrice(price));
        out.println("ack update " + id + " " + price + " " + r.outcome() + ";");
        if (round % 3 == 0) {
          String victim = corpus.document(random.nextInt(next)).id();
          out.println("try delete " + victim + ";");
          out.flush();
          WriteResult d = index.delete(victim);
          out.println("ack delete " + victim + " " + d.outcome() + ";");
        }
        if (round % 4 == 0) {
          index.flush();
          out.println("flushed " + index.stats().flushedSerial() + ";");
        }
        out.flush();
      }
    }
  }
}
