package org.searchlab.core;

/**
 * A caller's mistake: bad input that was rejected before anything was written. Dialects map it to a
 * 4xx in their own error shape. The message names the offending value and the limit it broke; the
 * {@link #type()} is Elasticsearch's name for the error ({@code illegal_argument_exception} unless
 * a subclass says otherwise, such as {@code mapper_parsing_exception}).
 */
public class InvalidRequestException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** Elasticsearch's default error type for a bad request. */
  public static final String ILLEGAL_ARGUMENT = "illegal_argument_exception";

  private final String type;

  public InvalidRequestException(String message) {
    this(ILLEGAL_ARGUMENT, message);
  }

  /**
   * @param type Elasticsearch's error type, such as {@code mapper_parsing_exception}
   * @param message what was wrong, naming the value and the limit
   */
  public InvalidRequestException(String type, String message) {
    super(message);
    this.type = type;
  }

  /** Elasticsearch's name for this error, as its error bodies carry in {@code error.type}. */
  public String type() {
    return type;
  }
}
