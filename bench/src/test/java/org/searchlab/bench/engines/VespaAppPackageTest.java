package org.searchlab.bench.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Schema;
import org.searchlab.segmented.SegmentedConfig;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@code bench/vespa-app} agrees with the rest of searchlab: the schema has the benchmark's fields
 * with the core schema's names and dimension, the HNSW parameters of the stores, the rank profiles,
 * query input and summary the experiment's Vespa dialect names; {@code services.xml} is well-formed
 * and configures the analysis chain of {@code TextAnalysis}. This cannot replace Vespa's own
 * deployment checks (no Vespa runs here); it catches drift between the package and the code.
 */
class VespaAppPackageTest {
  private static final Path APP = Path.of("vespa-app");

  @Test
  void schemaHasTheBenchmarksFieldsAndParameters() throws Exception {
    String sd = Files.readString(APP.resolve("schemas/product.sd"));
    assertBalanced(sd);
    Map<String, String> fields = new LinkedHashMap<>();
    Matcher m = Pattern.compile("field (\\w+) type (\\S+) \\{").matcher(sd);
    while (m.find()) {
      fields.put(m.group(1), m.group(2));
    }
    int dim = Schema.DEFAULT_DIMENSION;
    assertEquals(
        Map.of(
            "language",
            "string",
            Schema.ID,
            "string",
            Schema.TITLE,
            "string",
            Schema.DESCRIPTION,
            "string",
            Schema.CATEGORY,
            "string",
            Schema.PRICE,
            "int",
            Schema.AVERAGE_RATING,
            "float",
            Schema.EMBEDDING,
            "tensor<float>(x[" + dim + "])"),
        fields);
    assertEquals(
        List.of(dim, dim, dim), all(sd, "x\\[(\\d+)\\]"), "every tensor type has the dimension");
    SegmentedConfig stores = SegmentedConfig.DEFAULT;
    assertEquals(List.of(stores.hnswM()), all(sd, "max-links-per-node: (\\d+)"));
    assertEquals(
        List.of(stores.hnswBeamWidth()), all(sd, "neighbors-to-explore-at-insert: (\\d+)"));
    assertTrue(sd.contains("distance-metric: prenormalized-angular"), "prenormalized-angular");
    Set<String> profiles = new TreeSet<>();
    Matcher p = Pattern.compile("rank-profile (\\w+)").matcher(sd);
    while (p.find()) {
      profiles.add(p.group(1));
    }
    // The names the experiment's Vespa dialect sends (ranking.profile, input.query(...),
    // presentation.summary).
    assertEquals(Set.of("bm25", "closeness", "hybrid"), profiles);
    assertEquals(2, count(sd, "query(q_embedding) tensor<float>(x[" + dim + "])"));
    assertTrue(sd.contains("document-summary minimal"), "the minimal summary");
    assertTrue(sd.contains("fields: title, description"), "userQuery() searches both text fields");
  }

  @Test
  void servicesConfigureTheSharedAnalysisChain() throws Exception {
    var factory = DocumentBuilderFactory.newInstance();
    factory.setNamespaceAware(true);
    var services = factory.newDocumentBuilder().parse(APP.resolve("services.xml").toFile());
    Element document = (Element) services.getElementsByTagName("document").item(0);
    assertEquals("product", document.getAttribute("type"));
    assertEquals("index", document.getAttribute("mode"));
    Element component = (Element) services.getElementsByTagName("component").item(0);
    assertEquals("com.yahoo.language.lucene.LuceneLinguistics", component.getAttribute("class"));
    Element tokenizer = (Element) component.getElementsByTagName("tokenizer").item(0);
    assertEquals("standard", text(tokenizer, "name"));
    List<String> filters = new ArrayList<>();
    NodeList items =
        ((Element) component.getElementsByTagName("tokenFilters").item(0)).getChildNodes();
    for (int i = 0; i < items.getLength(); i++) {
      if (items.item(i) instanceof Element item) {
        filters.add(text(item, "name"));
      }
    }
    assertEquals(List.of("lowercase", "asciiFolding", "snowballPorter"), filters);
    assertTrue(
        Files.readString(APP.resolve("services.xml"))
            .contains("<item key=\"language\">English</item>"),
        "the Snowball English stemmer");
    var profile =
        factory
            .newDocumentBuilder()
            .parse(APP.resolve("search/query-profiles/default.xml").toFile());
    assertEquals("default", profile.getDocumentElement().getAttribute("id"));
  }

  private static String text(Element parent, String tag) {
    return parent.getElementsByTagName(tag).item(0).getTextContent().trim();
  }

  private static List<Integer> all(String text, String regex) {
    List<Integer> out = new ArrayList<>();
    Matcher m = Pattern.compile(regex).matcher(text);
    while (m.find()) {
      out.add(Integer.parseInt(m.group(1)));
    }
    return out;
  }

  private static int count(String text, String literal) {
    int n = 0;
    for (int i = text.indexOf(literal); i >= 0; i = text.indexOf(literal, i + 1)) {
      n++;
    }
    return n;
  }

  /** Braces pair up outside comments (a cheap guard against a truncated edit). */
  private static void assertBalanced(String sd) {
    int depth = 0;
    for (String line : sd.split("\n")) {
      String code = line.contains("#") ? line.substring(0, line.indexOf('#')) : line;
      for (char c : code.toCharArray()) {
        depth += c == '{' ? 1 : c == '}' ? -1 : 0;
        assertTrue(depth >= 0, "unbalanced '}' in: " + line);
      }
    }
    assertEquals(0, depth, "unclosed '{' in product.sd");
  }
}
