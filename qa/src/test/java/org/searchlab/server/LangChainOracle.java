package org.searchlab.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.searchlab.core.Document;
import org.searchlab.core.Hit;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SourceJson;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.MappingJson;
import org.searchlab.core.query.Query;
import org.searchlab.testing.ExactIndex;

/**
 * The exact answers for one index LangChain made: an {@link ExactIndex} opened with the mapping and
 * settings the server reports for it ({@code GET /{index}/_mapping}, {@code _settings}), fed the
 * same documents, deletes and force-merge as the server. Not thread-safe.
 */
final class LangChainOracle implements Closeable {
  private final ExactIndex index;

  private LangChainOracle(ExactIndex index) {
    this.index = index;
  }

  /**
   * Opens the oracle from the server's answers.
   *
   * @param mappings the index's {@code mappings} object as {@code _mapping} reports it
   * @param settings the index's {@code settings.index} object as {@code _settings} reports it
   */
  static LangChainOracle open(Path dir, JsonNode mappings, JsonNode settings) throws IOException {
    ObjectNode known = settings.deepCopy();
    // What the server generates at creation, not settings a client may send.
    known.remove(List.of("creation_date", "uuid", "provided_name", "store", "version"));
    IndexSettings parsed = IndexSettings.parse(Json.MAPPER.createObjectNode().set("index", known));
    Mapping mapping = MappingJson.parse(mappings, parsed);
    return new LangChainOracle(ExactIndex.open(dir, parsed, mapping));
  }

  /** Writes a document as LangChain's bulk request wrote it. */
  void put(String id, JsonNode source) throws IOException {
    Map<String, Object> fields = SourceJson.object(source, "source");
    index.put(new Document(id, fields));
  }

  void delete(String id) throws IOException {
    index.delete(id);
  }

  void refresh() {
    index.refresh();
  }

  void forceMerge() {
    index.refresh();
    index.forceMerge(1);
  }

  /**
   * BM25 over {@code field}, filtered, every match best first (score ties by the index's order).
   */
  List<TieAwareRanking.Scored> match(String field, String text, List<Query> filters, int hits) {
    Query q = Query.Bool.filtered(Query.Match.of(field, text), filters);
    SearchRequest r = SearchRequest.builder().query(q).hits(hits).build();
    List<TieAwareRanking.Scored> out = new ArrayList<>();
    for (Hit h : index.search(r).hits()) {
      out.add(new TieAwareRanking.Scored(h.id(), h.score()));
    }
    return out;
  }

  @Override
  public void close() throws IOException {
    index.close();
  }
}
