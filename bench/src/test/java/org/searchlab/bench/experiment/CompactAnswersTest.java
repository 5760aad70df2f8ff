package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.core.Hit;
import org.searchlab.testing.TestSeeds;

/**
 * The runner's exact answers keep their top-10 and the scores of the ids the variants returned
 * (looked up after the answers arrive), not every match's score: on 2,000 documents their tie-aware
 * recall and overlap are the same numbers as those of the answers that kept every score ({@link
 * ExactSearch#answerWithEveryScore}), for every query type and filter, over answer lists that reach
 * past the exact top-10, repeat ids, and return documents the query does not match.
 */
class CompactAnswersTest {
  @Test
  void judgeEveryAnswerAsTheAnswersWithEveryScoreDid() {
    long seed = TestSeeds.seed("CompactAnswersTest");
    Corpus corpus = Corpus.synthetic(seed, 2_000, 16, 60);
    ExactSearch exact = new ExactSearch(corpus.docs(), corpus.queries());
    List<BenchQuery> queries = corpus.queries();
    List<List<String>> pairs = List.of(List.of("exact", "shifted"), List.of("shifted", "noisy"));
    Random random = new Random(seed);
    int looked = 0;
    for (QueryType t : QueryType.values()) {
      for (boolean filtered : new boolean[] {false, true}) {
        List<ExactAnswer> everyScore = new ArrayList<>();
        List<ExactAnswer> compact = new ArrayList<>();
        Map<String, List<List<String>>> answers = new LinkedHashMap<>();
        for (String name : List.of("exact", "shifted", "noisy", "repeated")) {
          answers.put(name, new ArrayList<>());
        }
        for (BenchQuery q : queries) {
          everyScore.add(exact.answerWithEveryScore(q, t, filtered, QualityCheck.K));
          compact.add(exact.answer(q, t, filtered, QualityCheck.K));
          List<String> top30 = exact.topK(q, t, filtered, 30);
          answers.get("exact").add(head(top30, 0, 10));
          // Ranks 6 to 15: half of them past the exact top-10, with scores at and below its 10th.
          answers.get("shifted").add(head(top30, 5, 15));
          // Some of the top-10 and random documents, which the query may not match at all.
          List<String> noisy = new ArrayList<>(head(top30, 0, 4));
          for (int i = 0; i < 6; i++) {
            noisy.add(corpus.docs().get(random.nextInt(corpus.docs().size())).id());
          }
          answers.get("noisy").add(noisy);
          List<String> repeated = new ArrayList<>(head(top30, 0, 3));
          repeated.addAll(head(top30, 0, 3));
          repeated.addAll(head(top30, 20, 26));
          answers.get("repeated").add(repeated);
        }
        QualityCheck.Result before = QualityCheck.evaluate(everyScore, answers, pairs);
        QualityCheck.Result after = QualityCheck.evaluate(compact, answers, pairs);
        String cell = t.label() + (filtered ? " filtered" : "") + " (seed " + seed + ")";
        assertEquals(before.recall(), after.recall(), "recall, " + cell);
        assertEquals(before.recallIds(), after.recallIds(), "recall of ids, " + cell);
        assertEquals(before.overlap(), after.overlap(), "overlap, " + cell);
        assertEquals(before.overlapIds(), after.overlapIds(), "overlap of ids, " + cell);
        assertEquals(before.exact(), after.exact(), "exact top-10, " + cell);
        assertTrue(before.recall().get("exact") > 0.99, "the exact answer is right, " + cell);
        for (int i = 0; i < queries.size(); i++) {
          Set<String> returned = new HashSet<>();
          for (List<List<String>> lists : answers.values()) {
            returned.addAll(lists.get(i));
          }
          for (String id : returned) {
            assertEquals(
                everyScore.get(i).score(id),
                compact.get(i).score(id),
                0.0,
                "score of " + id + ", " + cell);
          }
          // What the compact answer keeps: its top-10 and the ids asked for, nothing else.
          Set<String> kept = new HashSet<>(returned);
          compact.get(i).top().stream().map(Hit::id).forEach(kept::add);
          assertTrue(
              compact.get(i).kept() <= kept.size(), compact.get(i).kept() + " kept, " + cell);
          looked += compact.get(i).kept();
        }
      }
    }
    assertTrue(looked > 0, "the compact answers looked scores up");
    // A document no query can match: not a hit of any answer, in either form.
    Document any = corpus.docs().get(0);
    BenchQuery q = queries.get(0);
    assertEquals(
        exact.answerWithEveryScore(q, QueryType.LEXICAL, true, 10).score(any.id() + "-missing"),
        exact.answer(q, QueryType.LEXICAL, true, 10).score(any.id() + "-missing"));
  }

  private static List<String> head(List<String> ids, int from, int to) {
    return ids.subList(Math.min(from, ids.size()), Math.min(to, ids.size()));
  }
}
