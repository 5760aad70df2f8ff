package org.searchlab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DisjunctionMaxQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The oracle's BM25 is Lucene's: the same documents in a real Lucene index with {@link
 * BM25Similarity} and the Elasticsearch-style best-fields query give the same scores. This keeps
 * the reference honest independently of any store.
 */
class ExactIndexAgreesWithLuceneTest {
  @TempDir Path tmp;

  @Test
  void bm25ScoresEqualLucene() throws IOException {
    long seed = TestSeeds.seed("ExactIndexAgreesWithLuceneTest.bm25ScoresEqualLucene");
    SplittableRandom random = new SplittableRandom(seed);
    SyntheticCorpus corpus =
        new SyntheticCorpus(seed, 8, SyntheticCorpus.Params.builder().vocabulary(2000).build());
    List<Document> docs = corpus.documents(2500);
    // Some empty fields: a field without tokens has no norm and does not count in docCount.
    docs.set(7, new Document("doc-7", "", docs.get(7).description(), "c", 1, 1, null));
    docs.set(8, new Document("doc-8", docs.get(8).title(), "", "c", 1, 1, null));

    try (ByteBuffersDirectory dir = new ByteBuffersDirectory();
        ExactIndex oracle = ExactIndex.open(tmp, new Schema(8))) {
      IndexWriterConfig iwc =
          new IndexWriterConfig(TextAnalysis.analyzer()).setSimilarity(new BM25Similarity());
      try (IndexWriter w = new IndexWriter(dir, iwc)) {
        for (Document d : docs) {
          org.apache.lucene.document.Document ld = new org.apache.lucene.document.Document();
          ld.add(new StringField("id", d.id(), Field.Store.YES));
          ld.add(new TextField(Schema.TITLE, d.title(), Field.Store.NO));
          ld.add(new TextField(Schema.DESCRIPTION, d.description(), Field.Store.NO));
          w.addDocument(ld);
          oracle.put(d);
        }
      }
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        IndexSearcher searcher = new IndexSearcher(reader);
        searcher.setSimilarity(new BM25Similarity());
        int compared = 0;
        for (int q = 0; q < 200; q++) {
          String text =
              q % 2 == 0
                  ? corpus.query(random.nextInt(docs.size()), false).build().text()
                  : corpus.randomQueryText(random, 1 + random.nextInt(5)) + " Ünïcödé";
          TopDocs top = searcher.search(bestFields(text), 20);
          for (ScoreDoc sd : top.scoreDocs) {
            String id = searcher.storedFields().document(sd.doc).get("id");
            assertEquals(sd.score, oracle.lexicalScore(id, text), 1e-4, id + " for '" + text + "'");
            compared++;
          }
          SearchResult ours = oracle.search(SearchRequest.builder().text(text).hits(20).build());
          assertEquals(top.totalHits.value(), ours.total().value(), "matches of '" + text + "'");
        }
        assertFalse(compared < 1000, "compared only " + compared + " scores");
      }
    }
  }

  /** Elasticsearch's multi_match best_fields: dis_max (tie 0) of per-field OR-of-terms. */
  static Query bestFields(String text) {
    List<String> tokens = TextAnalysis.tokens(text);
    List<Query> perField = new java.util.ArrayList<>();
    for (String field : Schema.TEXT_FIELDS) {
      BooleanQuery.Builder b = new BooleanQuery.Builder();
      for (String t : tokens) {
        b.add(new TermQuery(new Term(field, t)), BooleanClause.Occur.SHOULD);
      }
      perField.add(b.build());
    }
    return new DisjunctionMaxQuery(perField, 0f);
  }
}
