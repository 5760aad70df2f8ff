package org.searchlab.qa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.wal.SyncPolicy;
import org.searchlab.core.wal.WalConfig;
import org.searchlab.mutable.MutableConfig;
import org.searchlab.mutable.MutableIndex;
import org.searchlab.segmented.LuceneSegmentedIndex;
import org.searchlab.segmented.SegmentedConfig;
import org.searchlab.testing.SearchAssertions;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The acceptance test: on 20,000 random documents, the lexical top 10 of 250 queries equals
 * {@link LuceneSegmentedIndex} force-merged to one segment (which has no deletes, so Lucene's
 * statistics are exact): same ids, scores within 1e-4, tied scores compared as sets. Vectors are
 * left out: they play no part in lexical scores and would only cost graph builds.
 */
class MutableVsSegmentedLexicalTest {
  @TempDir Path tmp;

  @Test
  void lexicalTop10EqualsForceMergedLucene() throws Exception {
    long seed = TestSeeds.seed("MutableVsSegmentedLexicalTest.top10");
    SplittableRandom random = new SplittableRandom(seed);
    int dim = 16;
    Schema schema = new Schema(dim);
    SyntheticCorpus corpus = new SyntheticCorpus(seed, dim);
    List<Document> docs = new ArrayList<>();
    for (Document d : corpus.documents(20_000)) {
      docs.add(
          new Document(
              d.id(),
              d.title(),
              d.description(),
              d.category(),
              d.price(),
              d.averageRating(),
              null));
    }
    WalConfig async = WalConfig.builder().syncPolicy(SyncPolicy.ASYNC).build();
    try (MutableIndex mutable =
            MutableIndex.open(
                tmp.resolve("mutable"),
                schema,
                MutableConfig.builder().wal(async).snapshotInterval(Duration.ZERO).build());
        LuceneSegmentedIndex segmented =
            LuceneSegmentedIndex.open(
                tmp.resolve("segmented"), schema, SegmentedConfig.builder().wal(async).build())) {
      feed(mutable, docs);
      feed(segmented, docs);
      segmented.refresh();
      segmented.forceMerge(1);
      segmented.refresh();
      assertEquals(1, segmented.stats().segmentCount());
      int compared = 0;
      int nonEmpty = 0;
      for (int q = 0; q < 250; q++) {
        String text =
            q % 2 == 0
                ? corpus.query(random.nextInt(docs.size()), false).build().text()
                : corpus.randomQueryText(random, 1 + random.nextInt(6));
        Filter filter =
            q % 4 == 3
                ? Filter.category(docs.get(random.nextInt(docs.size())).category())
                : Filter.ALL;
        SearchRequest req = SearchRequest.builder().text(text).filter(filter).hits(10).build();
        SearchResult expected = segmented.search(req);
        SearchResult actual = mutable.search(req);
        SearchAssertions.assertSameScores(expected, actual, "'" + text + "' " + filter);
        compared++;
        if (!expected.hits().isEmpty()) {
          nonEmpty++;
        }
      }
      System.out.printf(
          "[vs-segmented] seed=%d queries=%d non-empty=%d%n", seed, compared, nonEmpty);
      assertTrue(nonEmpty >= 200, "only " + nonEmpty + " queries matched anything");
    }
  }

  private static void feed(SearchIndex index, List<Document> docs) throws java.io.IOException {
    for (int from = 0; from < docs.size(); from += 1000) {
      List<Operation> ops = new ArrayList<>();
      for (Document d : docs.subList(from, Math.min(docs.size(), from + 1000))) {
        ops.add(Operation.put(d));
      }
      index.bulk(ops);
    }
  }
}
