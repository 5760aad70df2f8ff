package org.searchlab.core;

/**
 * A caller's mistake: bad input that was rejected before anything was written. Dialects map it to a
 * 4xx in their own error shape. The message names the offending value and the limit it broke.
 */
public class InvalidRequestException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidRequestException(String message) {
    super(message);
  }
}
