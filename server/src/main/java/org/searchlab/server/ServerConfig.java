package org.searchlab.server;

import org.searchlab.core.InvalidRequestException;

/**
 * Network and concurrency settings of a {@link SearchServer}. Immutable; change values with the
 * {@code withX} methods.
 *
 * @param host the address to bind; {@code 127.0.0.1} keeps the server local, {@code 0.0.0.0} for
 *     containers
 * @param port the TCP port, 0 to 65535; 0 picks a free port (tests)
 * @param maxContentLength the largest accepted request body in bytes after gzip decoding, 1 to
 *     {@link Integer#MAX_VALUE}; larger bodies get 413. Elasticsearch's {@code
 *     http.max_content_length} default is 100 MB
 * @param ioThreads Netty event-loop threads, ≥ 1; they only parse HTTP and move work, so 1–2 is
 *     plenty
 * @param searchThreads threads running searches, ≥ 1; more than the cores only adds queueing inside
 *     the store
 * @param searchQueue searches that may wait for a thread, ≥ 0; beyond that the answer is 429.
 *     Larger absorbs bursts and raises tail latency
 * @param writeThreads threads running writes and admin calls, ≥ 1
 * @param writeQueue writes that may wait, ≥ 0; beyond that 429
 * @param retryAfterSeconds the {@code Retry-After} value sent with a 429, ≥ 1
 * @param indexName the index name of the Elasticsearch dialect
 * @param documentType the document type of the Vespa dialect
 * @param hnswM the store's HNSW M, checked against a mapping's {@code index_options.m}; 0 when the
 *     store has no such knob (not checked)
 * @param hnswEfConstruction the store's efConstruction, checked against {@code ef_construction}; 0
 *     when not checked
 */
public record ServerConfig(
    String host,
    int port,
    int maxContentLength,
    int ioThreads,
    int searchThreads,
    int searchQueue,
    int writeThreads,
    int writeQueue,
    int retryAfterSeconds,
    String indexName,
    String documentType,
    int hnswM,
    int hnswEfConstruction) {

  /** Elasticsearch's default {@code http.max_content_length}: 100 MB. */
  public static final int DEFAULT_MAX_CONTENT_LENGTH = 100 * 1024 * 1024;

  public static final ServerConfig DEFAULT =
      new ServerConfig(
          "127.0.0.1",
          8080,
          DEFAULT_MAX_CONTENT_LENGTH,
          1,
          Math.max(1, Runtime.getRuntime().availableProcessors()),
          1000,
          Math.max(1, Runtime.getRuntime().availableProcessors()),
          200,
          1,
          "product",
          "product",
          0,
          0);

  public ServerConfig {
    if (host == null || host.isBlank()) {
      throw new InvalidRequestException("host is missing");
    }
    check("port", port, 0, 65535);
    check("max content length", maxContentLength, 1, Integer.MAX_VALUE);
    check("io threads", ioThreads, 1, 1024);
    check("search threads", searchThreads, 1, 4096);
    check("search queue", searchQueue, 0, 1 << 20);
    check("write threads", writeThreads, 1, 4096);
    check("write queue", writeQueue, 0, 1 << 20);
    check("retry-after seconds", retryAfterSeconds, 1, 3600);
    check("hnsw m", hnswM, 0, 512);
    check("hnsw ef_construction", hnswEfConstruction, 0, 1 << 16);
    if (indexName == null || !indexName.matches("[a-z0-9][a-z0-9_.-]*")) {
      throw new InvalidRequestException(
          "index name '" + indexName + "' must be lower-case letters, digits, '_', '.', '-'");
    }
    if (documentType == null || !documentType.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      throw new InvalidRequestException(
          "document type '" + documentType + "' must be letters, digits and '_'");
    }
  }

  private static void check(String what, int v, int min, int max) {
    if (v < min || v > max) {
      throw new InvalidRequestException(what + " " + v + " is outside [" + min + ", " + max + "]");
    }
  }

  public ServerConfig withHost(String v) {
    return new ServerConfig(
        v,
        port,
        maxContentLength,
        ioThreads,
        searchThreads,
        searchQueue,
        writeThreads,
        writeQueue,
        retryAfterSeconds,
        indexName,
        documentType,
        hnswM,
        hnswEfConstruction);
  }

  public ServerConfig withPort(int v) {
    return new ServerConfig(
        host,
        v,
        maxContentLength,
        ioThreads,
        searchThreads,
        searchQueue,
        writeThreads,
        writeQueue,
        retryAfterSeconds,
        indexName,
        documentType,
        hnswM,
        hnswEfConstruction);
  }

  public ServerConfig withMaxContentLength(int v) {
    return new ServerConfig(
        host,
        port,
        v,
        ioThreads,
        searchThreads,
        searchQueue,
        writeThreads,
        writeQueue,
        retryAfterSeconds,
        indexName,
        documentType,
        hnswM,
        hnswEfConstruction);
  }

  public ServerConfig withIoThreads(int v) {
    return new ServerConfig(
        host,
        port,
        maxContentLength,
        v,
        searchThreads,
        searchQueue,
        writeThreads,
        writeQueue,
        retryAfterSeconds,
        indexName,
        documentType,
        hnswM,
        hnswEfConstruction);
  }

  /** Search threads and queue length. */
  public ServerConfig withSearchPool(int threads, int queue) {
    return new ServerConfig(
        host,
        port,
        maxContentLength,
        ioThreads,
        threads,
        queue,
        writeThreads,
        writeQueue,
        retryAfterSeconds,
        indexName,
        documentType,
        hnswM,
        hnswEfConstruction);
  }

  /** Write threads and queue length. */
  public ServerConfig withWritePool(int threads, int queue) {
    return new ServerConfig(
        host,
        port,
        maxContentLength,
        ioThreads,
        searchThreads,
        searchQueue,
        threads,
        queue,
        retryAfterSeconds,
        indexName,
        documentType,
        hnswM,
        hnswEfConstruction);
  }

  public ServerConfig withRetryAfterSeconds(int v) {
    return new ServerConfig(
        host,
        port,
        maxContentLength,
        ioThreads,
        searchThreads,
        searchQueue,
        writeThreads,
        writeQueue,
        v,
        indexName,
        documentType,
        hnswM,
        hnswEfConstruction);
  }

  /** The Elasticsearch index name and the Vespa document type. */
  public ServerConfig withNames(String index, String docType) {
    return new ServerConfig(
        host,
        port,
        maxContentLength,
        ioThreads,
        searchThreads,
        searchQueue,
        writeThreads,
        writeQueue,
        retryAfterSeconds,
        index,
        docType,
        hnswM,
        hnswEfConstruction);
  }

  /** The store's HNSW parameters a mapping is checked against (0 = not checked). */
  public ServerConfig withHnsw(int m, int efConstruction) {
    return new ServerConfig(
        host,
        port,
        maxContentLength,
        ioThreads,
        searchThreads,
        searchQueue,
        writeThreads,
        writeQueue,
        retryAfterSeconds,
        indexName,
        documentType,
        m,
        efConstruction);
  }
}
