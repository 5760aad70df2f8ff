package org.searchlab.server.index;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.server.ApiException;
import org.searchlab.server.service.SearchService;

/**
 * One open index of the server: its name, uuid, store kind, settings and creation time, the store,
 * and the service the dialects call. Requests hold a {@link Lease} while they use the store, so
 * that deleting the index waits for them before closing it.
 *
 * <p>Thread-safe: the fields are final; leases are counted atomically.
 */
public final class IndexHandle {
  private final String name;
  private final String uuid;
  private final String kind;
  private final IndexSettings settings;
  private final long creationDate;
  private final Path dir;
  private final SearchIndex index;
  private final SearchService service;
  private final AtomicInteger leases = new AtomicInteger();
  private volatile boolean closing;

  IndexHandle(
      String name,
      String uuid,
      String kind,
      IndexSettings settings,
      long creationDate,
      Path dir,
      SearchIndex index,
      SearchService service) {
    this.name = name;
    this.uuid = uuid;
    this.kind = kind;
    this.settings = settings;
    this.creationDate = creationDate;
    this.dir = dir;
    this.index = index;
    this.service = service;
  }

  public String name() {
    return name;
  }

  public String uuid() {
    return uuid;
  }

  /** The store kind: {@code mutable} or {@code segmented}. */
  public String kind() {
    return kind;
  }

  public IndexSettings settings() {
    return settings;
  }

  /** Milliseconds since the epoch when the index was created. */
  public long creationDate() {
    return creationDate;
  }

  /** The index's directory (named by its uuid). */
  Path dir() {
    return dir;
  }

  public SearchIndex index() {
    return index;
  }

  public SearchService service() {
    return service;
  }

  /** Bytes the index's files take on disk, or −1 for an index this server does not own. */
  public long diskBytes() throws IOException {
    if (dir == null) {
      return -1;
    }
    long total = 0;
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(dir)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        try {
          if (java.nio.file.Files.isRegularFile(p)) {
            total += java.nio.file.Files.size(p);
          }
        } catch (java.nio.file.NoSuchFileException gone) {
          // A file the store replaced while this walked: counted in its new name, or gone.
        }
      }
    } catch (java.io.UncheckedIOException e) {
      if (!(e.getCause() instanceof java.nio.file.NoSuchFileException)) {
        throw e.getCause();
      }
    }
    return total;
  }

  /** A hold on the index while a request uses it; release it when the request is answered. */
  public final class Lease implements AutoCloseable {
    private boolean released;

    private Lease() {}

    public IndexHandle handle() {
      return IndexHandle.this;
    }

    @Override
    public void close() {
      if (!released) {
        released = true;
        leases.decrementAndGet();
      }
    }
  }

  /**
   * A lease on this index.
   *
   * @throws ApiException 404 {@code index_not_found_exception} when the index is being deleted
   */
  public Lease lease() {
    leases.incrementAndGet();
    if (closing) {
      leases.decrementAndGet();
      throw Indices.notFound(name);
    }
    return new Lease();
  }

  /** Refuses new leases, waits (up to {@code seconds}) for the held ones, and closes the store. */
  void close(long seconds) throws IOException {
    closing = true;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (leases.get() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    index.close();
  }
}
