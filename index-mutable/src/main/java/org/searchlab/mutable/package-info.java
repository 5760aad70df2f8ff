/**
 * The mutable store: {@link org.searchlab.mutable.MutableIndex}, one mutable index per field
 * instead of immutable segments, as Vespa's proton keeps its memory index and attributes.
 *
 * <p>Terms: a <em>local id</em> is a dense int standing for one version of a document; it is
 * <em>born</em> and <em>dies</em> at write-ahead log serials, and a search that starts at serial S
 * sees the versions alive at S (multi-version visibility). A <em>retired</em> id belongs to a
 * version that died; it is <em>freed</em> for reuse only after the compactor has removed its
 * postings and graph node and every search that might still hold it has finished (a
 * <em>generation</em> grace period, Vespa's {@code GenerationHandler}). The <em>writer</em> is the
 * one thread that logs, applies and publishes writes; the <em>compactor</em> removes what retired
 * versions left behind; a <em>snapshot</em> lets opening skip most of the log.
 *
 * <p>Parts: {@code postings} (term dictionaries, posting lists with block bounds, block-max
 * MaxScore), {@code attributes} (columns and per-category bitsets), {@code docstore}, {@code hnsw}
 * (the graph and the vector store, owned by the HNSW work), {@code memory} (paged columns and the
 * generation handler), {@code snapshot} (file format).
 */
package org.searchlab.mutable;
