package org.searchlab.bench.experiment;

/** The {@code phase} values of {@code results.jsonl}. */
public final class Phases {
  public static final String FEED = "feed";

  /**
   * The bootstrap feed of a Vespa-dialect variant done again on a fresh server of its own, through
   * {@code _bulk} with the client, bodies and batches the Elasticsearch-dialect variants are fed
   * with: the store's feed rate beside the segmented store's with the same client, since the
   * runner's clients share the cores with the server and Vespa's feed client costs far more CPU per
   * document than a pre-encoded {@code _bulk} request.
   */
  public static final String FEED_SAME_CLIENT = "feed_same_client";

  public static final String AFTER_FLUSH = "after_flush";
  public static final String AFTER_MERGE = "after_merge";
  public static final String REFEED = "refeed";
  public static final String UPDATE = "update";
  public static final String REFEED_WITH_QUERIES = "refeed_with_queries";
  public static final String DURING_REFEED = "during_refeed";

  /**
   * A filtered query cell of the refeed-under-queries phase measured just before the refeed starts,
   * with the same queries, clients and window as its {@link #DURING_REFEED} cell: that cell's
   * baseline.
   */
  public static final String BEFORE_REFEED = "before_refeed";

  public static final String SWEEP = "sweep";

  /**
   * A vector or hybrid cell of the segment sweep at the beam just below its segment count's
   * calibrated one, measured right after the cell at the calibrated beam ({@link SegmentSweep}).
   */
  public static final String SWEEP_BELOW_BEAM = "sweep_below_beam";

  /**
   * A vector or hybrid cell of the segment sweep estimated at exactly its recall@10 goal from the
   * cells at the calibrated beam and the beam below ({@link #AT_TARGET}'s interpolation).
   */
  public static final String SWEEP_AT_TARGET = "sweep_at_target";

  public static final String GRID = "grid";
  public static final String CALIBRATION = "calibration";

  /**
   * A vector or hybrid cell measured in the paired rounds at the beam just below the calibrated
   * one, at the curve's client count, so that each round can estimate the QPS at exactly the
   * target.
   */
  public static final String BELOW_BEAM = "below_beam";

  /**
   * QPS and QPS per core at exactly the target recall@10, per round and over the rounds: the
   * log-linear interpolation by measured recall between the cells at the calibrated beam and at the
   * beam below it.
   */
  public static final String AT_TARGET = "at_target";

  /**
   * A scale run's feed of one interval of documents, [N_{i-1}, N_i), to a store grown through the
   * sizes ({@link ScaleRun}); the row's {@code docs} is N_i and its segments those at the end.
   */
  public static final String SCALE_FEED = "scale_feed";

  /**
   * A scale run's feed 0 → N_i of a grown store: the intervals' documents, seconds and server CPU
   * summed (a feed with pauses between the sizes).
   */
  public static final String SCALE_FEED_CUMULATIVE = "scale_feed_cumulative";

  /**
   * A force-merge to one segment of a copy of the segmented index (a scale run's, per size): its
   * seconds, its server cores, and the documents merged per second.
   */
  public static final String FORCE_MERGE = "force_merge";

  private Phases() {}
}
