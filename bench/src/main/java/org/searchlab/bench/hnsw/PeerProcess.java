package org.searchlab.bench.hnsw;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Another HNSW implementation in its own process, driven by {@code hnsw-bench --peer}: the command
 * runs under {@code /bin/sh -c}, reads one command per line on its standard input and answers each
 * with one JSON line ({@code bench/hnswlib/hnswlib_bench.py --serve} is the reference peer):
 *
 * <ul>
 *   <li>{@code build} answers {@code {"impl", "buildSeconds", "buildCpuSeconds"}};
 *   <li>{@code pass EF} runs every query once at that beam width and answers {@code {"wall", "cpu",
 *       "recallSum"}}: its own timing in seconds and its tie-aware recall@10 summed over the
 *       queries;
 *   <li>an answer with {@code "error"} fails the run.
 * </ul>
 *
 * <p>The peer idles between commands, so it never runs while this process measures, and the passes
 * of both alternate seconds apart: a slow spell of a shared machine falls on both sides of a pair,
 * not on one side of a comparison made minutes apart.
 *
 * <p>Thread-safety: one thread drives it.
 */
final class PeerProcess implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final Writer in;
  private final BufferedReader out;

  PeerProcess(String command) throws IOException {
    process =
        new ProcessBuilder("/bin/sh", "-c", command)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /** Sends one command and returns the peer's answer. */
  JsonNode call(String command) throws IOException {
    try {
      in.write(command + "\n");
      in.flush();
    } catch (IOException e) { // its input is closed: it has gone
      throw new IOException(exited(command), e);
    }
    String line = out.readLine();
    while (line != null && !line.startsWith("{")) {
      line = out.readLine(); // anything else it prints (a library's banner) is not an answer
    }
    if (line == null) {
      throw new IOException(exited(command));
    }
    JsonNode answer = JSON.readTree(line);
    if (answer.has("error")) {
      throw new IOException("the peer refused '" + command + "': " + answer.get("error").asText());
    }
    return answer;
  }

  private String exited(String command) {
    try {
      process.waitFor(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    String status = process.isAlive() ? "" : " (exit status " + process.exitValue() + ")";
    return "the peer exited before answering '" + command + "'" + status;
  }

  @Override
  public void close() throws IOException {
    try {
      in.close(); // end of input ends the peer
    } catch (IOException e) {
      // it has gone already, its input with it
    }
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
