/**
 * The operations routes: {@code GET /health}, {@code GET /metrics} (Prometheus text) and the admin
 * endpoints under {@code /_admin/} (stats, refresh, flush, force-merge). Errors use the
 * Elasticsearch error shape.
 */
package org.searchlab.server.ops;
