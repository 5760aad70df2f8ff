package org.searchlab.segmented;

import java.util.Locale;
import java.util.StringJoiner;
import org.searchlab.core.InvalidRequestException;

/**
 * The command-line spelling of this package's enums: lower case with dashes ({@code LOG_BYTE_SIZE}
 * is {@code log-byte-size}). Stateless and thread-safe.
 */
final class CliNames {
  private CliNames() {}

  static String of(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** Parses either spelling, case-insensitively; names every accepted value on failure. */
  static <E extends Enum<E>> E parse(Class<E> type, String what, String name) {
    StringJoiner expected = new StringJoiner(", ");
    for (E e : type.getEnumConstants()) {
      if (of(e).equalsIgnoreCase(name) || e.name().equalsIgnoreCase(name)) {
        return e;
      }
      expected.add(of(e));
    }
    throw new InvalidRequestException("unknown " + what + " '" + name + "'; expected " + expected);
  }
}
