package org.searchlab.core;

/**
 * A create ({@link Operation#create}, {@link SearchIndex#create}) found a document with its id
 * already present, so nothing was written: Elasticsearch's 409 {@code
 * version_conflict_engine_exception}. Like every {@link InvalidRequestException} it fails only its
 * own operation of a bulk.
 */
public final class DocumentExistsException extends InvalidRequestException {
  private static final long serialVersionUID = 1L;

  private final String id;

  public DocumentExistsException(String id) {
    super("[" + prefix(id) + "]: version conflict, document already exists");
    this.id = id;
  }

  /** At most 64 characters of the id, control characters escaped: ids come from requests. */
  private static String prefix(String id) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < id.length() && i < 64; i++) {
      char c = id.charAt(i);
      b.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return id.length() > 64 ? b.append("...").toString() : b.toString();
  }

  /** The id that was present. */
  public String id() {
    return id;
  }
}
