/**
 * The Elasticsearch dialect: a thin translator from the benchmark's Elasticsearch requests ({@code
 * _bulk}, {@code _search} with {@code multi_match}/{@code match}/{@code term}/{@code range}/{@code
 * bool}/{@code match_all} and {@code knn}, {@code _doc}, {@code _update}, {@code _refresh}, {@code
 * _flush}, {@code _forcemerge}, {@code _count}, {@code _segments}, index creation) to core records,
 * and back to Elasticsearch 8.x response shapes, so the official {@code elasticsearch-java} client
 * works unchanged. Every response carries {@code X-Elastic-Product: Elasticsearch}; errors have the
 * shape {@code {"error":{"type","reason"},"status":N}}.
 *
 * <p>Terms: the server holds one index (default name {@code product}); a request naming another
 * index gets 404 {@code index_not_found_exception}.
 */
package org.searchlab.server.es;
