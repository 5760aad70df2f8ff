package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.mapping.VectorSimilarity;
import org.searchlab.testing.TestSeeds;

/**
 * The similarity in the config and in snapshots: the default is dot product, a snapshot records the
 * similarity and gives back the same answers, a config that names another similarity is refused
 * with both names, and a snapshot written before graphs had a similarity loads as dot product.
 */
class SimilaritySnapshotTest {
  private static final int DIM = 24;
  private static final int N = 400;

  @TempDir Path dir;

  @Test
  void theDefaultIsDotProductAndTheBuilderKeepsTheChoice() {
    assertEquals(VectorSimilarity.DOT_PRODUCT, HnswConfig.DEFAULT.similarity());
    assertEquals(VectorSimilarity.DOT_PRODUCT, HnswConfig.builder().build().similarity());
    HnswConfig l2 = HnswConfig.builder().similarity(VectorSimilarity.L2_NORM).build();
    assertEquals(VectorSimilarity.L2_NORM, l2.similarity());
    assertEquals(l2, l2.toBuilder().build());
    assertThrows(NullPointerException.class, () -> HnswConfig.builder().similarity(null).build());
  }

  @Test
  void aSnapshotKeepsTheSimilarityAndItsAnswers() throws IOException {
    // Every mode the mutable graph keeps.
    for (VectorQuantization quantization :
        List.of(
            VectorQuantization.NONE,
            VectorQuantization.INT8,
            VectorQuantization.INT4,
            VectorQuantization.BBQ)) {
      for (VectorSimilarity similarity :
          new VectorSimilarity[] {VectorSimilarity.L2_NORM, VectorSimilarity.MAX_INNER_PRODUCT}) {
        long seed = TestSeeds.seed("SimilaritySnapshotTest.keeps." + similarity + quantization);
        SplittableRandom random = new SplittableRandom(seed);
        HnswConfig config =
            HnswConfig.builder().similarity(similarity).quantization(quantization).build();
        float[][] data = lengths(random, TestVectors.clustered(random, N, DIM, 8, 1.0));
        MutableHnswGraph graph = build(config, data);
        graph.remove(3);
        Path file = dir.resolve("graph-" + similarity + quantization);
        graph.writeSnapshot(file);
        MutableHnswGraph loaded = MutableHnswGraph.load(file, config);
        assertEquals(similarity, loaded.config().similarity());
        String where = similarity + ", " + quantization + ", seed " + seed;
        for (int node = 0; node < N; node++) {
          for (int level = 0; level <= graph.level(node); level++) {
            assertArrayEquals(graph.neighbors(node, level), loaded.neighbors(node, level), where);
          }
        }
        for (int q = 0; q < 20; q++) {
          float[] query = data[random.nextInt(N)].clone();
          query[0] += 0.5f;
          GraphHits a = graph.search(query, 10, 40);
          GraphHits b = loaded.search(query, 10, 40);
          assertArrayEquals(a.nodes(), b.nodes(), where);
          assertArrayEquals(a.scores(), b.scores(), where);
          assertEquals(similarity.score(query, data[a.nodes()[0]]), a.scores()[0], 1e-5f, where);
        }
      }
    }
  }

  @Test
  void aSnapshotRefusesAnotherSimilarityNamingBoth() throws IOException {
    long seed = TestSeeds.seed("SimilaritySnapshotTest.refuses");
    SplittableRandom random = new SplittableRandom(seed);
    HnswConfig l2 = HnswConfig.builder().similarity(VectorSimilarity.L2_NORM).build();
    Path file = dir.resolve("l2.snap");
    build(l2, lengths(random, TestVectors.clustered(random, N, DIM, 8, 1.0))).writeSnapshot(file);
    for (VectorSimilarity other :
        new VectorSimilarity[] {
          VectorSimilarity.DOT_PRODUCT, VectorSimilarity.COSINE, VectorSimilarity.MAX_INNER_PRODUCT
        }) {
      IOException e =
          assertThrows(
              IOException.class,
              () -> MutableHnswGraph.load(file, l2.toBuilder().similarity(other).build()));
      assertTrue(
          e.getMessage().contains("[l2_norm]") && e.getMessage().contains("[" + other.esName()),
          e.getMessage());
    }
  }

  /**
   * A file in the first format (no similarity field): rewritten from a new file by dropping the
   * field, setting version 1 and recomputing the checksum, it loads as dot product, with the same
   * links and answers, and is refused for any other similarity.
   */
  @Test
  void aVersionOneSnapshotIsDotProduct() throws IOException {
    long seed = TestSeeds.seed("SimilaritySnapshotTest.v1");
    SplittableRandom random = new SplittableRandom(seed);
    float[][] data = TestVectors.clustered(random, N, DIM, 8, 1.0);
    MutableHnswGraph graph = build(HnswConfig.DEFAULT, data);
    Path current = dir.resolve("v2.snap");
    graph.writeSnapshot(current);
    Path old = dir.resolve("v1.snap");
    Files.write(old, versionOne(Files.readAllBytes(current)));
    MutableHnswGraph loaded = MutableHnswGraph.load(old, HnswConfig.DEFAULT);
    for (int node = 0; node < N; node++) {
      for (int level = 0; level <= graph.level(node); level++) {
        assertArrayEquals(graph.neighbors(node, level), loaded.neighbors(node, level));
      }
    }
    float[] query = TestVectors.near(random, data[0], 0.5);
    assertArrayEquals(graph.search(query, 10, 40).scores(), loaded.search(query, 10, 40).scores());
    HnswConfig l2 = HnswConfig.builder().similarity(VectorSimilarity.L2_NORM).build();
    IOException e = assertThrows(IOException.class, () -> MutableHnswGraph.load(old, l2));
    assertTrue(e.getMessage().contains("[dot_product]"), e.getMessage());
  }

  /** The same file in format version 1: without the similarity, with its own checksum. */
  private static byte[] versionOne(byte[] v2) {
    ByteBuffer in = ByteBuffer.wrap(v2);
    long magic = in.getLong();
    assertEquals(HnswSnapshot.VERSION, in.getInt());
    int dimension = in.getInt();
    int m = in.getInt();
    int efConstruction = in.getInt();
    int nameLength = Short.toUnsignedInt(in.getShort());
    in.position(in.position() + nameLength);
    int rest = v2.length - in.position() - Long.BYTES;
    ByteBuffer out = ByteBuffer.allocate(8 + 4 * 4 + rest + Long.BYTES);
    out.putLong(magic).putInt(1).putInt(dimension).putInt(m).putInt(efConstruction);
    out.put(v2, in.position(), rest);
    CRC32C crc = new CRC32C();
    crc.update(out.array(), 0, out.position());
    out.putLong(crc.getValue());
    return out.array();
  }

  private static MutableHnswGraph build(HnswConfig config, float[][] data) {
    MutableHnswGraph g =
        MutableHnswGraph.create(VectorStore.create(data[0].length, config.quantization()), config);
    g.insertAll(IntStream.range(0, data.length).toArray(), data);
    return g;
  }

  /** Each vector scaled by a factor in [1/2, 2]: not unit length. */
  private static float[][] lengths(SplittableRandom random, float[][] data) {
    for (float[] v : data) {
      float factor = (float) Math.pow(2, random.nextDouble() * 2 - 1);
      for (int i = 0; i < v.length; i++) {
        v[i] *= factor;
      }
    }
    return data;
  }
}
