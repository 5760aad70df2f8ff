/**
 * The one text analysis chain both stores use at index and query time: the benchmark's
 * Elasticsearch analyzer {@code lowercase_normalize_stem} (standard tokenizer, lowercase,
 * asciifolding, Snowball English "porter2" stemmer), built from lucene-analysis-common.
 */
package org.searchlab.core.analysis;
