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
import org.searchlab.core.embed.Embedder;
import org.searchlab.server.es.EsClusterApi;
import org.searchlab.server.es.EsDialect;
import org.searchlab.server.metrics.ServerMetrics;
import org.searchlab.server.ops.OpsDialect;
import org.searchlab.server.service.IndicesView;
import org.searchlab.server.service.SearchService;
import org.searchlab.server.vespa.VespaDialect;

/**
 * The HTTP server: owns the Netty bootstrap, the event loops, the two bounded executors and the
 * metrics registry, and their lifecycle. It does not own the index (the caller opens and closes
 * it). Start with {@link #start}; {@link #close()} stops accepting, lets running requests finish,
 * and releases threads. Thread-safe: {@link #close()} may be called from any thread, once.
 */
public final class SearchServer implements AutoCloseable {
  private final ServerConfig config;
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final ThreadPoolExecutor searchPool;
  private final ThreadPoolExecutor writePool;
  private final ServerMetrics metrics;
  private final EsClusterApi cluster;
  private final Channel channel;
  private final int port;

  private SearchServer(
      ServerConfig config, SearchIndex index, Optional<Embedder> embedder, Optional<Path> dataDir)
      throws InterruptedException {
    this.config = config;
    requireSafeBind(config);
    this.metrics = new ServerMetrics();
    metrics.bindIndex(index);
    SearchService service = new SearchService(index, embedder, metrics);
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
                  IndicesView.single(config.indexName(), service, metrics, dataDir),
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
                new OpsDialect(service, metrics),
                new VespaDialect(service, config),
                new EsDialect(service, config, cluster)),
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
   * Binds and starts serving {@code index}.
   *
   * @param embedder the query-text embedder, or empty
   */
  public static SearchServer start(
      ServerConfig config, SearchIndex index, Optional<Embedder> embedder)
      throws InterruptedException {
    return start(config, index, embedder, Optional.empty());
  }

  /**
   * Binds and starts serving {@code index}, whose store lives in {@code dataDir}: the node keeps
   * its id and persistent cluster settings in {@code dataDir/_state/}, and {@code _stats} reports
   * the store's size on disk.
   *
   * @param embedder the query-text embedder, or empty
   * @param dataDir the store's data directory, or empty (node id and settings then live in memory)
   * @throws java.io.UncheckedIOException if the node's state cannot be read or written
   */
  public static SearchServer start(
      ServerConfig config, SearchIndex index, Optional<Embedder> embedder, Optional<Path> dataDir)
      throws InterruptedException {
    SearchServer s = new SearchServer(config, index, embedder, dataDir);
    ServerLog.info(
        "started on http://"
            + config.host()
            + ":"
            + s.port
            + " (HTTP/1.1 + h2c"
            + (config.security().authenticates()
                ? ", API keys required"
                : config.security().insecure() ? ", NO authentication (--insecure)" : "")
            + "), index '"
            + config.indexName()
            + "', document type '"
            + config.documentType()
            + "', store "
            + index.getClass().getSimpleName()
            + ", dimension "
            + index.schema().dimension()
            + ", embedder "
            + embedder.map(Embedder::name).orElse("none"));
    return s;
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
