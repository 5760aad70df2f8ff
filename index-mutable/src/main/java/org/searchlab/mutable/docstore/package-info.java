/**
 * The document store of the mutable index: the source of every document, by local id, for {@code
 * get} and for re-analysing a retired document's text when its statistics and postings go.
 *
 * <p>Terms: a document is kept in {@link org.searchlab.core.wal.OperationCodec}'s binary form, one
 * immutable byte array per local id, without its vector: the vector lives once, in the graph's
 * vector attribute, and {@code get} joins the two (as Vespa fills a summary from a tensor
 * attribute).
 */
package org.searchlab.mutable.docstore;
