package org.searchlab.server;

import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.VectorQuantization;

/**
 * Network and concurrency settings of a {@link SearchServer}. Immutable; build one with {@link
 * #builder()} (which starts from {@link #DEFAULT}) or change one with {@link #toBuilder()}.
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
 * @param limits the bounds on connections and requests
 * @param quantization the store's vector quantization, checked against a mapping's {@code
 *     index_options.type} ({@link VectorQuantization#esIndexType()}: {@code hnsw} for {@code NONE},
 *     {@code int8_hnsw} for {@code INT8}, ...)
 * @param security credentials, accepted host names, and whether a non-loopback bind without
 *     credentials is accepted
 * @param feedNiceness how much the write threads yield the cores to searches, 0.0 to 1.0 (Vespa's
 *     {@code feeding.niceness}; Linux nice {@code round(19 × feedNiceness)}, see {@code
 *     FeedNiceness}); threads they start (Lucene's merge threads) inherit it. Default 0.0
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
    int hnswEfConstruction,
    ServerLimits limits,
    ServerSecurity security,
    VectorQuantization quantization,
    double feedNiceness) {

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
          0,
          ServerLimits.DEFAULT,
          ServerSecurity.DEFAULT,
          VectorQuantization.NONE,
          0.0);

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
    if (limits == null || security == null || quantization == null) {
      throw new InvalidRequestException("limits, security and quantization are required");
    }
    org.searchlab.core.FeedNiceness.check(feedNiceness);
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

  /** A builder starting from {@link #DEFAULT}. */
  public static Builder builder() {
    return DEFAULT.toBuilder();
  }

  /** A builder preloaded with this config's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.host = host;
    b.port = port;
    b.maxContentLength = maxContentLength;
    b.ioThreads = ioThreads;
    b.searchThreads = searchThreads;
    b.searchQueue = searchQueue;
    b.writeThreads = writeThreads;
    b.writeQueue = writeQueue;
    b.retryAfterSeconds = retryAfterSeconds;
    b.indexName = indexName;
    b.documentType = documentType;
    b.hnswM = hnswM;
    b.hnswEfConstruction = hnswEfConstruction;
    b.limits = limits;
    b.security = security;
    b.quantization = quantization;
    b.feedNiceness = feedNiceness;
    return b;
  }

  /**
   * Builds a {@link ServerConfig}, one setter per component; {@link #build()} runs the record's
   * validation. Not thread-safe.
   */
  public static final class Builder {
    private String host;
    private int port;
    private int maxContentLength;
    private int ioThreads;
    private int searchThreads;
    private int searchQueue;
    private int writeThreads;
    private int writeQueue;
    private int retryAfterSeconds;
    private String indexName;
    private String documentType;
    private int hnswM;
    private int hnswEfConstruction;
    private ServerLimits limits;
    private ServerSecurity security;
    private VectorQuantization quantization;
    private double feedNiceness;

    private Builder() {}

    public Builder host(String v) {
      host = v;
      return this;
    }

    public Builder port(int v) {
      port = v;
      return this;
    }

    public Builder maxContentLength(int v) {
      maxContentLength = v;
      return this;
    }

    public Builder ioThreads(int v) {
      ioThreads = v;
      return this;
    }

    public Builder searchThreads(int v) {
      searchThreads = v;
      return this;
    }

    public Builder searchQueue(int v) {
      searchQueue = v;
      return this;
    }

    public Builder writeThreads(int v) {
      writeThreads = v;
      return this;
    }

    public Builder writeQueue(int v) {
      writeQueue = v;
      return this;
    }

    public Builder retryAfterSeconds(int v) {
      retryAfterSeconds = v;
      return this;
    }

    public Builder indexName(String v) {
      indexName = v;
      return this;
    }

    public Builder documentType(String v) {
      documentType = v;
      return this;
    }

    public Builder hnswM(int v) {
      hnswM = v;
      return this;
    }

    public Builder hnswEfConstruction(int v) {
      hnswEfConstruction = v;
      return this;
    }

    public Builder limits(ServerLimits v) {
      limits = v;
      return this;
    }

    public Builder feedNiceness(double v) {
      feedNiceness = v;
      return this;
    }

    public Builder quantization(VectorQuantization v) {
      quantization = v;
      return this;
    }

    public Builder security(ServerSecurity v) {
      security = v;
      return this;
    }

    public ServerConfig build() {
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
          hnswM,
          hnswEfConstruction,
          limits,
          security,
          quantization,
          feedNiceness);
    }
  }
}
