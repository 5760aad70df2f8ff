/**
 * The test framework: the one exact implementation of the query semantics ({@link
 * org.searchlab.testing.ExactCorpus}: BM25 as Lucene's {@code BM25Similarity} computes it, exact
 * kNN, hybrid fusion), the same as a persistent reference store ({@link
 * org.searchlab.testing.ExactIndex}), the conformance suite {@link
 * org.searchlab.testing.BaseSearchIndexTestCase} that every store subclasses unchanged (in the
 * manner of Lucene's {@code BaseKnnVectorQueryTestCase}), tie-aware assertions, reproducible seeds
 * and forked JVMs for crash tests. The experiment runner measures recall against the same oracle.
 */
package org.searchlab.testing;
