/**
 * The general evaluator of the mutable store of any mapping: the documents and their per-field
 * structures ({@link org.searchlab.mutable.query.Documents}) and the evaluation of the whole {@link
 * org.searchlab.core.query.Query} tree over them ({@link org.searchlab.mutable.query.Evaluator}).
 *
 * <p>Terms: an <em>ordinal</em> is a document version's local id, dense and increasing; a removed
 * version's ordinal is <em>dead</em> until a compaction renumbers the live ones and rebuilds every
 * structure. The <em>candidates</em> of a query are a superset of what it matches, taken from the
 * postings of its text terms, the ordinals of its keyword values and its ids (intersected over a
 * bool's required clauses, united over a disjunction), or every document when a clause has none
 * (ranges, exists, match_all); the query is then evaluated document at a time over them, scored
 * with Lucene's BM25 ({@link org.searchlab.core.scoring.Bm25}) in the float and double steps Lucene
 * takes, so that scores equal the conformance oracle's. kNN runs per field through that field's
 * HNSW graph ({@link org.searchlab.mutable.hnsw.MutableHnswGraph}, the field's similarity, {@code
 * m}, {@code ef_construction} and quantization), with its filter's matches as a pre-filter and the
 * graph's plan chooser; an exact kNN scans the field's vectors.
 *
 * <p>References: Lucene's {@code BooleanQuery}, {@code DisjunctionMaxQuery} and {@code
 * BM25Similarity} for the scores; Vespa's attribute and posting-list model for the per-field
 * structures.
 */
package org.searchlab.mutable.query;
