package org.searchlab.distribution.serve;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.searchlab.core.DataDirectory;
import org.searchlab.core.FeedNiceness;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.StoreKind;
import org.searchlab.core.embed.Embedder;
import org.searchlab.core.io.Durable;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.mutable.MutableConfig;
import org.searchlab.server.SearchServer;
import org.searchlab.server.ServerConfig;
import org.searchlab.server.ServerLog;
import org.searchlab.server.embed.MiniLmEmbedder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code searchlab serve}: registers both store kinds with every knob from the flags, opens every
 * index in {@code --data-dir} (and creates the default index, the benchmark's mapping, when it is
 * missing), serves them over HTTP until SIGTERM/SIGINT, then stops the server and closes the
 * indexes (their write-ahead logs keep everything acknowledged). Not thread-safe; picocli runs it
 * once.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Serves indexes over HTTP/1.1 and h2c, speaking the Elasticsearch (PUT /{index}, _bulk,"
          + " _search, _doc, ...) and Vespa (/document/v1, /search/) APIs, with /metrics, /health"
          + " and /_admin.",
      "Store knobs not used by the chosen store are ignored."
    })
public final class ServeCommand implements Callable<Integer> {
  /** The stores the server can run. */
  public enum Store {
    SEGMENTED,
    MUTABLE
  }

  @Option(
      names = "--store",
      description =
          "The store of an index whose settings name none (index.store): segmented (Lucene) or"
              + " mutable. Default: ${DEFAULT-VALUE}.")
  String store = "segmented";

  @Option(
      names = "--data-dir",
      description =
          "Directory of the indexes (each in indices/<uuid>/). Default: ${DEFAULT-VALUE}.")
  Path dataDir = Path.of("./data");

  @Option(
      // Declared by its negative name: picocli sets a negatable option to the opposite of its
      // default when its declared name is given, so "--default-index" with a default of true made
      // "--default-index" turn the index off and "--no-default-index" leave it on.
      names = "--no-default-index",
      negatable = true,
      defaultValue = "true",
      description =
          "Create the index --index-name with the benchmark's mapping (--dims, --hnsw-m,"
              + " --ef-construction, --quantization) at start when it is missing. Default:"
              + " ${DEFAULT-VALUE}.")
  boolean defaultIndex = true;

  @Option(names = "--host", description = "Address to bind. Default: ${DEFAULT-VALUE}.")
  String host = ServerConfig.DEFAULT.host();

  @Option(
      names = "--port",
      description = "TCP port, 0 for any free one. Default: ${DEFAULT-VALUE}.")
  int port = ServerConfig.DEFAULT.port();

  @Option(
      names = "--dims",
      description = "Embedding dimension of the schema, 1-4096. Default: ${DEFAULT-VALUE}.")
  int dims = Schema.DEFAULT_DIMENSION;

  @Option(
      names = "--index-name",
      description =
          "The default index: the one created at start (--default-index), and the one /_admin"
              + " and a Vespa search over all sources use. Default: ${DEFAULT-VALUE}.")
  String indexName = ServerConfig.DEFAULT.indexName();

  @Option(
      names = "--document-type",
      description =
          "The Vespa document type of the default index (any other index's is its name)."
              + " Default: ${DEFAULT-VALUE}.")
  String documentType = ServerConfig.DEFAULT.documentType();

  @Option(
      names = "--max-content-length",
      description =
          "Largest request body (after gzip decoding), e.g. 100mb, 512kb or bytes; larger gets"
              + " 413. Default: ${DEFAULT-VALUE}.")
  String maxContentLength = "100mb";

  @Option(
      names = "--io-threads",
      description = "Netty event-loop threads. Default: ${DEFAULT-VALUE}.")
  int ioThreads = ServerConfig.DEFAULT.ioThreads();

  @Option(
      names = "--search-threads",
      description = "Threads running searches and reads. Default: ${DEFAULT-VALUE}.")
  int searchThreads = ServerConfig.DEFAULT.searchThreads();

  @Option(
      names = "--search-queue",
      description =
          "Searches that may wait for a thread; beyond it the answer is 429. Default:"
              + " ${DEFAULT-VALUE}.")
  int searchQueue = ServerConfig.DEFAULT.searchQueue();

  @Option(
      names = "--write-threads",
      description = "Threads running writes and admin calls. Default: ${DEFAULT-VALUE}.")
  int writeThreads = ServerConfig.DEFAULT.writeThreads();

  @Option(
      names = "--write-queue",
      description = "Writes that may wait; beyond it 429. Default: ${DEFAULT-VALUE}.")
  int writeQueue = ServerConfig.DEFAULT.writeQueue();

  @Option(
      names = "--feed-niceness",
      description =
          "How much the write path yields the cores to searches, 0.0-1.0 (Vespa's"
              + " feeding.niceness; Linux nice round(19 x value) for the write threads and the"
              + " threads they start). Default: 1.0 for the mutable store (writes take the idle"
              + " cores, searches keep their latency), 0.0 for the segmented store (as"
              + " Elasticsearch).")
  Double feedNiceness;

  @Option(
      names = "--retry-after",
      description = "Retry-After seconds sent with a 429. Default: ${DEFAULT-VALUE}.")
  int retryAfter = ServerConfig.DEFAULT.retryAfterSeconds();

  @Option(
      names = "--embedder",
      description =
          "Query-text embedder for knn.query_vector_builder and embed(...): none, or minilm"
              + " (all-MiniLM-L6-v2 in-process, 384-d, the model of 'searchlab dataset build';"
              + " needs --dims 384). Default: ${DEFAULT-VALUE}.")
  String embedder = "none";

  @Mixin HttpOptions http = new HttpOptions();

  @Mixin CommonStoreOptions common = new CommonStoreOptions();

  @Mixin SegmentedOptions segmented = new SegmentedOptions();

  @Mixin MutableOptions mutable = new MutableOptions();

  private final CountDownLatch stopped = new CountDownLatch(1);

  public static void main(String[] args) {
    System.exit(new CommandLine(new ServeCommand()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Store kind = parseStore(store);
    Schema schema = new Schema(dims);
    ServerConfig config =
        ServerConfig.builder()
            .host(host)
            .port(port)
            .maxContentLength(parseSize(maxContentLength))
            .ioThreads(ioThreads)
            .searchThreads(searchThreads)
            .searchQueue(searchQueue)
            .writeThreads(writeThreads)
            .writeQueue(writeQueue)
            .feedNiceness(feedNiceness(kind))
            .retryAfterSeconds(retryAfter)
            .indexName(indexName)
            .documentType(documentType)
            .hnswM(common.hnswM)
            .hnswEfConstruction(common.efConstruction)
            .quantization(common.quantization())
            .limits(http.limits())
            .security(http.security())
            .build();
    SearchRequest.setMaxClauseCount(http.maxClauseCount);
    // Lucene's own global limit must not refuse what the shared one admits.
    org.apache.lucene.search.IndexSearcher.setMaxClauseCount(
        Math.max(http.maxClauseCount, org.apache.lucene.search.IndexSearcher.getMaxClauseCount()));
    // Durably, so the stores' own durable directories below it have a durable parent.
    Durable.createDirectories(dataDir);
    Optional<Embedder> emb = openEmbedder(embedder, dims);
    Map<String, StoreKind> kinds =
        StoreKinds.of(
            segmented.config(common),
            mutable.config(common).toBuilder().feedNiceness(feedNiceness(Store.MUTABLE)).build());
    Optional<Mapping> defaultMapping =
        defaultIndex
            ? Optional.of(
                Mapping.product(
                    dims,
                    new FieldType.IndexOptions(
                        common.quantization().esIndexType(), common.hnswM, common.efConstruction)))
            : Optional.empty();
    SearchServer server;
    try {
      server =
          SearchServer.start(
              config, dataDir, kinds, kind.name().toLowerCase(Locale.ROOT), defaultMapping, emb);
    } catch (DataDirectory.DirectoryInUseException | InvalidRequestException e) {
      // A refusal the user acts on (another server holds the directory, another store or mapping
      // owns it): its message says what to do; a stack trace would only bury it.
      emb.ifPresent(Embedder::close);
      System.err.println("serve: " + e.getMessage());
      return 1;
    } catch (Exception e) {
      emb.ifPresent(Embedder::close);
      throw e;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.close();
                    emb.ifPresent(Embedder::close);
                  } catch (Exception e) {
                    ServerLog.error("shutdown failed", e);
                  } finally {
                    stopped.countDown();
                  }
                },
                "searchlab-shutdown"));
    server.awaitClose();
    stopped.await();
    return 0;
  }

  /** {@code --feed-niceness}, or the store's default. */
  double feedNiceness(Store kind) {
    if (feedNiceness != null) {
      return FeedNiceness.check(feedNiceness);
    }
    return kind == Store.MUTABLE ? MutableConfig.SERVER_FEED_NICENESS : 0.0;
  }

  /**
   * Opens the named query-text embedder: {@code none}, or {@code minilm} (the in-process
   * all-MiniLM-L6-v2 of {@link MiniLmEmbedder}, using every core for batches; a single query text
   * is embedded on the calling search thread).
   *
   * @param dims the schema's vector dimension, which the embedder's output must match
   */
  static Optional<Embedder> openEmbedder(String name, int dims) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "none" -> Optional.empty();
      case MiniLmEmbedder.NAME -> {
        if (dims != MiniLmEmbedder.DIMENSION) {
          throw new InvalidRequestException(
              "--embedder minilm gives "
                  + MiniLmEmbedder.DIMENSION
                  + "-d vectors but --dims is "
                  + dims
                  + "; use --dims "
                  + MiniLmEmbedder.DIMENSION);
        }
        yield Optional.of(MiniLmEmbedder.create());
      }
      default ->
          throw new InvalidRequestException(
              "--embedder '" + name + "' is unknown; available: none, " + MiniLmEmbedder.NAME);
    };
  }

  static Store parseStore(String name) {
    for (Store s : Store.values()) {
      if (s.name().equalsIgnoreCase(name)) {
        return s;
      }
    }
    throw new InvalidRequestException(
        "--store '" + name + "' is unknown; expected segmented or mutable");
  }

  /** Parses {@code 100mb}, {@code 512kb}, {@code 1gb} or plain bytes. */
  static int parseSize(String s) {
    String t = s.trim().toLowerCase(Locale.ROOT);
    long mult = 1;
    for (String[] unit :
        new String[][] {{"gb", "1073741824"}, {"mb", "1048576"}, {"kb", "1024"}, {"b", "1"}}) {
      if (t.endsWith(unit[0])) {
        mult = Long.parseLong(unit[1]);
        t = t.substring(0, t.length() - unit[0].length()).trim();
        break;
      }
    }
    long v;
    try {
      v = Long.parseLong(t) * mult;
    } catch (NumberFormatException e) {
      throw new InvalidRequestException("size '" + s + "' is not like 100mb, 512kb or 1048576");
    }
    if (v < 1 || v > Integer.MAX_VALUE) {
      throw new InvalidRequestException("size '" + s + "' is outside [1 byte, 2 GB)");
    }
    return (int) v;
  }
}
