package org.searchlab.bench.experiment;

/** The {@code phase} values of {@code results.jsonl}. */
public final class Phases {
  public static final String FEED = "feed";
  public static final String AFTER_FLUSH = "after_flush";
  public static final String AFTER_MERGE = "after_merge";
  public static final String REFEED = "refeed";
  public static final String UPDATE = "update";
  public static final String REFEED_WITH_QUERIES = "refeed_with_queries";
  public static final String DURING_REFEED = "during_refeed";
  public static final String SWEEP = "sweep";
  public static final String GRID = "grid";
  public static final String CALIBRATION = "calibration";

  private Phases() {}
}
