package org.searchlab.bench.experiment;

/** What a feed sends for each document. */
public enum FeedOp {
  /** The whole document (Elasticsearch {@code index}, Vespa {@code put}). */
  PUT,
  /** Price + 100 (Elasticsearch {@code update} with {@code doc}, Vespa {@code assign}). */
  PRICE_UPDATE
}
