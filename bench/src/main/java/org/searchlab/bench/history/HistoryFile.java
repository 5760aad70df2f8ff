package org.searchlab.bench.history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.server.Json;
import org.searchlab.testing.history.DocInput;
import org.searchlab.testing.history.DocOutput;
import org.searchlab.testing.history.Op;

/**
 * A recorded history as JSON lines, one object a line, each with a {@code type}:
 *
 * <ul>
 *   <li>{@code header}: {@code store}, {@code seed}, {@code clients}, {@code ids}, {@code
 *       unexpected} (first line);
 *   <li>{@code op}: {@code client}, {@code key}, {@code kind} ({@code PUT}, {@code CREATE}, {@code
 *       UPDATE}, {@code DELETE}, {@code GET}), {@code fields}, {@code outcome} ({@code OK}, {@code
 *       FAILED}, {@code INDETERMINATE}), for OK a {@code result} ({@code CREATED}, {@code UPDATED},
 *       {@code NOOP}, {@code DELETED}, {@code NOT_FOUND}, {@code CONFLICT}, {@code FOUND}) and for
 *       FOUND the {@code document}; {@code invoked} and {@code completed} in nanoseconds of one
 *       clock ({@code completed} is {@value Long#MAX_VALUE} for an indeterminate call);
 *   <li>{@code search}: {@code client}, {@code refreshInvoked}, {@code refreshCompleted}, {@code
 *       searchInvoked}, {@code searchCompleted}, {@code tokens} (id → token);
 *   <li>{@code kill}: {@code at}, {@code restartMillis};
 *   <li>{@code unexpected}: {@code text}, an answer outside the outcome mapping.
 * </ul>
 *
 * <p>{@link #read} gives back what {@link #write} was given, so a saved history can be checked
 * again ({@code searchlab history --check FILE}). Stateless and thread-safe.
 */
public final class HistoryFile {
  private HistoryFile() {}

  /** Writes a history, replacing the file. */
  public static void write(Path file, RecordedHistory h) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      ObjectNode header = Json.MAPPER.createObjectNode().put("type", "header");
      header.put("store", h.store()).put("seed", h.seed()).put("clients", h.clients());
      header.put("ids", h.ids()).put("unexpected", h.unexpected());
      line(w, header);
      for (Op<DocInput, DocOutput> op : h.ops()) {
        ObjectNode o = Json.MAPPER.createObjectNode().put("type", "op");
        o.put("client", op.client()).put("key", op.key()).put("kind", op.input().kind().name());
        o.set("fields", Json.MAPPER.valueToTree(op.input().fields()));
        o.put("outcome", op.outcome().name());
        if (op.outcome() == Op.Outcome.OK) {
          o.put("result", op.output().result().name());
          op.output().document().ifPresent(d -> o.set("document", Json.MAPPER.valueToTree(d)));
        }
        o.put("invoked", op.invoked()).put("completed", op.completed());
        line(w, o);
      }
      for (RefreshVisibility.Search s : h.searches()) {
        ObjectNode o = Json.MAPPER.createObjectNode().put("type", "search");
        o.put("client", s.client());
        o.put("refreshInvoked", s.refreshInvoked()).put("refreshCompleted", s.refreshCompleted());
        o.put("searchInvoked", s.searchInvoked()).put("searchCompleted", s.searchCompleted());
        o.set("tokens", Json.MAPPER.valueToTree(s.tokens()));
        line(w, o);
      }
      for (RecordedHistory.Kill k : h.kills()) {
        line(
            w,
            Json.MAPPER
                .createObjectNode()
                .put("type", "kill")
                .put("at", k.at())
                .put("restartMillis", k.restartMillis()));
      }
      for (String u : h.unexpectedSamples()) {
        line(w, Json.MAPPER.createObjectNode().put("type", "unexpected").put("text", u));
      }
    }
  }

  /** Reads a history {@link #write} wrote. */
  public static RecordedHistory read(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    if (lines.isEmpty()) {
      throw new IOException(file + " is empty; a history file starts with its header");
    }
    JsonNode header = Json.MAPPER.readTree(lines.get(0));
    if (!header.path("type").asText().equals("header")) {
      throw new IOException(file + " does not start with a header line: " + lines.get(0));
    }
    List<Op<DocInput, DocOutput>> ops = new ArrayList<>();
    List<RefreshVisibility.Search> searches = new ArrayList<>();
    List<RecordedHistory.Kill> kills = new ArrayList<>();
    List<String> unexpected = new ArrayList<>();
    for (int i = 1; i < lines.size(); i++) {
      JsonNode n = Json.MAPPER.readTree(lines.get(i));
      try {
        switch (n.path("type").asText()) {
          case "op" -> ops.add(op(n));
          case "search" -> searches.add(search(n));
          case "kill" ->
              kills.add(
                  new RecordedHistory.Kill(n.get("at").asLong(), n.get("restartMillis").asLong()));
          case "unexpected" -> unexpected.add(n.path("text").asText());
          default -> throw new IllegalArgumentException("unknown type [" + n.path("type") + "]");
        }
      } catch (RuntimeException e) {
        throw new IOException(file + " line " + (i + 1) + ": " + e.getMessage(), e);
      }
    }
    return new RecordedHistory(
        header.path("store").asText(),
        header.path("seed").asLong(),
        header.path("clients").asInt(),
        header.path("ids").asInt(),
        ops,
        searches,
        kills,
        header.path("unexpected").asLong(),
        unexpected);
  }

  private static Op<DocInput, DocOutput> op(JsonNode n) {
    DocInput in = new DocInput(DocInput.Kind.valueOf(n.get("kind").asText()), map(n.get("fields")));
    int client = n.get("client").asInt();
    String key = n.get("key").asText();
    long invoked = n.get("invoked").asLong();
    long completed = n.get("completed").asLong();
    return switch (Op.Outcome.valueOf(n.get("outcome").asText())) {
      case OK -> {
        DocOutput.Result r = DocOutput.Result.valueOf(n.get("result").asText());
        DocOutput out =
            r == DocOutput.Result.FOUND ? DocOutput.found(map(n.get("document"))) : DocOutput.of(r);
        yield Op.ok(client, key, in, out, invoked, completed);
      }
      case FAILED -> Op.failed(client, key, in, invoked, completed);
      case INDETERMINATE -> Op.indeterminate(client, key, in, invoked);
    };
  }

  private static RefreshVisibility.Search search(JsonNode n) {
    Map<String, String> tokens = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = n.get("tokens").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      tokens.put(e.getKey(), e.getValue().asText());
    }
    return new RefreshVisibility.Search(
        n.get("client").asInt(),
        n.get("refreshInvoked").asLong(),
        n.get("refreshCompleted").asLong(),
        n.get("searchInvoked").asLong(),
        n.get("searchCompleted").asLong(),
        tokens);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(JsonNode n) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("expected an object, got " + n);
    }
    return (Map<String, Object>) DocCalls.tree(n);
  }

  private static void line(BufferedWriter w, JsonNode n) throws IOException {
    w.write(Json.MAPPER.writeValueAsString(n));
    w.newLine();
  }
}
