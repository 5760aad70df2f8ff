package org.searchlab.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Thread niceness, read back from the kernel's own view of each thread. */
class FeedNicenessTest {

  static int niceOfCurrentThread() throws IOException {
    return FeedNiceness.currentThreadNice().orElseThrow(() -> new IOException("no /proc"));
  }

  /**
   * Linux, and a test JVM that runs at nice 0 (lowering to 10 from a higher nice would raise it).
   */
  private static boolean linuxAtNiceZero() {
    try {
      return Files.isReadable(Path.of("/proc/thread-self/stat")) && niceOfCurrentThread() == 0;
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void valuesMapLinearlyToNiceZeroToNineteen() {
    assertEquals(0, FeedNiceness.niceValue(0.0));
    assertEquals(10, FeedNiceness.niceValue(0.5));
    assertEquals(19, FeedNiceness.niceValue(1.0));
    for (double bad : new double[] {-0.01, 1.01, Double.NaN, Double.POSITIVE_INFINITY}) {
      InvalidRequestException e =
          assertThrows(InvalidRequestException.class, () -> FeedNiceness.check(bad));
      assertTrue(e.getMessage().contains(String.valueOf(bad)), e.getMessage());
    }
  }

  @Test
  void aNicedThreadRunsAtItsNiceValueAndTheThreadsItStartsInheritIt() throws Exception {
    assumeTrue(linuxAtNiceZero(), "needs Linux and a test JVM at nice 0");
    AtomicInteger self = new AtomicInteger(-100);
    AtomicInteger child = new AtomicInteger(-100);
    AtomicReference<Throwable> failed = new AtomicReference<>();
    AtomicReference<Boolean> applied = new AtomicReference<>();
    Thread t =
        new Thread(
            FeedNiceness.niced(
                0.5,
                () -> {
                  try {
                    applied.set(true);
                    self.set(niceOfCurrentThread());
                    Thread c =
                        new Thread(
                            () -> {
                              try {
                                child.set(niceOfCurrentThread());
                              } catch (IOException e) {
                                failed.set(e);
                              }
                            });
                    c.start();
                    c.join();
                  } catch (IOException | InterruptedException e) {
                    failed.set(e);
                  }
                }));
    t.start();
    t.join();
    if (failed.get() != null) {
      throw new AssertionError(failed.get());
    }
    assertTrue(applied.get());
    assertEquals(10, self.get(), "the niced thread");
    assertEquals(10, child.get(), "a thread it started");
    assertEquals(0, niceOfCurrentThread(), "the test's own thread is untouched");
  }

  /**
   * Runs {@code body} on a fresh thread (whose priority the test may change) and returns its value.
   */
  private static <T> T onNewThread(java.util.concurrent.Callable<T> body) throws Exception {
    java.util.concurrent.FutureTask<T> task = new java.util.concurrent.FutureTask<>(body);
    Thread t = new Thread(task);
    t.start();
    return task.get();
  }

  @Test
  void zeroLeavesTheThreadAlone() throws Exception {
    assumeTrue(linuxAtNiceZero(), "needs Linux and a test JVM at nice 0");
    Object seen =
        onNewThread(
            () -> FeedNiceness.applyToCurrentThread(0.0) ? "applied" : niceOfCurrentThread());
    assertEquals(0, seen);
    assertFalse(FeedNiceness.applyToCurrentThread(0.0));
  }

  @Test
  void aThreadAlreadyNicerIsNeverRaised() throws Exception {
    assumeTrue(linuxAtNiceZero(), "needs Linux and a test JVM at nice 0");
    String seen =
        onNewThread(
            () -> {
              boolean first = FeedNiceness.applyToCurrentThread(1.0);
              boolean second = FeedNiceness.applyToCurrentThread(0.5);
              return first + " " + second + " " + niceOfCurrentThread();
            });
    assertEquals("true false 19", seen);
  }
}
