/**
 * The indexes a server holds: a registry of named indexes of any registered store kind ({@link
 * org.searchlab.core.StoreKind}), each in a directory named by its uuid, created, resolved by name
 * or pattern, and deleted; and Elasticsearch's rules for index names.
 *
 * <p>Terms: an <em>index expression</em> is what a request path names ({@code a,b}, {@code logs-*},
 * {@code _all}); a <em>lease</em> holds an index while a request uses it, so that a delete waits
 * for the request before closing the store.
 */
package org.searchlab.server.index;
