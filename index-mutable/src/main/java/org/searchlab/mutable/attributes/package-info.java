/**
 * Columnar attributes of the mutable index, indexed by local document id: the dictionary-encoded
 * {@code category} with a bitset per category (Vespa's {@code fast-search} attribute: a filter
 * enumerates only its own category's bits), {@code price}, {@code average_rating}, and the
 * per-document sequence numbers that let a reader see a multi-field in-place update whole.
 *
 * <p>Terms: an <em>ordinal</em> is a category's dense number in the dictionary; an <em>in-place
 * update</em> assigns attribute values of a live local id without re-indexing anything else; a
 * <em>seqlock</em> (Lameter 2005; Linux {@code seqcount_t}) is a per-document counter the writer
 * makes odd while it writes and even after, which a reader checks before and after reading.
 */
package org.searchlab.mutable.attributes;
