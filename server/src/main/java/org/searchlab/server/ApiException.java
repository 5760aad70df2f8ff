package org.searchlab.server;

/**
 * A request a dialect answers with a specific 4xx status other than 400 (404 for an unknown index
 * or document, 405 for a wrong method, 409 for a version conflict...). The dispatcher renders it
 * through the dialect's error shape. Immutable.
 */
public final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String type;

  public ApiException(int status, String type, String reason) {
    super(reason, null, false, false);
    this.status = status;
    this.type = type;
  }

  public int status() {
    return status;
  }

  public String type() {
    return type;
  }
}
