package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.server.Json;

/**
 * Parses an Elasticsearch {@code _bulk} body (NDJSON: an action line, then a source line for {@code
 * index}, {@code create} and {@code update}) into one {@link Item} per action. A bad line fails its
 * own item only. When an action line cannot be parsed at all, the next line is taken as its source
 * unless it looks like an action line itself, so one typo does not shift every later item.
 * Stateless and thread-safe.
 */
final class EsBulkParser {
  private static final Set<String> ACTIONS = Set.of("index", "create", "update", "delete");
  private static final Set<String> IGNORED_META = Set.of("routing", "pipeline", "require_alias");

  private EsBulkParser() {}

  /** A bulk item's error with the status and type Elasticsearch would give it. */
  static final class ItemError extends InvalidRequestException {
    private static final long serialVersionUID = 1L;
    private final int status;

    ItemError(int status, String type, String message) {
      super(type, message);
      this.status = status;
    }

    int status() {
      return status;
    }
  }

  /**
   * One bulk item.
   *
   * @param action index, create, update or delete (the response key)
   * @param id the document id, or {@code null} if the line had none
   * @param op the operation, or {@code null} when {@code error} is set
   * @param error why the item failed, or {@code null}
   */
  record Item(
      String action, String index, String id, Operation op, InvalidRequestException error) {}

  /**
   * Parses a bulk body; each item names its index ({@code _index}, else {@code pathIndex}). An
   * {@code index} or {@code create} action without {@code _id} gets a generated one; a numeric
   * {@code _id} is taken as its decimal string.
   */
  static List<Item> parse(ByteBuf body, String pathIndex) {
    byte[] bytes;
    int base;
    if (body.hasArray()) {
      bytes = body.array();
      base = body.arrayOffset() + body.readerIndex();
    } else {
      bytes = ByteBufUtil.getBytes(body);
      base = 0;
    }
    List<int[]> lines = lines(bytes, base, base + body.readableBytes());
    if (lines.isEmpty()) {
      throw new InvalidRequestException("request body is required: the bulk has no lines");
    }
    List<Item> items = new ArrayList<>();
    int i = 0;
    while (i < lines.size()) {
      int lineNo = i + 1;
      int[] line = lines.get(i++);
      JsonNode action;
      try {
        action = Json.parse(bytes, line[0], line[1], "bulk line " + lineNo);
        Json.object(action, "bulk action line " + lineNo);
      } catch (InvalidRequestException e) {
        if (i < lines.size() && !looksLikeAction(bytes, lines.get(i))) {
          i++; // its source line
        }
        items.add(
            new Item(
                "index",
                pathIndex,
                null,
                null,
                new ItemError(400, "parsing_exception", e.getMessage())));
        continue;
      }
      if (action.size() != 1) {
        if (i < lines.size() && !looksLikeAction(bytes, lines.get(i))) {
          i++;
        }
        items.add(
            new Item(
                "index",
                pathIndex,
                null,
                null,
                new ItemError(
                    400,
                    "illegal_argument_exception",
                    "bulk action line "
                        + lineNo
                        + " must have exactly one action, got "
                        + action)));
        continue;
      }
      String name = action.fieldNames().next();
      JsonNode meta = action.get(name);
      boolean hasSource = !name.equals("delete");
      if (!ACTIONS.contains(name)) {
        if (i < lines.size() && !looksLikeAction(bytes, lines.get(i))) {
          i++;
        }
        items.add(
            new Item(
                name,
                pathIndex,
                null,
                null,
                new ItemError(
                    400,
                    "illegal_argument_exception",
                    "unknown bulk action ["
                        + name
                        + "] on line "
                        + lineNo
                        + "; expected index, create, update or delete")));
        continue;
      }
      int[] sourceLine = null;
      int sourceLineNo = i + 1;
      if (hasSource) {
        if (i < lines.size()) {
          sourceLine = lines.get(i++);
        }
      }
      items.add(item(name, meta, bytes, sourceLine, lineNo, sourceLineNo, pathIndex));
    }
    return items;
  }

  private static Item item(
      String name,
      JsonNode meta,
      byte[] bytes,
      int[] sourceLine,
      int lineNo,
      int sourceLineNo,
      String pathIndex) {
    String id = null;
    String index = pathIndex;
    try {
      Json.object(meta, "metadata of the " + name + " action on line " + lineNo);
      for (Iterator<Map.Entry<String, JsonNode>> it = meta.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        switch (f.getKey()) {
          case "_index" -> index = Json.string(f.getValue(), "_index on line " + lineNo);
          case "_id" ->
              id =
                  f.getValue().isNumber()
                      ? f.getValue().asText()
                      : Json.string(f.getValue(), "_id on line " + lineNo);
          default -> {
            if (!IGNORED_META.contains(f.getKey())) {
              throw new InvalidRequestException(
                  "action on line " + lineNo + " has an unknown parameter [" + f.getKey() + "]");
            }
          }
        }
      }
      if (index == null) {
        throw new ItemError(
            400,
            "action_request_validation_exception",
            "Validation Failed: 1: index is missing; action on line "
                + lineNo
                + " names no _index and the path names none;");
      }
      if (id == null) {
        if (name.equals("index") || name.equals("create")) {
          id = EsIds.next();
        } else {
          throw new ItemError(
              400,
              "action_request_validation_exception",
              "Validation Failed: 1: id is missing; the " + name + " action on line " + lineNo);
        }
      }
      if (name.equals("delete")) {
        return new Item(name, index, id, Operation.delete(id), null);
      }
      if (sourceLine == null) {
        throw new InvalidRequestException(
            "the " + name + " action on line " + lineNo + " has no source line after it");
      }
      JsonNode source =
          Json.parse(bytes, sourceLine[0], sourceLine[1], "bulk line " + sourceLineNo);
      if (name.equals("update")) {
        Json.object(source, "update body on line " + sourceLineNo);
        for (Iterator<String> it = source.fieldNames(); it.hasNext(); ) {
          String k = it.next();
          if (!k.equals("doc")) {
            throw new InvalidRequestException(
                "update on line "
                    + sourceLineNo
                    + " has ["
                    + k
                    + "]; only [doc] is supported (no script, upsert or doc_as_upsert)");
          }
        }
        if (!source.has("doc")) {
          throw new InvalidRequestException("update on line " + sourceLineNo + " has no [doc]");
        }
        return new Item(
            name, index, id, Operation.update(EsDocuments.update(id, source.get("doc"))), null);
      }
      Document doc = EsDocuments.document(id, source);
      // create is put-if-absent, decided atomically by the store (a 409 item when the id exists).
      return new Item(
          name,
          index,
          id,
          name.equals("create") ? Operation.create(doc) : Operation.put(doc),
          null);
    } catch (ItemError e) {
      return new Item(name, index, id, null, e);
    } catch (InvalidRequestException e) {
      return new Item(
          name, index, id, null, new ItemError(400, "document_parsing_exception", e.getMessage()));
    }
  }

  private static boolean looksLikeAction(byte[] bytes, int[] line) {
    try {
      JsonNode n = Json.parse(bytes, line[0], line[1], "line");
      return n.isObject() && n.size() == 1 && ACTIONS.contains(n.fieldNames().next());
    } catch (InvalidRequestException e) {
      return false;
    }
  }

  /**
   * The non-blank lines of the NDJSON in {@code bytes[base..end)}, each {@code {offset, length}}
   * without its surrounding spaces, tabs and carriage returns.
   */
  static List<int[]> lines(byte[] bytes, int base, int end) {
    List<int[]> lines = new ArrayList<>();
    int start = base;
    for (int i = base; i <= end; i++) {
      if (i == end || bytes[i] == '\n') {
        int s = start;
        int e = i;
        while (s < e && isSpace(bytes[s])) {
          s++;
        }
        while (e > s && isSpace(bytes[e - 1])) {
          e--;
        }
        if (e > s) {
          lines.add(new int[] {s, e - s});
        }
        start = i + 1;
      }
    }
    return lines;
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\t' || b == '\r';
  }
}
