package org.searchlab.core;

/**
 * The acknowledgement of one write.
 *
 * @param id the document id
 * @param serial the write-ahead log serial of the operation; 0 when nothing was logged (NOT_FOUND)
 * @param outcome what the write did
 */
public record WriteResult(String id, long serial, Outcome outcome) {
  /** What a write did, named as Elasticsearch's {@code result} field names it. */
  public enum Outcome {
    CREATED("created"),
    UPDATED("updated"),
    DELETED("deleted"),
    NOT_FOUND("not_found"),
    NOOP("noop");

    private final String esName;

    Outcome(String esName) {
      this.esName = esName;
    }

    /** The lower-case name Elasticsearch uses in responses. */
    public String esName() {
      return esName;
    }
  }
}
