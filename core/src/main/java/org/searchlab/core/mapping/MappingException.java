package org.searchlab.core.mapping;

import org.searchlab.core.InvalidRequestException;

/**
 * A document or mapping that does not fit its index's mapping, with Elasticsearch's error type:
 * {@code mapper_parsing_exception} (a value that does not fit its field, a malformed mapping),
 * {@code strict_dynamic_mapping_exception} (a field unknown to a {@code strict} mapping) or {@code
 * illegal_argument_exception} (a mapping update that changes a field).
 */
public final class MappingException extends InvalidRequestException {
  private static final long serialVersionUID = 1L;

  public static final String PARSING = "mapper_parsing_exception";
  public static final String STRICT = "strict_dynamic_mapping_exception";

  private MappingException(String type, String message) {
    super(type, message);
  }

  /** A value or a mapping that cannot be parsed: {@code mapper_parsing_exception}. */
  public static MappingException parsing(String message) {
    return new MappingException(PARSING, message);
  }

  /** A field a {@code strict} object does not define: {@code strict_dynamic_mapping_exception}. */
  public static MappingException strict(String field, String object) {
    return new MappingException(
        STRICT,
        "mapping set to strict, dynamic introduction of ["
            + field
            + "] within ["
            + object
            + "] is not allowed");
  }

  /** A mapping update that changes what a field is: {@code illegal_argument_exception}. */
  public static MappingException conflict(String message) {
    return new MappingException(ILLEGAL_ARGUMENT, message);
  }
}
