package org.searchlab.core;

/**
 * The outcome of one operation of a bulk: either a {@link WriteResult} or the error that rejected
 * that operation alone (the other operations of the bulk are still applied).
 *
 * @param op the operation, or {@code null} if the item could not even be parsed into one
 * @param result the acknowledgement, or {@code null} when {@code error} is set
 * @param error why this item was rejected, or {@code null} when it succeeded
 */
public record BulkItemResult(Operation op, WriteResult result, InvalidRequestException error) {
  public static BulkItemResult ok(Operation op, WriteResult r) {
    return new BulkItemResult(op, r, null);
  }

  public static BulkItemResult failed(Operation op, InvalidRequestException e) {
    return new BulkItemResult(op, null, e);
  }

  public boolean failed() {
    return error != null;
  }
}
