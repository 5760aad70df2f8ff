package org.searchlab.core;

/**
 * One write: a whole-document put, a partial update or a delete. The unit of the write-ahead log
 * and of bulk requests. Immutable.
 */
public sealed interface Operation {
  /** The external id the operation targets. */
  String id();

  /**
   * Put a whole document: create or replace it, or, when {@code ifAbsent} (Elasticsearch's {@code
   * op_type=create}), create it only if no document has its id. A store decides {@code ifAbsent}
   * atomically against every other write of that id and answers a present id with {@link
   * DocumentExistsException}; the log records a successful create as a plain put.
   *
   * @param document the new version
   * @param ifAbsent whether a present id fails the operation instead of being replaced
   */
  record Put(Document document, boolean ifAbsent) implements Operation {
    /** A create-or-replace. */
    public Put(Document document) {
      this(document, false);
    }

    @Override
    public String id() {
      return document.id();
    }
  }

  /** Assign some fields of an existing document; a no-op answering NOT_FOUND if it is missing. */
  record Update(PartialUpdate update) implements Operation {
    @Override
    public String id() {
      return update.id();
    }
  }

  /** Remove a document; answers NOT_FOUND if it is missing. */
  record Delete(String id) implements Operation {}

  static Operation put(Document d) {
    return new Put(d);
  }

  /** A put that only creates: fails with {@link DocumentExistsException} if the id is present. */
  static Operation create(Document d) {
    return new Put(d, true);
  }

  static Operation update(PartialUpdate u) {
    return new Update(u);
  }

  static Operation delete(String id) {
    return new Delete(id);
  }
}
