package org.searchlab.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.StoreKind;
import org.searchlab.core.embed.Embedder;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.server.es.EsClusterApi;
import org.searchlab.server.es.EsDialect;
import org.searchlab.server.index.IndexHandle;
import org.searchlab.server.index.Indices;
import org.searchlab.server.index.RegistryView;
import org.searchlab.server.metrics.ServerMetrics;
import org.searchlab.server.ops.OpsDialect;
import org.searchlab.server.vespa.VespaDialect;

/**
 * The HTTP server: owns the Netty bootstrap, the event loops, the two bounded executors, the
 * metrics registry and (when started on a data directory) the indexes, and their lifecycle. Start
 * with {@link #start}; {@link #close()} stops accepting, lets running requests finish, releases
 * threads and closes the indexes it owns. Thread-safe: {@link #close()} may be called from any
 * thread, once.
 */
public final class SearchServer implements AutoCloseable {
  private final ServerConfig config;
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final ThreadPoolExecutor searchPool;
  private final ThreadPoolExecutor writePool;
  private final ServerMetrics metrics;
  private final Indices indices;
  private final boolean ownsIndices;
  private final EsClusterApi cluster;
  private final Channel channel;
  private final int port;

  private SearchServer(
      ServerConfig config,
      ServerMetrics metrics,
      Indices indices,
      boolean ownsIndices,
      Optional<Path> dataDir)
      throws InterruptedException {
    this.config = config;
    this.metrics = metrics;
    this.indices = indices;
    this.ownsIndices = ownsIndices;
    this.searchPool = pool("search", config.searchThreads(), config.searchQueue(), 0.0);
    this.writePool =
        pool("write", config.writeThreads(), config.writeQueue(), config.feedNiceness());
    metrics.bindExecutor("search", searchPool);
    metrics.bindExecutor("write", writePool);
    try {
      this.cluster =
          EsClusterApi.open(
              new EsClusterApi.Setup(
                  config,
                  new RegistryView(indices, ownsIndices ? Optional.empty() : dataDir),
                  metrics,
                  searchPool,
                  writePool,
                  dataDir));
    } catch (IOException | RuntimeException e) {
      searchPool.shutdown();
      writePool.shutdown();
      metrics.close();
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
    Routing routing =
        new Routing(
            List.of(
                new OpsDialect(indices, config, metrics),
                new VespaDialect(indices, config),
                new EsDialect(indices, config, cluster)),
            searchPool,
            writePool,
            metrics,
            config);
    this.boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    this.workers = new MultiThreadIoEventLoopGroup(config.ioThreads(), NioIoHandler.newFactory());
    try {
      this.channel =
          new ServerBootstrap()
              .group(boss, workers)
              .channel(NioServerSocketChannel.class)
              .option(ChannelOption.SO_BACKLOG, 1024)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childOption(
                  ChannelOption.WRITE_BUFFER_WATER_MARK,
                  new WriteBufferWaterMark(
                      config.limits().responseBufferBytes() / 2,
                      config.limits().responseBufferBytes()))
              .childHandler(new HttpServerInitializer(routing))
              .bind(config.host(), config.port())
              .sync()
              .channel();
    } catch (InterruptedException | RuntimeException e) {
      shutdownThreads();
      throw e;
    }
    this.port = ((InetSocketAddress) channel.localAddress()).getPort();
    cluster.bound((InetSocketAddress) channel.localAddress());
  }

  /**
   * Opens every index in {@code dataDir}, creates the default index when it is missing, binds and
   * starts serving. The server owns the indexes and closes them on {@link #close()}.
   *
   * @param kinds the store kinds indexes may use, by name ({@code index.store})
   * @param defaultKind the kind of an index whose settings name none
   * @param defaultIndex the mapping of the index named {@link ServerConfig#indexName()}, created at
   *     start when no index has that name; empty to create none
   * @param embedder the query-text embedder, or empty
   */
  public static SearchServer start(
      ServerConfig config,
      Path dataDir,
      Map<String, StoreKind> kinds,
      String defaultKind,
      Optional<Mapping> defaultIndex,
      Optional<Embedder> embedder)
      throws IOException, InterruptedException {
    requireSafeBind(config);
    ServerMetrics metrics = new ServerMetrics();
    Indices indices;
    try {
      indices = Indices.open(dataDir, kinds, defaultKind, embedder, metrics);
    } catch (IOException | RuntimeException e) {
      metrics.close();
      throw e;
    }
    try {
      if (defaultIndex.isPresent() && indices.get(config.indexName()) == null) {
        indices.create(
            config.indexName(),
            org.searchlab.core.mapping.IndexSettings.NO_REPLICAS,
            defaultIndex.get());
      }
      SearchServer s = new SearchServer(config, metrics, indices, true, Optional.of(dataDir));
      s.logStart(embedder);
      return s;
    } catch (IOException | InterruptedException | RuntimeException e) {
      indices.close();
      metrics.close();
      throw e;
    }
  }

  /**
   * Binds and starts serving one index its caller opened, under {@link ServerConfig#indexName()};
   * the caller closes it. Such a server creates and deletes no index.
   *
   * @param embedder the query-text embedder, or empty
   */
  public static SearchServer start(
      ServerConfig config, SearchIndex index, Optional<Embedder> embedder)
      throws InterruptedException {
    return start(config, index, embedder, Optional.empty());
  }

  /**
   * {@link #start(ServerConfig, SearchIndex, Optional)} for an index whose store lives in {@code
   * dataDir}: the node keeps its id and persistent cluster settings in {@code dataDir/_state/}, and
   * {@code _stats} reports the store's size on disk.
   *
   * @param dataDir the store's data directory, or empty (node id and settings then live in memory)
   * @throws java.io.UncheckedIOException if the node's state cannot be read or written
   */
  public static SearchServer start(
      ServerConfig config, SearchIndex index, Optional<Embedder> embedder, Optional<Path> dataDir)
      throws InterruptedException {
    requireSafeBind(config);
    ServerMetrics metrics = new ServerMetrics();
    Indices indices = Indices.single(config.indexName(), index, embedder, metrics);
    SearchServer s = new SearchServer(config, metrics, indices, false, dataDir);
    s.logStart(embedder);
    return s;
  }

  private void logStart(Optional<Embedder> embedder) {
    StringBuilder names = new StringBuilder();
    for (IndexHandle h : indices.all()) {
      names
          .append(names.isEmpty() ? "" : ", ")
          .append(h.name())
          .append(" (")
          .append(h.kind())
          .append(')');
    }
    ServerLog.info(
        "started on http://"
            + config.host()
            + ":"
            + port
            + " (HTTP/1.1 + h2c"
            + (config.security().authenticates()
                ? ", API keys required"
                : config.security().insecure() ? ", NO authentication (--insecure)" : "")
            + "), indexes ["
            + names
            + "], embedder "
            + embedder.map(Embedder::name).orElse("none"));
  }

  /** The indexes this server serves. */
  public Indices indices() {
    return indices;
  }

  /**
   * Refuses to expose an unauthenticated server: binding anything but a loopback address needs
   * credentials ({@code --api-key-file}) or an explicit {@code --insecure}.
   */
  static void requireSafeBind(ServerConfig config) {
    ServerSecurity sec = config.security();
    if (sec.authenticates() || sec.insecure() || loopback(config.host())) {
      return;
    }
    throw new InvalidRequestException(
        "refusing to bind "
            + config.host()
            + " without credentials: every endpoint, writes included, would be open to anyone"
            + " who can reach it. Give --api-key-file FILE, bind 127.0.0.1, or accept the risk"
            + " with --insecure");
  }

  private static boolean loopback(String host) {
    try {
      for (InetAddress a : InetAddress.getAllByName(host)) {
        if (!a.isLoopbackAddress()) {
          return false;
        }
      }
      return true;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** The bound port (the real one when the config asked for 0). */
  public int port() {
    return port;
  }

  public ServerConfig config() {
    return config;
  }

  /** Blocks until the server channel closes. */
  public void awaitClose() throws InterruptedException {
    channel.closeFuture().sync();
  }

  private static ThreadPoolExecutor pool(String name, int threads, int queue, double niceness) {
    BlockingQueue<Runnable> q =
        queue == 0 ? new SynchronousQueue<>() : new ArrayBlockingQueue<>(queue);
    AtomicInteger n = new AtomicInteger();
    ThreadFactory tf =
        r -> {
          Thread t =
              new Thread(
                  org.searchlab.core.FeedNiceness.niced(niceness, r),
                  "searchlab-" + name + "-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    // AbortPolicy: a full queue throws, and the dispatcher answers 429.
    return new ThreadPoolExecutor(
        threads, threads, 0, TimeUnit.MILLISECONDS, q, tf, new ThreadPoolExecutor.AbortPolicy());
  }

  /**
   * Stops accepting, lets running requests finish (up to 30 s), and releases the threads. If the
   * calling thread is interrupted it stops waiting, finishes releasing, and keeps its interrupt
   * flag.
   */
  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    shutdownThreads();
    if (ownsIndices) {
      try {
        indices.close();
      } catch (IOException | RuntimeException e) {
        ServerLog.error("closing the indexes failed", e);
      }
    }
    ServerLog.info("stopped (port " + port + ")");
  }

  private void shutdownThreads() {
    cluster.close(); // answers the requests still waiting on a condition
    searchPool.shutdown();
    writePool.shutdown();
    try {
      searchPool.awaitTermination(30, TimeUnit.SECONDS);
      writePool.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    workers.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    boss.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    metrics.close();
  }
}
