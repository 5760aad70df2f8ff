package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.searchlab.core.Document;

/**
 * The example shop mapping ({@code examples/shop-mapping.json}) at a small dimension, and seeded
 * shop documents for it: a name and a body drawn from a small vocabulary (so that words repeat and
 * BM25 ties and near-ties occur), one of a few brands, a stock count and a vector. Stateless.
 */
final class ShopData {
  private static final String[] WORDS = {
    "red", "blue", "green", "wooden", "steel", "chair", "table", "lamp", "desk", "shelf", "soft",
    "large", "small", "garden", "kitchen", "office", "light", "dark", "oak", "pine", "glass",
    "classic", "modern", "folding"
  };
  private static final String[] BRANDS = {"acme", "north", "habitat", "zeta", "orbit"};

  private ShopData() {}

  /** The example mapping file with {@code image} at {@code dims} dimensions. */
  static ObjectNode mappingFile(int dims) throws IOException {
    ObjectNode file =
        (ObjectNode) Json.MAPPER.readTree(Path.of("examples", "shop-mapping.json").toFile());
    ((ObjectNode) file.path("mappings").path("properties").path("image")).put("dims", dims);
    return file;
  }

  /** The example mapping with every role by default. */
  static BenchMapping mapping(int dims) throws IOException {
    return BenchMapping.read(
        mappingFile(dims),
        new BenchMapping.Choice("shop", null, null, null, null),
        "shop-mapping.json");
  }

  /** {@code n} seeded documents {@code s0, s1, ...}. */
  static List<Document> documents(long seed, int n, int dims) {
    SplittableRandom r = new SplittableRandom(seed);
    List<Document> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Map<String, Object> src = new LinkedHashMap<>();
      src.put("sku", "SKU-" + i);
      src.put("name", words(r, 2 + r.nextInt(4)));
      src.put("body", words(r, 5 + r.nextInt(15)));
      src.put("brand", BRANDS[r.nextInt(BRANDS.length)]);
      src.put("stock", (long) r.nextInt(500));
      float[] v = new float[dims];
      for (int d = 0; d < dims; d++) {
        v[d] = (float) r.nextGaussian();
      }
      src.put("image", v);
      out.add(new Document("s" + i, src));
    }
    return out;
  }

  private static String words(SplittableRandom r, int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        b.append(' ');
      }
      b.append(WORDS[r.nextInt(WORDS.length)]);
    }
    return b.toString();
  }
}
