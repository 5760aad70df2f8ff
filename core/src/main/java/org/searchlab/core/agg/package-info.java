/**
 * Aggregations: summaries over every document a search matches (Elasticsearch's {@code aggs},
 * Vespa's grouping), computed once for both stores by {@link org.searchlab.core.agg.Aggregations}
 * from the values each store reads its own way.
 *
 * <p>Terms: a <em>bucket</em> aggregation splits the matches into buckets ({@code terms}, {@code
 * range}, {@code histogram}, {@code date_histogram}, {@code filter}, {@code filters}) and runs its
 * <em>sub-aggregations</em> per bucket; a <em>metric</em> aggregation computes values ({@code min},
 * {@code max}, {@code avg}, {@code sum}, {@code value_count}, {@code stats}, {@code cardinality},
 * {@code top_hits}). A <em>leaf</em> is a part of the index read on its own (a Lucene segment, or
 * the mutable store's one index); a keyword field's <em>ordinals</em> number its values across all
 * leaves (Elasticsearch's global ordinals, built from each segment's sorted doc values; Vespa's
 * enumerated attribute). The <em>match set</em> is what a search aggregates: the query's matches, a
 * kNN search's top {@code k}, or their union.
 *
 * <p>References: Elasticsearch's aggregation framework ({@code
 * GlobalOrdinalsStringTermsAggregator}, {@code breadth_first} collection of sub-aggregations);
 * Flajolet, Fusy, Gandouet and Meunier, "HyperLogLog: the analysis of a near-optimal cardinality
 * estimation algorithm" (2007); Heule, Nunkesser and Hall, "HyperLogLog in Practice" (2013).
 */
package org.searchlab.core.agg;
