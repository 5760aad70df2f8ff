package org.searchlab.segmented;

import java.io.IOException;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;

/**
 * How the writer and the searcher turn documents into Lucene documents and back: the benchmark's
 * fixed fields ({@link ProductDocuments}) or whatever an index's mapping says ({@link
 * MappedDocuments}). Implementations are thread-safe.
 */
interface DocumentFields {
  /**
   * Checks an operation before anything is logged and returns the operation to log and apply (a
   * put's document as its mapping reads it).
   *
   * @throws org.searchlab.core.InvalidRequestException for bad input
   */
  Operation prepare(Operation op) throws IOException;

  /** A partial update's result, read against the mapping as a put's document is. */
  Document reparse(Document after) throws IOException;

  /** The Lucene document of a document {@link #prepare} (or an earlier run of it) accepted. */
  org.apache.lucene.document.Document toLucene(Document d);

  /** The indexed, stored field holding the external id. */
  String idField();

  default Term idTerm(String id) {
    return new Term(idField(), id);
  }

  /** Reads one document back from its segment. */
  Document load(LeafReader reader, int doc) throws IOException;

  /**
   * The doc values a partial update of {@code current} rewrites in place ({@code IndexWriter
   * .updateDocValues}) when that is all it changes in the index, or null when it must re-index.
   */
  org.apache.lucene.document.Field[] inPlace(org.searchlab.core.PartialUpdate u, Document current);

  /** The live document with this id in {@code reader}, or null. */
  default Document find(IndexReader reader, String id) throws IOException {
    BytesRef term = new BytesRef(id);
    // Newest segments last: an id lives in at most one live document, so the order only matters
    // for speed, and recently updated documents sit in the newest segments.
    for (int i = reader.leaves().size() - 1; i >= 0; i--) {
      LeafReaderContext leaf = reader.leaves().get(i);
      Terms terms = leaf.reader().terms(idField());
      if (terms == null) {
        continue;
      }
      TermsEnum te = terms.iterator();
      if (!te.seekExact(term)) {
        continue;
      }
      PostingsEnum postings = te.postings(null, PostingsEnum.NONE);
      Bits live = leaf.reader().getLiveDocs();
      for (int doc = postings.nextDoc();
          doc != DocIdSetIterator.NO_MORE_DOCS;
          doc = postings.nextDoc()) {
        if (live == null || live.get(doc)) {
          return load(leaf.reader(), doc);
        }
      }
    }
    return null;
  }
}
