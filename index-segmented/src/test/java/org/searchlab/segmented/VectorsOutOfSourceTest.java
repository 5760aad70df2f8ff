package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.Source;
import org.searchlab.core.mapping.DocumentParser;
import org.searchlab.core.mapping.IndexMapping;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.MappingJson;
import org.searchlab.core.mapping.ParsedDocument;
import org.searchlab.core.wal.OperationCodec;
import org.searchlab.testing.TestSeeds;

/**
 * Each vector is kept once (data format 3): out of the stored source, and in doc values only where
 * the indexed vector is not the vector as given ({@code cosine}, {@code index: false}); documents
 * still read back whole, and segments of format 2 (vectors in the source and in doc values for
 * every field) read the same. Query behaviour over these fields is the conformance suites' job.
 */
class VectorsOutOfSourceTest {
  @TempDir Path tmp;

  private static final String MAPPING =
      """
      {"properties": {
        "name": {"type": "keyword"},
        "dp": {"type": "dense_vector", "dims": 4, "similarity": "dot_product"},
        "l2": {"type": "dense_vector", "dims": 3, "similarity": "l2_norm",
               "index_options": {"type": "int8_hnsw"}},
        "cos": {"type": "dense_vector", "dims": 3, "similarity": "cosine"},
        "raw": {"type": "dense_vector", "dims": 2, "index": false},
        "obj": {"properties": {"v": {"type": "dense_vector", "dims": 3,
                                     "similarity": "max_inner_product"}}}
      }}
      """;

  private static Mapping mapping() throws IOException {
    return MappingJson.parse(new ObjectMapper().readTree(MAPPING), IndexSettings.DEFAULT);
  }

  private static float[] vector(SplittableRandom r, int dims, boolean unit) {
    float[] v = new float[dims];
    double norm = 0;
    for (int i = 0; i < dims; i++) {
      v[i] = (float) (r.nextDouble() * 2 - 1);
      norm += v[i] * v[i];
    }
    if (unit) {
      for (int i = 0; i < dims; i++) {
        v[i] = (float) (v[i] / Math.sqrt(norm));
      }
    }
    return v;
  }

  private static Document document(SplittableRandom r, int i) {
    Map<String, Object> source = new LinkedHashMap<>();
    source.put("name", "doc-" + i);
    source.put("dp", vector(r, 4, true));
    source.put("l2", vector(r, 3, false));
    source.put("cos", vector(r, 3, false));
    source.put("raw", vector(r, 2, false));
    source.put("obj", new LinkedHashMap<>(Map.of("v", vector(r, 3, false))));
    return new Document("d" + i, source);
  }

  @Test
  void documentsReadBackWholeWithEachVectorStoredOnce() throws IOException {
    long seed =
        TestSeeds.seed("VectorsOutOfSourceTest.documentsReadBackWholeWithEachVectorStoredOnce");
    SplittableRandom random = new SplittableRandom(seed);
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      docs.add(document(random, i));
    }
    Path dir = tmp.resolve("idx");
    try (SearchIndex index =
        LuceneSegmentedIndex.open(dir, IndexSettings.DEFAULT, mapping(), SegmentedConfig.DEFAULT)) {
      List<Operation> ops = new ArrayList<>();
      for (Document d : docs) {
        ops.add(Operation.put(d));
      }
      for (BulkItemResult r : index.bulk(ops)) {
        assertFalse(r.failed(), () -> String.valueOf(r.error()));
      }
      index.refresh();
      for (Document d : docs) {
        Document got = index.get(d.id()).orElseThrow();
        assertTrue(Source.deepEquals(d.source(), got.source()), d.id() + ": " + got.source());
      }
    }
    // Reopened: replay and the committed segments read the same.
    try (SearchIndex index =
        LuceneSegmentedIndex.open(dir, IndexSettings.DEFAULT, mapping(), SegmentedConfig.DEFAULT)) {
      for (Document d : docs) {
        Document got = index.get(d.id()).orElseThrow();
        assertTrue(Source.deepEquals(d.source(), got.source()), d.id() + ": " + got.source());
      }
    }
    try (FSDirectory lucene = FSDirectory.open(dir.resolve("index"));
        DirectoryReader reader = DirectoryReader.open(lucene)) {
      int seen = 0;
      for (LeafReaderContext leaf : reader.leaves()) {
        LeafReader r = leaf.reader();
        assertNotNull(r.getBinaryDocValues(MappedDocuments.VECTOR + "cos"), "cosine keeps DV");
        assertNotNull(r.getBinaryDocValues(MappedDocuments.VECTOR + "raw"), "index:false keeps DV");
        for (String asGiven : List.of("dp", "l2", "obj.v")) {
          assertNull(r.getBinaryDocValues(MappedDocuments.VECTOR + asGiven), asGiven);
          assertNotNull(r.getFloatVectorValues(asGiven), asGiven);
        }
        for (int doc = 0; doc < r.maxDoc(); doc++) {
          LuceneMapping.SourceVisitor visitor =
              new LuceneMapping.SourceVisitor(MappedDocuments.SOURCE);
          r.storedFields().document(doc, visitor);
          Document stored = OperationCodec.decodeDocument(visitor.source, 0, visitor.source.length);
          for (String path : List.of("dp", "l2", "cos", "raw", "obj.v")) {
            assertArrayEquals(new float[0], (float[]) stored.value(path), path);
          }
          seen++;
        }
      }
      assertEquals(docs.size(), seen);
    }
  }

  @Test
  void segmentsOfTheOlderFormatReadTheSame() throws IOException {
    long seed = TestSeeds.seed("VectorsOutOfSourceTest.segmentsOfTheOlderFormatReadTheSame");
    SplittableRandom random = new SplittableRandom(seed);
    Mapping m = mapping();
    MappedDocuments fields =
        new MappedDocuments(IndexMapping.inMemory(IndexSettings.DEFAULT, m), 1024);
    Document older = document(random, 0);
    Document newer = document(random, 1);
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory()) {
      try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig())) {
        // Format 2: the whole document in the stored source, every vector in doc values.
        ParsedDocument p = DocumentParser.parse(m, IndexSettings.DEFAULT.defaultAnalyzer(), older);
        org.apache.lucene.document.Document doc = MappedDocuments.toLucene(p);
        doc.removeField(MappedDocuments.SOURCE);
        doc.add(new StoredField(MappedDocuments.SOURCE, OperationCodec.encodeDocument(older)));
        for (String path : List.of("dp", "l2", "obj.v")) {
          doc.add(
              new BinaryDocValuesField(
                  MappedDocuments.VECTOR + path,
                  MappedDocuments.encode((float[]) older.value(path))));
        }
        w.addDocument(doc);
        w.commit();
        w.addDocument(fields.toLucene(newer));
        w.commit();
      }
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        assertEquals(2, reader.leaves().size());
        for (LeafReaderContext leaf : reader.leaves()) {
          LeafReader r = leaf.reader();
          Document got = fields.load(r, 0);
          Document expected = got.id().equals(older.id()) ? older : newer;
          assertTrue(Source.deepEquals(expected.source(), got.source()), got.source().toString());
          for (String path : List.of("dp", "l2", "cos", "raw", "obj.v")) {
            LeafVectors vectors = LeafVectors.open(r, path);
            assertNotNull(vectors, path);
            assertArrayEquals((float[]) expected.value(path), vectors.get(0), path);
            assertArrayEquals((float[]) expected.value(path), vectors.get(0), path + " again");
          }
        }
      }
    }
  }
}
