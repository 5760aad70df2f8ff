package org.searchlab.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The sampler's peaks of a real process (this JVM), sampled by hand, and of one that is gone: it is
 * dropped without failing the run, and what was read before stays.
 */
class MemorySamplerTest {
  @Test
  void keepsThePeaksOfEachProcessAndDropsOneThatEnded() throws Exception {
    assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "Linux /proc");
    Process child = new ProcessBuilder("sleep", "60").start();
    try (MemorySampler sampler = new MemorySampler(Duration.ofHours(1))) {
      sampler.watch("runner", ProcessHandle.current().pid());
      sampler.watch("child", child.pid());
      // The polling thread takes its first sample at once; these are the next ones.
      sampler.sampleNow();
      sampler.sampleNow();
      MemorySampler.Peak runner = sampler.peaks().get("runner");
      assertTrue(runner.samples() >= 2, runner.toString());
      assertTrue(runner.rss() > 0 && runner.highWater() >= runner.rss(), runner.toString());
      assertTrue(runner.anonymous() > 0 && runner.file() > 0, runner.toString());
      assertTrue(runner.mappedByExtension().getOrDefault("so", 0L) > 0, runner.toString());
      int childSamples = sampler.peaks().get("child").samples();
      child.destroyForcibly().waitFor();
      sampler.sampleNow();
      assertEquals(childSamples, sampler.peaks().get("child").samples(), "gone: not read again");
      assertTrue(sampler.peaks().get("runner").samples() > runner.samples());
    } finally {
      child.destroyForcibly();
    }
  }

  @Test
  void anUnwatchedNameKeepsItsPeaksAndIsReadNoMore() throws Exception {
    assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "Linux /proc");
    try (MemorySampler sampler = new MemorySampler(Duration.ofHours(1))) {
      long pid = ProcessHandle.current().pid();
      sampler.watch("runner@1000", pid);
      sampler.watch("runner@2000", pid);
      MemorySampler.Peak first = sampler.unwatch("runner@1000");
      assertTrue(first.rss() > 0 && first.samples() >= 1, first.toString());
      // The polling thread's first sample may fall between the two watches or after this line,
      // so count the other name's samples from here (a comparison with first's failed in CI).
      MemorySampler.Peak other = sampler.peaks().get("runner@2000");
      int before = other == null ? 0 : other.samples();
      sampler.sampleNow();
      sampler.sampleNow();
      assertEquals(first, sampler.peaks().get("runner@1000"), "not read after unwatch");
      assertTrue(sampler.peaks().get("runner@2000").samples() >= before + 2, "still read");
      assertEquals(null, sampler.unwatch("never watched"));
    }
  }

  @Test
  void aPeriodThatIsNotPositiveIsRefused() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new MemorySampler(Duration.ZERO));
    assertTrue(e.getMessage().contains("positive; got PT0S"), e.getMessage());
  }
}
