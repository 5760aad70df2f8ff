/**
 * The Elasticsearch dialect: a thin translator from the benchmark's Elasticsearch requests ({@code
 * _bulk}, {@code _search} with {@code multi_match}/{@code match}/{@code term}/{@code range}/{@code
 * bool}/{@code match_all} and {@code knn}, {@code _doc}, {@code _update}, {@code _refresh}, {@code
 * _flush}, {@code _forcemerge}, {@code _count}, {@code _segments}, index creation) to core records,
 * and back to Elasticsearch 8.x response shapes, so the official {@code elasticsearch-java} client
 * works unchanged. Every response carries {@code X-Elastic-Product: Elasticsearch}; errors have the
 * shape {@code {"error":{"type","reason"},"status":N}}.
 *
 * <p>Cluster-level routes ({@link org.searchlab.server.es.EsClusterApi}): {@code _cluster/health}
 * (with its wait conditions, answered without holding a thread), {@code _cluster/settings}
 * (transient in memory, persistent in the data directory's {@code _state/}), {@code
 * _cluster/state/master_node}, {@code _nodes} info and stats (this JVM's MXBeans, the executors,
 * the feed counters), {@code _tasks} with background force-merges ({@code
 * wait_for_completion=false}), {@code [/{index}]/_stats}, and searches over an index expression
 * that matches no index. They read each index through {@link
 * org.searchlab.server.service.IndicesView}; {@code EsDialect} hands them what they own.
 *
 * <p>Terms: the server holds one index (default name {@code product}); a request naming another
 * index gets 404 {@code index_not_found_exception}. The server is one node of a one-node cluster:
 * an index's primaries are on it, its replicas (if its settings ask for any) unassigned, so such an
 * index is yellow. A store that stopped after a failure is a failed primary: red.
 */
package org.searchlab.server.es;
