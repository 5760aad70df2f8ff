package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;

/** Reading Debian's package index as a catalogue. */
class DebianCatalogueTest {
  static Path resource(String name) {
    try {
      return Path.of(DebianCatalogueTest.class.getResource(name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static List<Document> sample() throws Exception {
    return DebianCatalogue.read(
        List.of(resource("debian-sample_Packages.gz")),
        List.of(resource("debian-sample_i18n_Translation-en.gz")));
  }

  @Test
  void theCheckedInSampleMapsEveryField() throws Exception {
    List<Document> docs = sample();
    assertEquals(1000, docs.size());
    Document zeroAd = docs.get(0);
    assertEquals("0ad", zeroAd.id());
    assertEquals("Real-time strategy game of ancient warfare", zeroAd.title());
    assertTrue(
        zeroAd.description().startsWith("0 A.D. (pronounced \"zero ey-dee\") is a free,"),
        zeroAd.description());
    assertTrue(zeroAd.description().endsWith("custom-built game engine."), zeroAd.description());
    assertEquals("games", zeroAd.category());
    assertEquals(28591, zeroAd.price());
    assertNull(zeroAd.embedding());
    Map<String, Integer> sections = new HashMap<>();
    for (int i = 0; i < docs.size(); i++) {
      Document d = docs.get(i);
      assertTrue(d.averageRating() >= 1.0f && d.averageRating() <= 5.0f, d.toString());
      assertTrue(!d.title().isBlank() && !d.description().isBlank(), d.toString());
      if (i > 0) {
        assertTrue(docs.get(i - 1).id().compareTo(d.id()) < 0, "sorted by name");
      }
      sections.merge(d.category(), 1, Integer::sum);
    }
    assertTrue(sections.size() > 30, "sections: " + sections);
  }

  @Test
  void theNewestVersionWinsAcrossSuitesAndPackagesWithoutTranslationAreDropped(@TempDir Path dir)
      throws Exception {
    Path main = dir.resolve("main_binary-amd64_Packages");
    Path security = dir.resolve("security_binary-amd64_Packages");
    Path translations = dir.resolve("main_i18n_Translation-en");
    Files.writeString(
        main,
        """
        Package: tool
        Version: 1.2-1
        Installed-Size: 10
        Section: utils
        Description: a tool
        Description-md5: aaa

        Package: orphan
        Version: 1
        Section: net
        Description: no translation
        Description-md5: zzz

        """);
    Files.writeString(
        security,
        """
        Package: tool
        Version: 1.2-1+deb12u1
        Installed-Size: 12
        Section: contrib/utils
        Description: a tool, patched
        Description-md5: bbb
        """);
    Files.writeString(
        translations,
        """
        Package: tool
        Description-md5: aaa
        Description-en: a tool
         Old text.

        Package: tool
        Description-md5: bbb
        Description-en: a tool, patched
         First line of the first
         paragraph.
         .
         Second paragraph:
           verbatim line
        """);
    List<Document> docs = DebianCatalogue.read(List.of(security, main), List.of(translations));
    assertEquals(1, docs.size());
    Document tool = docs.get(0);
    assertEquals("a tool, patched", tool.title());
    assertEquals(12, tool.price());
    assertEquals("utils", tool.category());
    assertEquals(
        "First line of the first paragraph.\nSecond paragraph:\nverbatim line", tool.description());
  }

  @Test
  void debianVersionsCompareLikeDpkg() {
    String[][] ascending = {
      {"1.0~rc1", "1.0"},
      {"1.0", "1.0a"},
      {"1.0", "1.0.1"},
      {"1.0-1", "1.0-2"},
      {"1.2-1", "1.2-1+deb12u1"},
      {"9.9", "1:0.1"},
      {"1.9", "1.10"},
      {"2.0~~", "2.0~"},
      {"1.0-9", "1.0-10"},
    };
    for (String[] pair : ascending) {
      assertTrue(DebianVersion.compare(pair[0], pair[1]) < 0, pair[0] + " < " + pair[1]);
      assertTrue(DebianVersion.compare(pair[1], pair[0]) > 0, pair[1] + " > " + pair[0]);
    }
    assertEquals(0, DebianVersion.compare("1:1.01-1", "1:1.1-1"));
  }

  @Test
  void ratingsAreADeterministicFunctionOfTheNameSkewedHigh() {
    double sum = 0;
    int n = 20_000;
    for (int i = 0; i < n; i++) {
      float r = DebianCatalogue.rating("package-" + i);
      assertTrue(r >= 1.0f && r <= 5.0f, "rating " + r);
      assertEquals(r, DebianCatalogue.rating("package-" + i));
      sum += r;
    }
    double mean = sum / n;
    assertTrue(Math.abs(mean - 11.0 / 3) < 0.05, "mean rating " + mean + " should be near 3.67");
  }
}
