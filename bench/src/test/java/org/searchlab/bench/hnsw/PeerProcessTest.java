package org.searchlab.bench.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code hnsw-bench --peer} protocol, against small peers written in the shell. */
class PeerProcessTest {
  @TempDir Path dir;

  @Test
  void readsOneJsonAnswerPerCommandAndSkipsOtherOutput() throws IOException {
    String peer = "while read cmd; do echo 'a banner'; echo \"{\\\"got\\\": \\\"$cmd\\\"}\"; done";
    try (PeerProcess process = new PeerProcess(peer)) {
      JsonNode first = process.call("build");
      assertEquals("build", first.get("got").asText());
      assertEquals("pass 32", process.call("pass 32").get("got").asText());
    }
  }

  @Test
  void anErrorAnswerFailsTheCall() throws IOException {
    try (PeerProcess process = new PeerProcess("read cmd; echo '{\"error\": \"no index\"}'")) {
      IOException e = assertThrows(IOException.class, () -> process.call("pass 10"));
      assertTrue(e.getMessage().contains("no index"), e.getMessage());
    }
  }

  @Test
  void aPeerThatExitsFailsTheCall() throws IOException {
    try (PeerProcess process = new PeerProcess("exit 0")) {
      IOException e = assertThrows(IOException.class, () -> process.call("build"));
      assertTrue(e.getMessage().contains("exited"), e.getMessage());
    }
  }

  @Test
  void aFailedBuildStopsThePeer() throws IOException {
    // The peer refuses the build, then waits for the end of its input; only then does it leave
    // the mark. buildPeer must close its input (and wait) before it rethrows.
    Path mark = dir.resolve("stopped");
    String peer = "read cmd; echo '{\"error\": \"out of memory\"}'; cat > /dev/null; touch " + mark;
    IOException e = assertThrows(IOException.class, () -> HnswBenchCommand.buildPeer(peer));
    assertTrue(e.getMessage().contains("out of memory"), e.getMessage());
    assertTrue(Files.exists(mark), "the peer was left running after its build failed");
  }
}
