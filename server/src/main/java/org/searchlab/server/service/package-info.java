/**
 * The one service layer every dialect calls: searches (with query-text embedding for any of their
 * kNN searches, {@link org.searchlab.server.service.KnnText}), writes, bulks, gets and admin calls
 * on the {@link org.searchlab.core.SearchIndex}, with validation against the schema and the feed
 * and embedding metrics. No HTTP and no dialect shapes live here. {@code ProductShapeBridge} runs
 * general requests on stores that still run only the benchmark's request shape (until issue 66's
 * store work lands).
 */
package org.searchlab.server.service;
