/**
 * Test support shipped in core's test-jar: the brute-force reference store {@link
 * org.searchlab.core.testing.ExactIndex} (exact BM25 as Lucene's {@code BM25Similarity}, exact
 * kNN), the conformance suite {@link org.searchlab.core.testing.BaseSearchIndexTestCase} that every
 * store subclasses unchanged (in the manner of Lucene's {@code BaseKnnVectorQueryTestCase}),
 * reproducible seeds and forked JVMs for crash tests.
 */
package org.searchlab.core.testing;
