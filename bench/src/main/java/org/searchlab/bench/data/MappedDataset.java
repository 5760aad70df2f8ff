package org.searchlab.bench.data;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.util.VectorUtil;
import org.searchlab.bench.experiment.BenchMapping;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.SourceJson;
import org.searchlab.core.embed.Embedder;
import org.searchlab.core.mapping.DocumentParser;
import org.searchlab.core.mapping.VectorSimilarity;

/**
 * A dataset of a user's own mapping ({@code dataset build --source ndjson --mapping FILE}): the
 * documents as they are fed ({@value #DOCS_FILE}, one {@code {"_id":…,"_source":{…}}} a line), the
 * mapping file as given ({@value #MAPPING_FILE}) and {@value #INFO_FILE} with the roles the build
 * chose (the fields embedded, the vector field, the filter field) and the model. Documents without
 * a vector get one from the model over the template {@code Item: Name: {name} Body: {body}} of the
 * embed fields (for {@code title} and {@code description} that is the product datasets' template).
 * Every document is read against the mapping before anything is written, so a file the mapping
 * refuses is refused with its line. Stateless.
 */
public final class MappedDataset {
  /** The mapping file, as the user gave it. */
  public static final String MAPPING_FILE = "mapping.json";

  /** The documents, one {@code {"_id":…,"_source":{…}}} a line. */
  public static final String DOCS_FILE = "docs.ndjson";

  /** What was built and how. */
  public static final String INFO_FILE = "dataset.json";

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private MappedDataset() {}

  /** Whether {@code dir} holds a dataset of its own mapping. */
  public static boolean isMapped(Path dir) {
    return Files.isRegularFile(dir.resolve(MAPPING_FILE));
  }

  /** The dataset's mapping file. */
  public static JsonNode mappingFile(Path dir) throws IOException {
    return MAPPER.readTree(dir.resolve(MAPPING_FILE).toFile());
  }

  /** The dataset's {@value #INFO_FILE}. */
  public static JsonNode info(Path dir) throws IOException {
    return MAPPER.readTree(dir.resolve(INFO_FILE).toFile());
  }

  /** The first {@code limit} documents, in file order. */
  public static List<Document> documents(Path dir, int limit) throws IOException {
    List<Document> out = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(dir.resolve(DOCS_FILE))) {
      for (String s = r.readLine(); s != null && out.size() < limit; s = r.readLine()) {
        if (s.isBlank()) {
          continue;
        }
        JsonNode line = MAPPER.readTree(s);
        out.add(
            new Document(
                line.path("_id").asText(),
                SourceJson.object(line.get("_source"), DOCS_FILE + " _source")));
      }
    }
    return out;
  }

  /** The text the model embeds: {@code Item:} then {@code Field: value} for each embed field. */
  static String embedText(Document d, List<String> fields) {
    StringBuilder b = new StringBuilder("Item:");
    for (String f : fields) {
      Object v = d.value(f);
      if (v instanceof List<?> l) {
        v = l.isEmpty() ? "" : String.join(" ", l.stream().map(String::valueOf).toList());
      }
      b.append(' ')
          .append(f.substring(0, 1).toUpperCase(Locale.ROOT))
          .append(f.substring(1))
          .append(": ")
          .append(v == null ? "" : v);
    }
    return b.toString();
  }

  /** The template {@link #embedText} fills, as the dataset records it. */
  static String template(List<String> fields) {
    StringBuilder b = new StringBuilder("Item:");
    for (String f : fields) {
      b.append(' ')
          .append(f.substring(0, 1).toUpperCase(Locale.ROOT))
          .append(f.substring(1))
          .append(": {")
          .append(f)
          .append('}');
    }
    return b.toString();
  }

  /**
   * Builds the dataset.
   *
   * @param in the documents, one JSON object a line: {@code {"_id":…,"_source":{…}}}, or the source
   *     itself with its id in {@code id} (kept in the source only when the mapping has an {@code
   *     id} field), else the line number
   * @param embedFields the text fields embedded for documents without a vector; null for the
   *     mapping's text fields in order
   * @param vectorField null for the mapping's only indexed {@code dense_vector}
   * @param filterField null for the mapping's only keyword field (not a multi-field)
   * @return the number of documents written
   */
  static int build(
      DatasetBuilds.Common c,
      Path in,
      Path mappingPath,
      List<String> embedFields,
      String vectorField,
      String filterField)
      throws IOException {
    JsonNode file;
    try {
      file = MAPPER.readTree(mappingPath.toFile());
    } catch (IOException e) {
      throw new InvalidRequestException("--mapping " + mappingPath + ": " + e.getMessage());
    }
    BenchMapping m;
    try {
      m =
          BenchMapping.roles(
              file,
              new BenchMapping.Choice(null, embedFields, vectorField, filterField, null),
              mappingPath.getFileName().toString());
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException(e.getMessage().replace("--text-fields", "--embed-fields"));
    }
    List<Document> docs = read(in, m);
    if (docs.isEmpty()) {
      throw new InvalidRequestException(in + " holds no documents");
    }
    VectorSimilarity similarity = m.vector().similarity();
    int dims = m.vector().dims();
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < docs.size(); i++) {
      float[] v = m.vectorOf(docs.get(i));
      if (v == null) {
        missing.add(i);
      } else if (dims > 0 && v.length != dims) {
        throw new InvalidRequestException(
            "document "
                + docs.get(i).id()
                + ": ["
                + m.vectorField()
                + "] has "
                + v.length
                + " dimensions; the mapping says "
                + dims);
      }
    }
    String model = "provided";
    if (!missing.isEmpty()) {
      if (dims > 0 && dims != c.modelDimension()) {
        throw new InvalidRequestException(
            missing.size()
                + " documents have no ["
                + m.vectorField()
                + "] and the model "
                + c.model()
                + " gives "
                + c.modelDimension()
                + " dimensions, not the mapping's "
                + dims);
      }
      c.log()
          .printf(
              "ndjson: embedding %d documents with %s from \"%s\"%n",
              missing.size(), c.model(), template(m.textFields()));
      try (Embedder embedder = c.embedder().get()) {
        List<String> texts = new ArrayList<>();
        for (int i : missing) {
          texts.add(embedText(docs.get(i), m.textFields()));
        }
        List<float[]> vectors = new ArrayList<>();
        for (int from = 0; from < texts.size(); from += DocumentEmbedder.BATCH) {
          vectors.addAll(
              embedder.embedAll(
                  texts.subList(from, Math.min(texts.size(), from + DocumentEmbedder.BATCH))));
        }
        for (int j = 0; j < missing.size(); j++) {
          int i = missing.get(j);
          docs.set(i, withVector(docs.get(i), m.vectorField(), vectors.get(j)));
        }
      }
      model = c.model() + (missing.size() < docs.size() ? "+provided" : "");
    }
    if (similarity == VectorSimilarity.DOT_PRODUCT) {
      // dot_product takes unit vectors only: normalise what was given, as the product build does.
      for (int i = 0; i < docs.size(); i++) {
        float[] v = m.vectorOf(docs.get(i)).clone();
        VectorUtil.l2normalize(v);
        docs.set(i, withVector(docs.get(i), m.vectorField(), v));
      }
    }
    // Every document as the index will read it, before anything is written.
    for (Document d : docs) {
      try {
        DocumentParser.parse(m.mapping(), m.settings().defaultAnalyzer(), d);
      } catch (InvalidRequestException e) {
        throw new InvalidRequestException("document " + d.id() + ": " + e.getMessage());
      }
    }
    Path out = c.out();
    Files.createDirectories(out);
    Files.writeString(out.resolve(MAPPING_FILE), file.toPrettyString());
    try (BufferedWriter w = Files.newBufferedWriter(out.resolve(DOCS_FILE))) {
      for (Document d : docs) {
        ObjectNode line = MAPPER.createObjectNode();
        line.put("_id", d.id());
        line.set("_source", SourceJson.json(d.source()));
        w.write(line.toString());
        w.write('\n');
      }
    }
    ObjectNode info = MAPPER.createObjectNode();
    info.put("source", "ndjson");
    info.put("mapping", MAPPING_FILE);
    info.put("documents", docs.size());
    info.put("dimension", m.vectorOf(docs.get(0)).length);
    info.put("model", model);
    info.put("template", missing.isEmpty() ? "" : template(m.textFields()));
    info.putPOJO("embed_fields", m.textFields());
    info.put("vector_field", m.vectorField());
    info.put("filter_field", m.filterField());
    Files.writeString(out.resolve(INFO_FILE), info.toPrettyString(), StandardCharsets.UTF_8);
    return docs.size();
  }

  private static List<Document> read(Path in, BenchMapping m) throws IOException {
    boolean idField = m.mapping().field("id") != null;
    List<Document> docs = new ArrayList<>();
    try (BufferedReader r = CompressedFiles.open(in)) {
      int line = 0;
      for (String s = r.readLine(); s != null; s = r.readLine()) {
        line++;
        if (s.isBlank()) {
          continue;
        }
        String where = in + ":" + line;
        JsonNode node;
        try {
          node = MAPPER.readTree(s);
        } catch (IOException e) {
          throw new InvalidRequestException(where + ": not JSON: " + e.getMessage());
        }
        if (node == null || !node.isObject()) {
          throw new InvalidRequestException(where + ": expected a JSON object per line");
        }
        String id;
        Map<String, Object> source;
        if (node.has("_source")) {
          source = SourceJson.object(node.get("_source"), where + ": _source");
          id = node.path("_id").isValueNode() ? node.get("_id").asText() : Integer.toString(line);
        } else {
          source = new LinkedHashMap<>(SourceJson.object(node, where));
          JsonNode given = node.get("id");
          id = given != null && given.isValueNode() ? given.asText() : Integer.toString(line);
          if (!idField) {
            source.remove("id");
          }
        }
        docs.add(new Document(id, source));
      }
    }
    return docs;
  }

  /** {@code d} with {@code vector} at {@code field} (a top-level or dotted path). */
  private static Document withVector(Document d, String field, float[] vector) {
    Map<String, Object> s = new LinkedHashMap<>(d.source());
    // A dotted key is the path of objects it names, so a nested vector field needs no objects.
    s.put(field, vector);
    return d.withSource(s);
  }
}
