/**
 * The mutable inverted index of one text field: a term dictionary leading to posting lists that the
 * single writer changes in place while readers iterate them without locks, field-length norms
 * encoded as Lucene encodes them, exact corpus statistics, and the block-max MaxScore evaluation of
 * the lexical query.
 *
 * <p>Terms: a <em>posting</em> is (local id, term frequency); a <em>block</em> holds about {@value
 * org.searchlab.mutable.postings.PostingBlock#TARGET} postings in ascending local id order with the
 * largest frequency and the smallest norm in it, which bound the BM25 score of any of its postings;
 * a posting list is a <em>directory</em> of blocks. A <em>cursor</em> walks a directory as it was
 * when the cursor started. <em>Essential</em> and <em>non-essential</em> cursors are MaxScore's
 * split (Turtle and Flood 1995); the block bounds are those of block-max WAND (Ding and Suel, SIGIR
 * 2011) and of Lucene's {@code MaxScoreBulkScorer}.
 */
package org.searchlab.mutable.postings;
