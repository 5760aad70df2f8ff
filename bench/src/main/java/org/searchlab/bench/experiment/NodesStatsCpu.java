package org.searchlab.bench.experiment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.searchlab.bench.load.CpuMeter;
import org.searchlab.opensearch.NodesCpu;

/**
 * The CPU an Elasticsearch or OpenSearch cluster reports about itself, as a {@link CpuMeter}: the
 * sum over its nodes of {@code process.cpu.total_in_millis} from {@code GET /_nodes/stats/process}
 * ({@link NodesCpu}), whole JVMs with their JIT compiler threads, in milliseconds. One request per
 * reading. Thread-safe ({@link HttpClient} is).
 */
final class NodesStatsCpu implements CpuMeter {
  /** The {@link #source()} of this meter. */
  static final String SOURCE = "_nodes/stats";

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final HttpClient http;
  private final URI uri;

  NodesStatsCpu(HttpClient http, URI base) {
    this.http = http;
    this.uri = base.resolve("/_nodes/stats/process");
  }

  @Override
  public long cpuNanos() {
    try {
      HttpResponse<byte[]> r =
          http.send(
              HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build(),
              HttpResponse.BodyHandlers.ofByteArray());
      if (r.statusCode() != 200) {
        throw new IOException(uri + " answered " + r.statusCode());
      }
      return NodesCpu.parse(Json.MAPPER.readTree(r.body())).totalCpuMillis() * 1_000_000L;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the CPU of " + uri, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("interrupted reading " + uri, e));
    }
  }

  @Override
  public String source() {
    return SOURCE;
  }

  /** Whether the endpoint answers with CPU figures now (a target may not expose them). */
  boolean readable() {
    try {
      cpuNanos();
      return true;
    } catch (UncheckedIOException e) {
      return false;
    }
  }
}
