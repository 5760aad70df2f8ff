/**
 * The document store of the mutable index: the source of every document, by local id, for {@code
 * get} and for re-analysing a retired document's text when its statistics and postings go.
 *
 * <p>Terms: a document is kept in {@link org.searchlab.core.wal.OperationCodec}'s binary form, one
 * immutable byte array per local id.
 */
package org.searchlab.mutable.docstore;
