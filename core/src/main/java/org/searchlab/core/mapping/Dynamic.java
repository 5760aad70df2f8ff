package org.searchlab.core.mapping;

import java.util.Locale;

/**
 * What a document's field that the mapping does not know does (Elasticsearch's {@code dynamic}):
 * {@link #TRUE} maps it from its first value, {@link #FALSE} keeps it in the source unindexed,
 * {@link #STRICT} rejects the document.
 */
public enum Dynamic {
  TRUE,
  FALSE,
  STRICT;

  /** The value as a mapping writes it: {@code true}, {@code false} or {@code strict}. */
  public String esValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code true}, {@code false} or {@code strict} (booleans as strings too). */
  public static Dynamic parse(String v) {
    return switch (v == null ? "" : v.toLowerCase(Locale.ROOT)) {
      case "true" -> TRUE;
      case "false" -> FALSE;
      case "strict" -> STRICT;
      default ->
          throw MappingException.parsing(
              "[dynamic] is ["
                  + NumberType.abbreviate(v)
                  + "]; expected true, false or strict (runtime fields are not supported)");
    };
  }
}
