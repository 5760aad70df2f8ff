package org.searchlab.server.vespa;

import org.searchlab.core.InvalidRequestException;

/**
 * A YQL statement that cannot be parsed or is outside the supported subset; the message names the
 * 1-based column and what was expected there. Immutable.
 */
final class YqlException extends InvalidRequestException {
  private static final long serialVersionUID = 1L;
  private final int column;

  YqlException(String yql, int column, String message) {
    super("Could not parse YQL at column " + column + ": " + message + pointer(yql, column));
    this.column = column;
  }

  int column() {
    return column;
  }

  private static String pointer(String yql, int column) {
    if (yql == null || yql.length() > 300) {
      return "";
    }
    return "\n  " + yql + "\n  " + " ".repeat(Math.max(0, column - 1)) + "^";
  }
}
