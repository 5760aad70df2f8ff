/**
 * The Vespa dialect: {@code /document/v1} (put, partial update with {@code assign}, remove, get;
 * gzip bodies; the feed client's handshake) and {@code /search/} with a YQL subset parsed by a real
 * recursive-descent parser ({@link org.searchlab.server.vespa.YqlParser}) that reports the column
 * of an error. {@link org.searchlab.server.vespa.YqlWhere} translates the {@code where} clause
 * against the index's mapping into the same core {@code Query}, {@code Knn} and {@code Rank} as the
 * Elasticsearch dialect ({@code docs/mappings.md}, "Queries in the Vespa dialect"); {@code order
 * by} becomes core sort keys, and the grouping after {@code |} ({@link
 * org.searchlab.server.vespa.GroupingParser}, {@link org.searchlab.server.vespa.VespaGrouping})
 * core aggregations rendered as Vespa's {@code group:root} tree ({@code docs/aggregations.md}).
 *
 * <p>Terms: a document id {@code id:<namespace>:<doctype>::<user id>}; the server keys documents by
 * the user id, so the same document is {@code _id} in the Elasticsearch dialect. Rank profiles
 * {@code bm25}, {@code closeness}, {@code hybrid} and {@code unranked} are core's {@code
 * RankProfile}s, all summing the parts' scores; {@code rrf} fuses them by reciprocal rank.
 */
package org.searchlab.server.vespa;
