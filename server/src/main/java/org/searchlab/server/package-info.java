/**
 * The searchlab HTTP server: Netty bootstrap and lifecycle ({@link
 * org.searchlab.server.SearchServer}), the pipeline ({@code HttpServerInitializer}: HTTP/1.1
 * keep-alive and h2c with prior knowledge or upgrade, gzip request bodies, an aggregator with a
 * named body limit), and the dispatcher that moves work off the event loop onto bounded executors.
 *
 * <p>Terms: a <em>dialect</em> ({@code es}, {@code vespa}, {@code ops}) translates HTTP requests to
 * and from core records and calls the one {@link org.searchlab.server.service.SearchService}; it
 * holds no search logic. <em>Back-pressure</em>: when an executor's queue is full the request is
 * answered 429 with {@code Retry-After} instead of queueing without bound.
 */
package org.searchlab.server;
