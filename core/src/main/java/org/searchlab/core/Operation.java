package org.searchlab.core;

/**
 * One write: a whole-document put, a partial update or a delete. The unit of the write-ahead log
 * and of bulk requests. Immutable.
 */
public sealed interface Operation {
  /** The external id the operation targets. */
  String id();

  /** Put (create or replace) a whole document. */
  record Put(Document document) implements Operation {
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

  static Operation update(PartialUpdate u) {
    return new Update(u);
  }

  static Operation delete(String id) {
    return new Delete(id);
  }
}
