package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.embed.Embedder;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * Query-text embedding through both dialects: {@code knn.query_vector_builder.text_embedding} and
 * {@code input.query(q_embedding)=embed(...)} give the same hits as sending the vector itself, and
 * the embedding time is reported. The embedder here knows the corpus: it maps a document's title to
 * that document's vector (the MiniLM embedder of the dataset work plugs in the same way).
 */
class QueryEmbeddingTest {
  /** Embeds a corpus title as its document's vector. Thread-safe (immutable map). */
  private static final class TitleEmbedder implements Embedder {
    private final Map<String, float[]> vectors = new HashMap<>();
    private final int dimension;

    TitleEmbedder(List<Document> docs, int dimension) {
      for (Document d : docs) {
        vectors.putIfAbsent(d.title(), d.embedding());
      }
      this.dimension = dimension;
    }

    @Override
    public String name() {
      return "corpus-titles";
    }

    @Override
    public int dimension() {
      return dimension;
    }

    @Override
    public float[] embed(String text) {
      float[] v = vectors.get(text);
      if (v == null) {
        throw new InvalidRequestException("text '" + text + "' is not a corpus title");
      }
      return v.clone();
    }

    @Override
    public List<float[]> embedAll(List<String> texts) {
      return texts.stream().map(this::embed).toList();
    }

    @Override
    public void close() {}
  }

  @Test
  void embeddedQueriesMatchVectorQueries() throws Exception {
    SyntheticCorpus corpus =
        new SyntheticCorpus(TestSeeds.seed("QueryEmbeddingTest"), ServerFixture.DIMS);
    List<Document> docs = corpus.documents(500);
    TitleEmbedder embedder = new TitleEmbedder(docs, ServerFixture.DIMS);
    try (ServerFixture f =
        ServerFixture.start(
            TestStore.SEGMENTED, ServerConfig.builder().port(0).build(), Optional.of(embedder))) {
      f.load(corpus, 500);
      Document d = docs.get(42);
      String title = Json.MAPPER.writeValueAsString(d.title());
      String byVector =
          "{\"size\":10,\"_source\":false,\"knn\":{\"field\":\"embedding\",\"k\":20,\"num_candidates\":50,"
              + "\"query_vector\":"
              + ServerFixture.vector(d.embedding())
              + "}}";
      String byText =
          "{\"size\":10,\"_source\":false,\"knn\":{\"field\":\"embedding\",\"k\":20,\"num_candidates\":50,"
              + "\"query_vector_builder\":{\"text_embedding\":{\"model_id\":\"minilm\",\"model_text\":"
              + title
              + "}}}}";
      ServerFixture.Response vr = f.send("POST", "/product/_search", byVector);
      ServerFixture.Response tr = f.send("POST", "/product/_search", byText);
      List<String> expected = BenchmarkBodiesTest.esIds(vr, "by vector");
      assertEquals(expected, BenchmarkBodiesTest.esIds(tr, "by text"));
      assertEquals(d.id(), expected.get(0));
      assertFalse(vr.json().has("searchlab_timing"));
      assertTrue(tr.json().get("searchlab_timing").get("embed_ms").asDouble() > 0, tr.body());

      String yql =
          "select * from product where {targetHits:20}nearestNeighbor(embedding,q_embedding)";
      String vespa =
          "{\"yql\":\""
              + yql
              + "\",\"hits\":10,\"presentation.summary\":\"minimal\","
              + "\"input.query(q_embedding)\":"
              + Json.MAPPER.writeValueAsString("embed(minilm, " + title + ")")
              + "}";
      ServerFixture.Response vs = f.send("POST", "/search/", vespa);
      List<String> vespaIds = BenchmarkBodiesTest.vespaIds(vs, "vespa embed");
      JsonNode timing = vs.json().get("timing");
      assertTrue(timing.get("embedtime").asDouble() > 0, vs.body());
      // Vespa's targetHits 20 with no extra exploration; Elasticsearch's k 20, num_candidates 50.
      String vespaVector =
          "{\"yql\":\""
              + yql
              + "\",\"hits\":10,\"input.query(q_embedding)\":"
              + ServerFixture.vector(d.embedding())
              + "}";
      assertEquals(
          BenchmarkBodiesTest.vespaIds(f.send("POST", "/search/", vespaVector), "vespa vector"),
          vespaIds);
    }
  }
}
