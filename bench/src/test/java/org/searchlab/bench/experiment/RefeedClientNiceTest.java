package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.vespa.feed.client.FeedClient;
import ai.vespa.feed.client.FeedClientBuilder;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.FeedNiceness;
import org.searchlab.core.Schema;
import org.searchlab.mutable.MutableIndex;
import org.searchlab.server.SearchServer;
import org.searchlab.server.ServerConfig;

/**
 * The refeed under queries lowers its feed client's priority by lowering the thread that builds the
 * client: the client's own threads must then start at that nice value, or the client would keep
 * competing with the query clients it runs beside.
 */
class RefeedClientNiceTest {

  @Test
  void vespaFeedClientThreadsInheritTheNiceValueOfTheThreadThatBuildsTheClient(@TempDir Path dir)
      throws Exception {
    assumeTrue(FeedNiceness.currentThreadNice().isPresent(), "needs Linux /proc");
    // A real server: building the client opens its HTTP/2 connection with a handshake.
    try (MutableIndex index = MutableIndex.open(dir, new Schema(4));
        SearchServer server =
            SearchServer.start(ServerConfig.builder().port(0).build(), index, Optional.empty())) {
      checkClientThreads(URI.create("http://127.0.0.1:" + server.port() + "/"));
    }
  }

  private static void checkClientThreads(URI uri) throws Exception {
    Map<String, Integer> before = threads();
    AtomicReference<Map<String, Integer>> during = new AtomicReference<>();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread t =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    FeedNiceness.applyToCurrentThread(1.0);
                    try (FeedClient c = FeedClientBuilder.create(uri).build()) {
                      during.set(threads());
                    }
                  } catch (Throwable e) {
                    failed.set(e);
                  }
                });
    t.join();
    if (failed.get() != null) {
      throw new AssertionError(failed.get());
    }
    Map<String, Integer> started = new HashMap<>(during.get());
    started.keySet().removeAll(before.keySet());
    // The JVM may start a compiler or GC thread meanwhile, at its own priority: look at the
    // client's threads only (Jetty's and the feed client's), named after what they do.
    started
        .entrySet()
        .removeIf(e -> !(e.getKey().contains("feed") || e.getKey().contains("HttpClient")));
    assertFalse(started.isEmpty(), "no feed client thread found among " + during.get().keySet());
    started.forEach((name, nice) -> assertEquals(19, nice, name + " runs at nice " + nice));
  }

  @Test
  void theProfileRefusesANicenessOutsideZeroToOne() {
    assertEquals(1.0, Profile.quick().refeedClientNiceness());
    assertEquals(
        0.0, Profile.quick().toBuilder().refeedClientNiceness(0).build().refeedClientNiceness());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Profile.quick().toBuilder().refeedClientNiceness(1.5).build());
    assertEquals(
        "the refeed client's niceness must be within 0.0 and 1.0; got 1.5", e.getMessage());
  }

  /** Live threads of this JVM: "tid name" to nice value. */
  private static Map<String, Integer> threads() throws IOException {
    Map<String, Integer> out = new HashMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          String name = Files.readString(task.resolve("comm")).trim();
          out.put(
              task.getFileName() + " " + name,
              FeedNiceness.niceOf(Files.readString(task.resolve("stat"))));
        } catch (IOException gone) {
          // the thread ended while listing
        }
      }
    }
    return out;
  }
}
