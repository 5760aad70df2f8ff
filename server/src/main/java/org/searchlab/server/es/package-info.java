/**
 * The Elasticsearch dialect: a thin translator from Elasticsearch 8.x requests ({@code _bulk},
 * {@code _search}, {@code _count}, {@code _doc}, {@code _update}, {@code _refresh}, {@code _flush},
 * {@code _forcemerge}, {@code _segments}, index creation) to core records, and back to
 * Elasticsearch 8.x response shapes, so the official clients, LangChain's vector store and Rally
 * work unchanged. Every response carries {@code X-Elastic-Product: Elasticsearch}; errors have the
 * shape {@code {"error":{"root_cause","type","reason"},"status":N}}.
 *
 * <p>Search bodies become the core {@link org.searchlab.core.SearchRequest} (a {@link
 * org.searchlab.core.query.Query} tree, {@link org.searchlab.core.query.Knn} searches and a {@link
 * org.searchlab.core.query.Rank}), field names as the request gives them: {@code EsSearchParser}
 * (the body and URL), {@code EsQueryParser} (the query DSL: match_all, match_none, match,
 * multi_match, term, terms, range, exists, ids, bool, constant_score, dis_max, script_score),
 * {@code EsKnnParser} ({@code knn} sections, retrievers and queries) and {@code EsRetrieverParser}
 * (standard, knn and rrf retrievers). A structural error is a {@code parsing_exception}, an option
 * the contract cannot honour an {@code illegal_argument_exception}; both name the place in the body
 * ({@code [query.bool.must[1].match.title.analyzer]}).
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
