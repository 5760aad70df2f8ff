package org.searchlab.server.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Hit;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.server.metrics.ServerMetrics;
import org.searchlab.server.service.SearchService;
import org.searchlab.testing.ExactIndex;

/**
 * The server's query-text path with the real model: products embedded with the dataset template,
 * queries embedded by {@link SearchService} with {@link MiniLmEmbedder}, searched exactly ({@link
 * ExactIndex}). A plain-language query finds the right product, and embedding inside the service
 * gives the same hits as sending the vector, with the embedding time reported.
 */
class MiniLmQueryEmbeddingTest {
  private static final String[][] PRODUCTS = {
    {"jq", "lightweight and flexible command-line JSON processor", "jq is like sed for JSON data"},
    {
      "0ad",
      "Real-time strategy game of ancient warfare",
      "0 A.D. is a free real-time strategy game"
    },
    {"postgresql", "object-relational SQL database", "PostgreSQL is a powerful database server"},
    {"gimp", "GNU Image Manipulation Program", "GIMP is a program for editing photographs"},
    {"vim", "Vi IMproved - enhanced vi editor", "Vim is an almost compatible version of vi"},
  };

  @Test
  void queryTextFindsTheMatchingProduct(@TempDir Path dir) throws Exception {
    try (MiniLmEmbedder embedder = MiniLmEmbedder.create(2);
        ExactIndex index = ExactIndex.open(dir, new Schema(MiniLmEmbedder.DIMENSION));
        ServerMetrics metrics = new ServerMetrics()) {
      List<String> texts = new ArrayList<>();
      for (String[] p : PRODUCTS) {
        texts.add("Item: Title: " + p[1] + " Description: " + p[2]);
      }
      List<float[]> vectors = embedder.embedAll(texts);
      for (int i = 0; i < PRODUCTS.length; i++) {
        index.put(
            new Document(
                PRODUCTS[i][0], PRODUCTS[i][1], PRODUCTS[i][2], "x", 1, 4f, vectors.get(i)));
      }
      index.refresh();
      SearchService service = new SearchService(index, Optional.of(embedder), metrics);
      SearchRequest vectorQuery =
          SearchRequest.builder().rankProfile(RankProfile.CLOSENESS).targetHits(3).hits(3).build();

      String[][] cases = {
        {"tool to filter JSON on the command line", "jq"},
        {"photo editing software", "gimp"},
        {"historical strategy game", "0ad"},
        {"relational database", "postgresql"},
      };
      for (String[] c : cases) {
        SearchResult byText = service.search(vectorQuery, c[0]);
        assertEquals(c[1], byText.hits().get(0).id(), c[0] + " -> " + byText.hits());
        assertTrue(byText.timings().embedNanos() > 0, "embedding time is reported");
        SearchResult byVector =
            service.search(
                vectorQuery.toBuilder().vector(embedder.embed(c[0])).build(), (String) null);
        assertEquals(
            byVector.hits().stream().map(Hit::id).toList(),
            byText.hits().stream().map(Hit::id).toList());
        assertEquals(0, byVector.timings().embedNanos());
      }
    }
  }
}
