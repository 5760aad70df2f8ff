package org.searchlab.core;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.testing.disk.CrashImage;
import org.searchlab.testing.disk.DiskModel;
import org.searchlab.testing.disk.ForgetfulFileSystem;
import org.searchlab.testing.disk.PowerCut;

/**
 * A store's directory claimed on a disk that then loses power (issue 70, finding R1): the
 * directories {@link DataDirectory#acquire} created, and its marker in them, are in the image.
 */
class DataDirectoryPowerLossTest {
  @TempDir Path tmp;

  @Test
  void theStoresDirectoriesAndMarkerSurviveACutRightAfterTheFirstOpen() throws IOException {
    ForgetfulFileSystem fs =
        ForgetfulFileSystem.over(tmp.resolve("disk"), DiskModel.Options.DEFAULT);
    DataDirectory claim = DataDirectory.acquire(fs.resolve("data", "store"), "mutable", 1);
    CrashImage image = fs.crashImage(PowerCut.dropUnforced(), new SplittableRandom(0));
    claim.close();
    assertTrue(image.directories().contains("data"), "data/ was lost: " + image.directories());
    assertTrue(image.directories().contains("data/store"), "the store's directory was lost");
    byte[] marker = image.content("data/store/" + DataDirectory.MARKER_FILE);
    assertNotNull(marker, "the marker was lost: " + image.fileNames());
    assertTrue(new String(marker, StandardCharsets.UTF_8).contains("store=mutable"));
  }
}
