package org.searchlab.testing.history;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import org.searchlab.core.Source;

/**
 * The sequential specification of one document of the HTTP API: a register over the whole document,
 * absent or a map of fields, as the stores and the Elasticsearch dialect define it.
 *
 * <ul>
 *   <li>PUT: {@code created} if absent, else {@code updated}; the document becomes the input.
 *   <li>CREATE: {@code created} if absent (the document becomes the input), else {@code conflict}
 *       and nothing changes.
 *   <li>UPDATE: {@code not_found} if absent and nothing changes (the dialect's 404 {@code
 *       document_missing_exception}: no upsert); else the input is merged in ({@code Source.merge}:
 *       objects key by key, anything else replaced) and the answer is {@code updated}, or {@code
 *       noop} when the merge changes nothing. Both answers are legal for a merge that changes
 *       nothing: the segmented store detects no-ops, the mutable store does not.
 *   <li>DELETE: {@code deleted} if present, else {@code not_found}; the document becomes absent.
 *   <li>GET: the document compared whole, or {@code not_found}; nothing changes.
 * </ul>
 *
 * <p>Versions and sequence numbers are left out: the dialect answers {@code _version: 1} always and
 * a GET's {@code _seq_no} is 0, so they say nothing about order. The state is {@code
 * Optional.empty()} for absent, else the unmodifiable document. Stateless and thread-safe.
 */
public final class DocumentModel
    implements Model<Optional<Map<String, Object>>, DocInput, DocOutput> {

  @Override
  public Optional<Map<String, Object>> init() {
    return Optional.empty();
  }

  @Override
  public Optional<Map<String, Object>> step(
      Optional<Map<String, Object>> state, DocInput input, DocOutput output) {
    DocOutput.Result r = output.result();
    return switch (input.kind()) {
      case PUT ->
          r == (state.isPresent() ? DocOutput.Result.UPDATED : DocOutput.Result.CREATED)
              ? Optional.of(input.fields())
              : null;
      case CREATE -> {
        if (state.isEmpty()) {
          yield r == DocOutput.Result.CREATED ? Optional.of(input.fields()) : null;
        }
        yield r == DocOutput.Result.CONFLICT ? state : null;
      }
      case UPDATE -> {
        if (state.isEmpty()) {
          yield r == DocOutput.Result.NOT_FOUND ? state : null;
        }
        Map<String, Object> merged = merge(state.get(), input.fields());
        if (r == DocOutput.Result.UPDATED) {
          yield Optional.of(merged);
        }
        yield r == DocOutput.Result.NOOP && merged.equals(state.get()) ? state : null;
      }
      case DELETE ->
          r == (state.isPresent() ? DocOutput.Result.DELETED : DocOutput.Result.NOT_FOUND)
              ? Optional.empty()
              : null;
      case GET ->
          (r == DocOutput.Result.FOUND || r == DocOutput.Result.NOT_FOUND)
                  && output.document().equals(state)
              ? state
              : null;
    };
  }

  @Override
  public Optional<Map<String, Object>> apply(Optional<Map<String, Object>> state, DocInput input) {
    return switch (input.kind()) {
      case PUT -> Optional.of(input.fields());
      case CREATE -> state.isEmpty() ? Optional.of(input.fields()) : state;
      case UPDATE -> state.map(d -> merge(d, input.fields()));
      case DELETE -> Optional.empty();
      case GET -> state;
    };
  }

  private static Map<String, Object> merge(Map<String, Object> base, Map<String, Object> patch) {
    return Collections.unmodifiableMap(Source.merge(base, patch));
  }
}
