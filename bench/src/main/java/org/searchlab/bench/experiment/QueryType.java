package org.searchlab.bench.experiment;

/** The benchmark's three query types; {@link #label()} is the name used in results. */
public enum QueryType {
  LEXICAL,
  VECTOR,
  HYBRID;

  /** Lower-case name, as in {@code results.jsonl}. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
