/**
 * The Vespa dialect: {@code /document/v1} (put, partial update with {@code assign}, remove, get;
 * gzip bodies; the feed client's handshake) and {@code /search/} with a YQL subset parsed by a real
 * recursive-descent parser ({@link org.searchlab.server.vespa.YqlParser}) that reports the column
 * of an error. Queries map onto the same core {@code SearchRequest} as the Elasticsearch dialect.
 *
 * <p>Terms: a document id {@code id:<namespace>:<doctype>::<user id>}; the server keys documents by
 * the user id, so the same document is {@code _id} in the Elasticsearch dialect. Rank profiles
 * {@code bm25}, {@code closeness} and {@code hybrid} are core's {@code RankProfile}s.
 */
package org.searchlab.server.vespa;
