package org.searchlab.server.es;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.searchlab.core.io.Durable;

/**
 * This server as the one node of its Elasticsearch cluster: its id, name and roles, where it keeps
 * its state, and the HTTP address it answers on. The id is made once, as Elasticsearch makes its
 * node ids (16 random bytes in base64url without padding: 22 characters), and kept in the data
 * directory's {@code _state/node.id}, so it survives restarts; a server without a data directory
 * makes a new one each start. Thread-safe: immutable apart from the address, set once after
 * binding.
 */
final class LocalNode {
  /** The node's and the cluster's name, as {@code GET /} reports them. */
  static final String NAME = "searchlab";

  /** The roles of a node that holds data and is its own master. */
  static final List<String> ROLES = List.of("data", "data_content", "master");

  static final String STATE_DIR = "_state";
  static final String ID_FILE = "node.id";

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{22}");

  private final String id;
  private final Optional<Path> stateDir;
  private volatile InetSocketAddress http;

  private LocalNode(String id, Optional<Path> stateDir) {
    this.id = id;
    this.stateDir = stateDir;
  }

  /**
   * The node of a server whose store lives in {@code dataDir}: its id read from, or made and
   * written (atomically) to, {@code dataDir/_state/node.id}.
   *
   * @throws IOException if the state directory cannot be read or written, or the id file holds
   *     something that is not an id
   */
  static LocalNode open(Optional<Path> dataDir, SecureRandom random) throws IOException {
    if (dataDir.isEmpty()) {
      return new LocalNode(newId(random), Optional.empty());
    }
    Path state = dataDir.get().resolve(STATE_DIR);
    // Durably: StateFiles forces _state/ after writing node.id, not the data directory naming it.
    Durable.createDirectories(state);
    Path file = state.resolve(ID_FILE);
    if (Files.exists(file)) {
      String id = Files.readString(file, StandardCharsets.US_ASCII).trim();
      if (!ID.matcher(id).matches()) {
        throw new IOException(
            file
                + " does not hold a node id (22 base64url characters); delete it to make a new one");
      }
      return new LocalNode(id, Optional.of(state));
    }
    String id = newId(random);
    StateFiles.write(file, id + "\n");
    return new LocalNode(id, Optional.of(state));
  }

  private static String newId(SecureRandom random) {
    byte[] b = new byte[16];
    random.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  String id() {
    return id;
  }

  /** {@code dataDir/_state}, where the node keeps its id and persistent cluster settings. */
  Optional<Path> stateDir() {
    return stateDir;
  }

  /** Records the address the server bound; called once, after binding. */
  void bound(InetSocketAddress address) {
    this.http = address;
  }

  /** The bound HTTP address, or empty before the server bound. */
  Optional<InetSocketAddress> http() {
    return Optional.ofNullable(http);
  }

  /** The bound host's literal address, {@code 127.0.0.1} before binding. */
  String ip() {
    InetSocketAddress a = http;
    return a == null ? "127.0.0.1" : a.getAddress().getHostAddress();
  }

  /** The bound address as {@code host:port}, as Elasticsearch writes a publish address. */
  String publishAddress() {
    InetSocketAddress a = http;
    return a == null ? ip() : ip() + ":" + a.getPort();
  }

  /**
   * Whether an Elasticsearch node filter selects this node: {@code _all}, {@code _local}, {@code
   * _master}, the id, the name or the address (each possibly with {@code *} wildcards), or {@code
   * role:true|false} (for {@code master}, {@code data}, {@code ingest}, ...). A comma-separated
   * list selects the node when any part does.
   */
  boolean matches(String filter) {
    for (String part : EsParams.list(filter, "node filter")) {
      if (matchesOne(part)) {
        return true;
      }
    }
    return false;
  }

  private static final Set<String> ALL_ROLES =
      Set.of(
          "master",
          "data",
          "data_content",
          "data_hot",
          "data_warm",
          "data_cold",
          "data_frozen",
          "ingest",
          "ml",
          "remote_cluster_client",
          "transform",
          "voting_only",
          "coordinating_only");

  private boolean matchesOne(String part) {
    switch (part) {
      case "_all", "_local", "_master", "*" -> {
        return true;
      }
      default -> {}
    }
    int colon = part.indexOf(':');
    if (colon > 0) {
      String role = part.substring(0, colon);
      String value = part.substring(colon + 1);
      if (!value.equals("true") && !value.equals("false")) {
        return false; // a node attribute: this node has none
      }
      boolean has = ROLES.contains(role);
      return ALL_ROLES.contains(role) && has == Boolean.parseBoolean(value);
    }
    return IndexExpression.glob(part, id)
        || IndexExpression.glob(part, NAME)
        || IndexExpression.glob(part, ip());
  }
}
