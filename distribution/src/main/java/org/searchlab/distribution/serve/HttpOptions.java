package org.searchlab.distribution.serve;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.searchlab.core.SearchRequest;
import org.searchlab.server.ServerLimits;
import org.searchlab.server.ServerSecurity;
import picocli.CommandLine.Option;

/**
 * The server's security and limit flags: who may connect and how much any one client may ask of it.
 * Not thread-safe; picocli fills it once.
 */
final class HttpOptions {
  @Option(
      names = "--api-key-file",
      description =
          "File of 'id:secret' lines (secret ≥ 16 characters). When given, every endpoint but"
              + " /health needs 'Authorization: ApiKey base64(id:secret)' or HTTP Basic with user"
              + " id and password secret; others get 401. Default: none (no authentication).")
  Path apiKeyFile;

  @Option(
      names = "--allowed-host",
      split = ",",
      description =
          "Host names a request's Host header may name besides localhost, IP addresses and"
              + " --host (DNS-rebinding protection); '*' accepts any. Repeatable. Default: none.")
  List<String> allowedHosts = new ArrayList<>();

  @Option(
      names = "--insecure",
      description =
          "Allow binding a non-loopback --host without --api-key-file (anyone who can reach the"
              + " port can then write and delete). Default: off.")
  boolean insecure;

  @Option(
      names = "--max-connections",
      description = "Open connections; one more gets 503. Default: ${DEFAULT-VALUE}.")
  int maxConnections = ServerLimits.DEFAULT.maxConnections();

  @Option(
      names = "--read-timeout-ms",
      description =
          "Time a request may take to arrive whole (slow clients get 408). Default:"
              + " ${DEFAULT-VALUE}.")
  long readTimeoutMs = ServerLimits.DEFAULT.requestReadTimeout().toMillis();

  @Option(
      names = "--idle-timeout-ms",
      description =
          "Time a connection may stay idle before it is closed. Default: ${DEFAULT-VALUE}.")
  long idleTimeoutMs = ServerLimits.DEFAULT.idleTimeout().toMillis();

  @Option(
      names = "--request-timeout-ms",
      description =
          "Time a request may wait for a thread; then 503 and it is not run. Default:"
              + " ${DEFAULT-VALUE}.")
  long requestTimeoutMs = ServerLimits.DEFAULT.requestTimeout().toMillis();

  @Option(
      names = "--max-pipelined-requests",
      description =
          "HTTP/1.1 requests read ahead on one connection before reading pauses. Default:"
              + " ${DEFAULT-VALUE}.")
  int maxPipelined = ServerLimits.DEFAULT.maxPipelinedRequests();

  @Option(
      names = "--max-concurrent-streams",
      description = "HTTP/2 streams open at once per connection. Default: ${DEFAULT-VALUE}.")
  int maxStreams = ServerLimits.DEFAULT.maxConcurrentStreams();

  @Option(
      names = "--max-initial-line",
      description =
          "Longest request line (HTTP/2: the path) in bytes; longer gets 414. Default:"
              + " ${DEFAULT-VALUE}.")
  int maxInitialLine = ServerLimits.DEFAULT.maxInitialLineLength();

  @Option(
      names = "--max-header-size",
      description = "Largest header block in bytes; larger gets 431. Default: ${DEFAULT-VALUE}.")
  int maxHeaderSize = ServerLimits.DEFAULT.maxHeaderSize();

  @Option(
      names = "--max-yql-length",
      description = "Longest YQL statement in characters. Default: ${DEFAULT-VALUE}.")
  int maxYqlLength = ServerLimits.DEFAULT.maxYqlLength();

  @Option(
      names = "--max-query-depth",
      description = "Deepest YQL or compound-query (bool...) nesting. Default: ${DEFAULT-VALUE}.")
  int maxQueryDepth = ServerLimits.DEFAULT.maxQueryDepth();

  @Option(
      names = "--max-clause-count",
      description =
          "Term clauses a text query may expand to (tokens × text fields), as Elasticsearch's"
              + " indices.query.bool.max_clause_count; both stores. Default: ${DEFAULT-VALUE}.")
  int maxClauseCount = SearchRequest.DEFAULT_MAX_CLAUSE_COUNT;

  ServerLimits limits() {
    return ServerLimits.builder()
        .maxConnections(maxConnections)
        .requestReadTimeout(Duration.ofMillis(readTimeoutMs))
        .idleTimeout(Duration.ofMillis(idleTimeoutMs))
        .requestTimeout(Duration.ofMillis(requestTimeoutMs))
        .maxPipelinedRequests(maxPipelined)
        .maxConcurrentStreams(maxStreams)
        .maxInitialLineLength(maxInitialLine)
        .maxHeaderSize(maxHeaderSize)
        .maxYqlLength(maxYqlLength)
        .maxQueryDepth(maxQueryDepth)
        .build();
  }

  ServerSecurity security() throws IOException {
    ServerSecurity.Builder b =
        ServerSecurity.builder().allowedHosts(Set.copyOf(new HashSet<>(allowedHosts)));
    b.insecure(insecure);
    if (apiKeyFile != null) {
      b.credentialDigests(ServerSecurity.readKeyFile(apiKeyFile));
    }
    return b.build();
  }
}
