/**
 * Scoring shared by the contract: BM25 exactly as Lucene's {@code BM25Similarity} computes it
 * (Robertson &amp; Zaragoza 2009; k1 = 1.2, b = 0.75, Lucene's idf and its one-byte length norm
 * from {@code SmallFloat.intToByte4}), vector closeness (Lucene {@code DOT_PRODUCT}: (1 + dot) / 2)
 * and hybrid fusion (sum, or reciprocal rank fusion of Cormack, Clarke &amp; Büttcher 2009).
 */
package org.searchlab.core.scoring;
