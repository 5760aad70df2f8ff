package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;

/** Finding apt's lists, and the spread sample of {@code --limit}. */
class DebianListsTest {
  @Test
  void findsPackagesAndEnglishTranslationsByAptsFileNames(@TempDir Path dir) throws Exception {
    for (String name :
        List.of(
            "deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages.lz4",
            "deb.debian.org_debian-security_dists_bookworm-security_main_binary-amd64_Packages.lz4",
            "deb.debian.org_debian_dists_bookworm_main_i18n_Translation-en.lz4",
            "deb.debian.org_debian_dists_bookworm_main_i18n_Translation-de.lz4",
            "deb.debian.org_debian_dists_bookworm_InRelease",
            "deb.debian.org_debian_dists_bookworm_main_dep11_Components-amd64.yml.gz")) {
      Files.writeString(dir.resolve(name), "");
    }
    Files.createDirectory(dir.resolve("partial"));
    DebianLists.Lists lists = DebianLists.scan(dir);
    assertEquals(2, lists.packages().size());
    assertEquals(
        List.of(dir.resolve("deb.debian.org_debian_dists_bookworm_main_i18n_Translation-en.lz4")),
        lists.translations());
    assertEquals(List.of(), DebianLists.scan(dir.resolve("missing")).packages());
  }

  @Test
  void limitKeepsAnEvenSpread() {
    List<Document> docs =
        java.util.stream.IntStream.range(0, 1000)
            .mapToObj(i -> new Document("p" + i, "t", "d", "c", 0, 1f, null))
            .toList();
    List<Document> some = DatasetBuilds.spread(docs, 100);
    assertEquals(100, some.size());
    assertEquals("p0", some.get(0).id());
    assertEquals("p990", some.get(99).id());
    assertEquals(docs, DatasetBuilds.spread(docs, 0));
    assertEquals(docs, DatasetBuilds.spread(docs, 5000));
  }
}
