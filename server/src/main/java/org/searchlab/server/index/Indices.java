package org.searchlab.server.index;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.StoreKind;
import org.searchlab.core.embed.Embedder;
import org.searchlab.core.io.Durable;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.MappingJson;
import org.searchlab.server.ApiException;
import org.searchlab.server.Json;
import org.searchlab.server.ServerLog;
import org.searchlab.server.metrics.ServerMetrics;
import org.searchlab.server.service.SearchService;

/**
 * The indexes of one server, each of any registered {@link StoreKind}, created, found and deleted
 * by name. Each lives in {@code <data-dir>/indices/<uuid>/}: a directory named by a random uuid,
 * never by anything a request sent, holding {@value #METADATA} (name, uuid, store kind, creation
 * date, settings and the mapping it was created with) and the store's own directory {@code store/}.
 * Creating writes the metadata last (a temporary file, fsynced, renamed), so a crash leaves either
 * a whole index or a directory without metadata, which the next start removes; deleting closes the
 * store (after the requests holding it end), renames the directory to {@code <uuid>.deleted} and
 * removes it.
 *
 * <p>Thread safety: lookups are lock-free (a concurrent map); creating and deleting are serialised
 * on this object, so two creates of one name make one index and the other gets {@code
 * resource_already_exists_exception}.
 */
public final class Indices implements Closeable {
  public static final String DIR = "indices";
  public static final String METADATA = "index.json";
  private static final String STORE = "store";
  private static final String DELETED = ".deleted";

  /** The most indexes one server holds (each has its own writer, log and threads). */
  public static final int MAX_INDICES = 256;

  private final Path root;
  private final Map<String, StoreKind> kinds;
  private final String defaultKind;
  private final Optional<Embedder> embedder;
  private final ServerMetrics metrics;
  private final ConcurrentHashMap<String, IndexHandle> byName = new ConcurrentHashMap<>();
  private final SecureRandom random = new SecureRandom();
  private FileChannel lockChannel; // the data directory's node.lock, held while open

  private Indices(
      Path root,
      Map<String, StoreKind> kinds,
      String defaultKind,
      Optional<Embedder> embedder,
      ServerMetrics metrics) {
    this.root = root;
    this.kinds = Map.copyOf(kinds);
    this.defaultKind = defaultKind;
    this.embedder = embedder;
    this.metrics = metrics;
  }

  /**
   * Opens every index under {@code dataDir}, removing what an interrupted create or delete left.
   *
   * @param kinds the store kinds indexes may use, by name
   * @param defaultKind the kind of an index whose settings name none ({@code serve --store})
   */
  public static Indices open(
      Path dataDir,
      Map<String, StoreKind> kinds,
      String defaultKind,
      Optional<Embedder> embedder,
      ServerMetrics metrics)
      throws IOException {
    if (!kinds.containsKey(defaultKind)) {
      throw new InvalidRequestException(
          "store kind [" + defaultKind + "] is not registered; known: " + kinds.keySet());
    }
    if (Files.exists(dataDir.resolve(org.searchlab.core.DataDirectory.MARKER_FILE))) {
      throw new InvalidRequestException(
          "data directory "
              + dataDir.toAbsolutePath()
              + " holds one store of an earlier searchlab (store.properties at its top); this"
              + " server keeps each index in "
              + DIR
              + "/<uuid>/ under it. Use another --data-dir, or move the old store's files into a"
              + " new one's index");
    }
    Path root = dataDir.resolve(DIR);
    // Durably (R1): a lost indices/ entry would take every index with it.
    Durable.createDirectories(root);
    Indices indices = new Indices(root, kinds, defaultKind, embedder, metrics);
    indices.lock(dataDir);
    try (Stream<Path> dirs = Files.list(root)) {
      for (Path d : dirs.sorted().toList()) {
        String n = d.getFileName().toString();
        if (n.endsWith(DELETED) || !Files.exists(d.resolve(METADATA))) {
          ServerLog.info("removing " + n + ", left by an interrupted create or delete");
          deleteTree(d);
          continue;
        }
        indices.load(d);
      }
    } catch (IOException | RuntimeException e) {
      indices.close();
      throw e;
    }
    return indices;
  }

  /**
   * A registry of one index its caller opened and closes, served as {@code name}: it creates,
   * deletes and closes nothing (tests, and benchmarks that serve an index they measure).
   */
  public static Indices single(
      String name, SearchIndex index, Optional<Embedder> embedder, ServerMetrics metrics) {
    Indices i = new Indices(null, Map.of(), "", embedder, metrics);
    i.register(
        new IndexHandle(
            name,
            "single",
            index.getClass().getSimpleName(),
            IndexSettings.NO_REPLICAS,
            System.currentTimeMillis(),
            null,
            index,
            new SearchService(index, embedder, metrics)));
    return i;
  }

  private void requireOwned(String what, String name) {
    if (root == null) {
      throw new InvalidRequestException(
          "this server serves the one index its caller opened; it cannot "
              + what
              + " ["
              + (name.length() > 60 ? name.substring(0, 57) + "..." : name)
              + "]");
    }
  }

  /**
   * Locks {@code <data-dir>/node.lock} (as Elasticsearch's node lock): a second server on the same
   * directory is refused before it reads anything. The OS drops the lock when the process dies.
   */
  private void lock(Path dataDir) throws IOException {
    FileChannel ch =
        FileChannel.open(
            dataDir.resolve("node.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    java.nio.channels.FileLock l;
    try {
      l = ch.tryLock();
    } catch (java.nio.channels.OverlappingFileLockException e) {
      l = null;
    }
    if (l == null) {
      ch.close();
      throw new org.searchlab.core.DataDirectory.DirectoryInUseException(
          "data directory "
              + dataDir.toAbsolutePath()
              + " is in use by another running store or server (it holds node.lock); stop it or"
              + " choose another data directory");
    }
    lockChannel = ch;
  }

  private void load(Path dir) throws IOException {
    JsonNode meta = Json.MAPPER.readTree(Files.readAllBytes(dir.resolve(METADATA)));
    String name = meta.path("name").asText();
    String uuid = meta.path("uuid").asText();
    String kind = meta.path("store").asText();
    IndexSettings settings = IndexSettings.parse(meta.get("settings"));
    Mapping mapping = MappingJson.parse(meta.get("mappings"), settings);
    StoreKind k = kinds.get(kind);
    if (k == null) {
      throw new IOException(
          "index [" + name + "] in " + dir + " is a " + kind + " store, which is not registered");
    }
    SearchIndex index = k.open(dir.resolve(STORE), settings, mapping);
    register(
        new IndexHandle(
            name,
            uuid,
            kind,
            settings,
            meta.path("creation_date").asLong(),
            dir,
            index,
            new SearchService(index, embedder, metrics)));
  }

  private void register(IndexHandle h) {
    byName.put(h.name(), h);
    metrics.bindIndex(h.name(), h.index());
  }

  /** The index called {@code name}, or null. */
  public IndexHandle get(String name) {
    return byName.get(name);
  }

  /** The index called {@code name}; 404 {@code index_not_found_exception} when there is none. */
  public IndexHandle require(String name) {
    IndexHandle h = byName.get(name);
    if (h == null) {
      throw notFound(name);
    }
    return h;
  }

  static ApiException notFound(String name) {
    String shown = name.length() > 60 ? name.substring(0, 57) + "..." : name;
    return new ApiException(404, "index_not_found_exception", "no such index [" + shown + "]");
  }

  /** Every index, by name. */
  public List<IndexHandle> all() {
    List<IndexHandle> out = new ArrayList<>(byName.values());
    out.sort(Comparator.comparing(IndexHandle::name));
    return out;
  }

  /**
   * The indexes an expression names: comma-separated names and {@code *} patterns, {@code _all} or
   * {@code *} for all. A name that matches no index is a 404; a pattern that matches none matches
   * nothing (Elasticsearch's {@code allow_no_indices} and {@code ignore_unavailable} defaults), so
   * {@code .ml-anomalies-*} answers an empty search.
   */
  public List<IndexHandle> resolve(String expression) {
    if (expression.length() > 4096) {
      throw new InvalidRequestException(
          "the index expression is " + expression.length() + " characters; the limit is 4096");
    }
    Map<String, IndexHandle> out = new LinkedHashMap<>();
    for (String part : expression.split(",")) {
      if (part.isEmpty()) {
        continue;
      }
      if (part.equals("_all") || IndexNames.isPattern(part)) {
        for (IndexHandle h : all()) {
          if (IndexNames.matches(part, h.name())) {
            out.put(h.name(), h);
          }
        }
      } else {
        IndexHandle h = require(part);
        out.put(h.name(), h);
      }
    }
    return new ArrayList<>(out.values());
  }

  /**
   * Creates an index from an Elasticsearch create-index body ({@code settings}, {@code mappings},
   * {@code aliases}).
   *
   * @throws ApiException 400 {@code resource_already_exists_exception} when the name is taken,
   *     {@code invalid_index_name_exception}, or a mapping or settings error
   */
  public IndexHandle create(String name, JsonNode body) throws IOException {
    IndexNames.check(name);
    JsonNode settingsNode = null;
    JsonNode mappingsNode = null;
    if (body != null && !body.isNull()) {
      Json.object(body, "create-index body");
      for (Iterator<Map.Entry<String, JsonNode>> it = body.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        switch (e.getKey()) {
          case "settings" -> settingsNode = e.getValue();
          case "mappings" -> mappingsNode = e.getValue();
          case "aliases" -> {
            if (!e.getValue().isObject() || !e.getValue().isEmpty()) {
              throw new InvalidRequestException("[aliases] are not supported; send {} or none");
            }
          }
          default ->
              throw new ApiException(
                  400,
                  "parsing_exception",
                  "unknown key [" + abbreviate(e.getKey()) + "] in the create-index body");
        }
      }
    }
    IndexSettings settings = IndexSettings.parse(settingsNode);
    Mapping mapping = MappingJson.parse(mappingsNode, settings);
    return create(name, settings, mapping);
  }

  /** Creates an index with these settings and mapping (the default index, auto-creation). */
  public IndexHandle create(String name, IndexSettings settings, Mapping mapping)
      throws IOException {
    IndexNames.check(name);
    if (byName.containsKey(name)) {
      throw alreadyExists(name);
    }
    requireOwned("create", name);
    String kind = settings.store() != null ? settings.store() : defaultKind;
    StoreKind k = kinds.get(kind);
    if (k == null) {
      throw new InvalidRequestException(
          "[index.store] is [" + kind + "]; this server has " + kinds.keySet());
    }
    synchronized (this) {
      if (byName.containsKey(name)) {
        throw alreadyExists(name);
      }
      if (byName.size() >= MAX_INDICES) {
        throw new InvalidRequestException(
            "this server holds " + byName.size() + " indexes; the limit is " + MAX_INDICES);
      }
      String uuid = uuid();
      long created = System.currentTimeMillis();
      IndexSettings full =
          settings
              .with("index.uuid", uuid)
              .with("index.creation_date", Long.toString(created))
              .with("index.provided_name", name)
              .with("index.store", kind)
              .with(
                  "index.number_of_shards",
                  settings.flat().getOrDefault("index.number_of_shards", "1"))
              .with("index.number_of_replicas", Integer.toString(settings.replicas()));
      Path dir = root.resolve(uuid);
      Durable.createDirectories(dir);
      SearchIndex index;
      try {
        index = k.open(dir.resolve(STORE), full, mapping);
      } catch (IOException | RuntimeException e) {
        deleteTree(dir);
        throw e;
      }
      try {
        ObjectNode meta = Json.MAPPER.createObjectNode();
        meta.put("name", name).put("uuid", uuid).put("store", kind).put("creation_date", created);
        meta.set("settings", full.toJson(true));
        meta.set("mappings", MappingJson.render(mapping));
        writeAtomically(dir.resolve(METADATA), Json.MAPPER.writeValueAsBytes(meta));
      } catch (IOException | RuntimeException e) {
        index.close();
        deleteTree(dir);
        throw e;
      }
      IndexHandle h =
          new IndexHandle(
              name,
              uuid,
              kind,
              full,
              created,
              dir,
              index,
              new SearchService(index, embedder, metrics));
      register(h);
      ServerLog.info("created index [" + name + "] (" + kind + ", " + uuid + ")");
      return h;
    }
  }

  /**
   * The index called {@code name}, created with default settings and an empty dynamic mapping when
   * there is none: Elasticsearch's {@code action.auto_create_index} for a write to an index that
   * does not exist.
   */
  public IndexHandle autoCreate(String name) throws IOException {
    IndexHandle h = byName.get(name);
    if (h != null) {
      return h;
    }
    if (root == null) {
      throw notFound(name); // a server of one given index creates none: as auto-create off
    }
    synchronized (this) {
      h = byName.get(name);
      return h != null ? h : create(name, IndexSettings.DEFAULT, Mapping.EMPTY);
    }
  }

  private ApiException alreadyExists(String name) {
    IndexHandle h = byName.get(name);
    return new ApiException(
        400,
        "resource_already_exists_exception",
        "index [" + name + "/" + (h == null ? "?" : h.uuid()) + "] already exists");
  }

  /** Deletes an index: its store closed, its files removed. */
  public void delete(String name) throws IOException {
    requireOwned("delete", name);
    IndexHandle h;
    synchronized (this) {
      h = byName.remove(name);
      if (h == null) {
        throw notFound(name);
      }
    }
    metrics.unbindIndex(name);
    h.close(30);
    Path gone = h.dir().resolveSibling(h.dir().getFileName() + DELETED);
    Files.move(h.dir(), gone, StandardCopyOption.ATOMIC_MOVE);
    Durable.forceDirectory(root);
    deleteTree(gone);
    ServerLog.info("deleted index [" + name + "] (" + h.uuid() + ")");
  }

  private String uuid() {
    byte[] b = new byte[16];
    random.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  private static void writeAtomically(Path file, byte[] bytes) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    Durable.forceDirectory(file.getParent());
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static String abbreviate(String s) {
    return s.length() > 40 ? s.substring(0, 37) + "..." : s;
  }

  /** Closes every index; the first failure is thrown after all were tried. */
  @Override
  public void close() throws IOException {
    if (root == null) {
      return; // the caller owns the one index
    }
    IOException first = null;
    for (IndexHandle h : all()) {
      byName.remove(h.name());
      try {
        h.close(30);
      } catch (IOException | RuntimeException e) {
        if (first == null) {
          first = e instanceof IOException io ? io : new IOException(e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (lockChannel != null) {
      lockChannel.close(); // releases the lock
    }
    if (first != null) {
      throw first;
    }
  }
}
