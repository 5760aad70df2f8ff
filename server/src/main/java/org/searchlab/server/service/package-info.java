/**
 * The one service layer every dialect calls: searches (with optional query-text embedding), writes,
 * bulks, gets and admin calls on the {@link org.searchlab.core.SearchIndex}, with validation
 * against the schema and the feed and embedding metrics. No HTTP and no dialect shapes live here.
 */
package org.searchlab.server.service;
