package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.server.ApiException;
import org.searchlab.server.Json;
import org.searchlab.server.Text;

/**
 * The cluster's dynamic settings ({@code GET} and {@code PUT /_cluster/settings}): two maps of
 * setting keys to string values, {@code persistent} (kept in {@code _state/cluster-settings.json}
 * when the node has a data directory, so they survive a restart) and {@code transient} (lost at
 * restart), as Elasticsearch keeps them. Values are stored as strings, as Elasticsearch stores them
 * ({@code false} comes back as {@code "false"}); null resets a key, and a key ending in {@code *}
 * with null resets every key it matches. The settings are stored and reported; this server has no
 * cluster behaviour they change (it holds its indexes on one node and deletes none, so {@code
 * action.destructive_requires_name}, which Rally toggles around a delete, guards nothing).
 *
 * <p>Bounds: {@link #MAX_KEYS} keys per map, keys of at most {@link #MAX_KEY_LENGTH} characters
 * from {@code [A-Za-z0-9_.-]} (and a final {@code *} for a reset), values of at most {@link
 * #MAX_VALUE_LENGTH} characters, objects nested at most {@link #MAX_DEPTH} deep. An update is
 * checked whole before anything changes: one bad key refuses all of it.
 *
 * <p>Thread-safe: every read and update holds the instance's lock, so an update and its write to
 * disk are one step.
 */
final class ClusterSettings {
  static final int MAX_KEYS = 1000;
  static final int MAX_KEY_LENGTH = 256;
  static final int MAX_VALUE_LENGTH = 4096;
  static final int MAX_DEPTH = 16;
  static final String FILE = "cluster-settings.json";

  private static final Pattern KEY =
      Pattern.compile("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*(\\.?\\*)?");

  /** The two scopes of a cluster setting. */
  enum Scope {
    PERSISTENT,
    TRANSIENT;

    String json() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** What an update set (non-null values) in each scope, for the answer. */
  record Applied(SortedMap<String, String> persistent, SortedMap<String, String> transientMap) {}

  private final Optional<Path> file;
  private final TreeMap<String, String> persistent = new TreeMap<>();
  private final TreeMap<String, String> transientSettings = new TreeMap<>();

  private ClusterSettings(Optional<Path> file) {
    this.file = file;
  }

  /**
   * The settings of a node keeping its state in {@code stateDir}: the persistent ones read back
   * from it.
   *
   * @throws IOException if the file cannot be read or does not hold settings this class wrote
   */
  static ClusterSettings open(Optional<Path> stateDir) throws IOException {
    ClusterSettings s = new ClusterSettings(stateDir.map(d -> d.resolve(FILE)));
    if (s.file.isPresent() && Files.exists(s.file.get())) {
      Path f = s.file.get();
      try {
        JsonNode root = Json.MAPPER.readTree(Files.readString(f, StandardCharsets.UTF_8));
        Map<String, Optional<String>> read = new LinkedHashMap<>();
        flatten("", Json.object(root.path("persistent"), "persistent"), 0, read);
        read.forEach((k, v) -> s.persistent.put(k, v.orElseThrow()));
      } catch (IOException | InvalidRequestException | ApiException e) {
        throw new IOException(
            f + " does not hold cluster settings (" + e.getMessage() + "); fix or delete it", e);
      }
    }
    return s;
  }

  /** A copy of one scope's settings, sorted by key. */
  synchronized SortedMap<String, String> get(Scope scope) {
    return new TreeMap<>(scope == Scope.PERSISTENT ? persistent : transientSettings);
  }

  /**
   * Applies a {@code PUT /_cluster/settings} body, {@code {"persistent":{...},"transient":{...}}},
   * all or nothing, and writes the persistent settings to disk when they changed.
   *
   * @throws ApiException 400 naming the first bad key, value or bound
   */
  synchronized Applied update(JsonNode body) throws IOException {
    Json.object(body, "cluster settings body");
    Map<Scope, Map<String, Optional<String>>> changes = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = body.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      Scope scope =
          switch (e.getKey()) {
            case "persistent" -> Scope.PERSISTENT;
            case "transient" -> Scope.TRANSIENT;
            default ->
                throw new ApiException(
                    400,
                    "x_content_parse_exception",
                    "[cluster_update_settings_request] unknown field ["
                        + Text.quote(e.getKey())
                        + "]; expected persistent or transient");
          };
      if (!e.getValue().isObject()) {
        throw EsParams.bad(scope.json() + " must be an object, got " + Json.describe(e.getValue()));
      }
      Map<String, Optional<String>> flat = new LinkedHashMap<>();
      flatten("", e.getValue(), 0, flat);
      changes.put(scope, flat);
    }
    if (changes.values().stream().allMatch(Map::isEmpty)) {
      throw new ApiException(
          400,
          "action_request_validation_exception",
          "Validation Failed: 1: no settings to update;");
    }
    // Check every bound on copies first: a refused update changes nothing.
    TreeMap<String, String> newPersistent = new TreeMap<>(persistent);
    TreeMap<String, String> newTransient = new TreeMap<>(transientSettings);
    Applied applied = new Applied(new TreeMap<>(), new TreeMap<>());
    apply(changes.getOrDefault(Scope.PERSISTENT, Map.of()), newPersistent, applied.persistent());
    apply(changes.getOrDefault(Scope.TRANSIENT, Map.of()), newTransient, applied.transientMap());
    for (var m : java.util.List.of(newPersistent, newTransient)) {
      if (m.size() > MAX_KEYS) {
        throw EsParams.bad(
            "the update leaves " + m.size() + " settings in one scope, more than " + MAX_KEYS);
      }
    }
    if (!newPersistent.equals(persistent) && file.isPresent()) {
      ObjectNode root = Json.MAPPER.createObjectNode();
      ObjectNode p = root.putObject("persistent");
      newPersistent.forEach(p::put);
      StateFiles.write(
          file.get(), Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
    }
    persistent.clear();
    persistent.putAll(newPersistent);
    transientSettings.clear();
    transientSettings.putAll(newTransient);
    return applied;
  }

  private static void apply(
      Map<String, Optional<String>> changes,
      TreeMap<String, String> into,
      Map<String, String> set) {
    for (Map.Entry<String, Optional<String>> c : changes.entrySet()) {
      String key = c.getKey();
      if (c.getValue().isPresent()) {
        into.put(key, c.getValue().get());
        set.put(key, c.getValue().get());
      } else if (key.endsWith("*")) {
        String prefix = key.substring(0, key.length() - 1);
        into.keySet().removeIf(k -> k.startsWith(prefix));
      } else {
        into.remove(key);
      }
    }
  }

  /**
   * Flattens {@code node} into dotted keys: objects nest ({@code {"a":{"b":1}}} is {@code a.b}),
   * scalars become strings, null is a reset (empty).
   */
  private static void flatten(
      String prefix, JsonNode node, int depth, Map<String, Optional<String>> out) {
    if (depth > MAX_DEPTH) {
      throw EsParams.bad(
          "setting [" + Text.quote(prefix) + "] nests more than " + MAX_DEPTH + " objects deep");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
      JsonNode v = e.getValue();
      if (v.isObject()) {
        flatten(key, v, depth + 1, out);
        continue;
      }
      checkKey(key);
      if (out.size() >= MAX_KEYS) {
        throw EsParams.bad("the update names more than " + MAX_KEYS + " settings");
      }
      if (v.isNull()) {
        out.put(key, Optional.empty());
      } else if (key.endsWith("*")) {
        throw EsParams.bad(
            "setting [" + Text.quote(key) + "] has a wildcard: only null (a reset) can be given");
      } else if (v.isTextual() || v.isNumber() || v.isBoolean()) {
        String s = v.asText();
        if (s.length() > MAX_VALUE_LENGTH) {
          throw EsParams.bad(
              "the value of setting ["
                  + Text.quote(key)
                  + "] has "
                  + s.length()
                  + " characters, more than "
                  + MAX_VALUE_LENGTH);
        }
        out.put(key, Optional.of(s));
      } else {
        throw EsParams.bad(
            "the value of setting ["
                + Text.quote(key)
                + "] must be a string, number, boolean or null, got "
                + Json.describe(v));
      }
    }
  }

  private static void checkKey(String key) {
    if (key.length() > MAX_KEY_LENGTH) {
      throw EsParams.bad(
          "setting key ["
              + Text.quote(key)
              + "] has "
              + key.length()
              + " characters, more than "
              + MAX_KEY_LENGTH);
    }
    if (!KEY.matcher(key).matches()) {
      throw EsParams.bad(
          "setting key ["
              + Text.quote(key)
              + "] must be dot-separated names of letters, digits, '_' and '-'");
    }
  }

  /**
   * Settings as Elasticsearch renders them: flat ({@code {"a.b":"1"}}) or nested ({@code
   * {"a":{"b":"1"}}}); where a key is both a value and a prefix of another key, the longer key
   * stays flat below the shared part.
   */
  static ObjectNode render(Map<String, String> settings, boolean flat) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    for (Map.Entry<String, String> e : settings.entrySet()) {
      if (flat) {
        out.put(e.getKey(), e.getValue());
        continue;
      }
      String[] parts = e.getKey().split("\\.");
      ObjectNode at = out;
      int i = 0;
      for (; i < parts.length - 1; i++) {
        JsonNode next = at.get(parts[i]);
        if (next == null) {
          at = at.putObject(parts[i]);
        } else if (next.isObject()) {
          at = (ObjectNode) next;
        } else {
          break; // a value sits here: keep the rest of the key flat
        }
      }
      String rest = String.join(".", java.util.Arrays.copyOfRange(parts, i, parts.length));
      if (at.get(rest) == null) {
        at.put(rest, e.getValue());
      }
    }
    return out;
  }
}
