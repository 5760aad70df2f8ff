package org.searchlab.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.core.Document;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.Query;
import org.searchlab.testing.data.CatalogCorpus;

/**
 * The conformance suite of aggregations and sorts ({@link AggregationTestCase}) over the {@link
 * CatalogCorpus} mapping: keyword arrays, integers, doubles, floats, a date, a boolean, object
 * fields and dynamically mapped ones. Every store subclasses it and passes it unchanged.
 */
public abstract class BaseAggregationTestCase extends AggregationTestCase {
  private static final String[] KEYWORDS = {"brand", "tags", "meta.origin", "label.keyword"};
  private static final String[] NUMBERS = {"stock", "weight", "rating", "meta.rank", "extra.score"};
  // Fields every corpus of a few hundred documents maps (the dynamic ones may be absent).
  private static final String[] SORTABLE = {
    "brand",
    "tags",
    "meta.origin",
    "stock",
    "weight",
    "rating",
    "meta.rank",
    "released",
    "available"
  };

  protected CatalogCorpus corpus;

  @Override
  protected void makeCorpus(long seed) {
    corpus = new CatalogCorpus(seed);
  }

  @Override
  protected Mapping mapping() {
    return CatalogCorpus.mapping();
  }

  @Override
  protected IndexSettings settings() {
    return CatalogCorpus.settings();
  }

  @Override
  protected List<Document> documents(int n) {
    // meta.rank made unique (the corpus draws it at random, so two documents may share one).
    List<Document> docs = new ArrayList<>();
    int i = 0;
    for (Document d : corpus.documents(n)) {
      docs.add(withRank(d, d.id(), (i++ * 104_729L) % 1_000_003L));
    }
    return docs;
  }

  @Override
  protected Document replacement(Document fields, String id, int i) {
    return withRank(fields, id, 2_000_000L + i);
  }

  private static Document withRank(Document d, String id, long rank) {
    Map<String, Object> source = new LinkedHashMap<>(d.source());
    @SuppressWarnings("unchecked")
    Map<String, Object> meta = new LinkedHashMap<>((Map<String, Object>) source.get("meta"));
    meta.put("rank", rank);
    source.put("meta", meta);
    return new Document(id, source);
  }

  @Override
  protected String uniqueField() {
    return "meta.rank";
  }

  @Override
  protected String[] keywords() {
    return KEYWORDS;
  }

  @Override
  protected String[] numbers() {
    return NUMBERS;
  }

  @Override
  protected String[] sortable() {
    return SORTABLE;
  }

  @Override
  protected String[] otherTermsFields() {
    return new String[] {"stock", "available", "released", "rating"};
  }

  @Override
  protected String[] missingKeyword() {
    return new String[] {"tags", "untagged"};
  }

  @Override
  protected String textField() {
    return "body";
  }

  @Override
  protected String dateField() {
    return "released";
  }

  @Override
  protected Object[] rangeField() {
    return new Object[] {random.nextBoolean() ? "weight" : "stock", 60};
  }

  @Override
  protected Query randomFilter() {
    return switch (random.nextInt(3)) {
      case 0 -> new Query.Term("tags", pick(CatalogCorpus.TAGS), 1f);
      case 1 -> new Query.Term("brand", pick(CatalogCorpus.BRANDS), 1f);
      default -> new Query.Range("weight", null, 10.0, 50.0, null, null, 1f);
    };
  }

  @Override
  protected RandomSearch randomSearch(boolean sorted) {
    Query q =
        switch (random.nextInt(5)) {
          case 0 -> Query.MatchAll.INSTANCE;
          case 1 -> Query.Match.of("body", corpus.text(random, 2));
          case 2 -> new Query.Term("brand", pick(CatalogCorpus.BRANDS), 1f);
          case 3 ->
              new Query.Range("stock", null, (long) random.nextInt(200), null, null, null, 1f);
          default -> Query.Match.of("name", corpus.text(random, 1));
        };
    return new RandomSearch(() -> SearchRequest.builder().query(q), !(q instanceof Query.Match));
  }
}
