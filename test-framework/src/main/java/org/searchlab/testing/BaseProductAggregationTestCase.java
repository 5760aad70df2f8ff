package org.searchlab.testing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Fusion;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.Query;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The conformance suite of aggregations and sorts ({@link AggregationTestCase}) over the
 * benchmark's product mapping ({@link Mapping#product}: {@code category} keyword, {@code price}
 * integer, {@code average_rating} float) and a {@link SyntheticCorpus} of products, with the
 * benchmark's request shapes only (best-fields text, exact kNN, hybrid by sum or reciprocal rank
 * fusion, the category and price filter), so that a store's product plans answer them. Prices are
 * made unique (the unique last sort key) and one document in 17 has no category. Every store
 * subclasses it and passes it unchanged.
 */
public abstract class BaseProductAggregationTestCase extends AggregationTestCase {
  protected static final int DIM = 32;
  private static final int PRICES = 20_011; // a prime: i · 7919 mod it is unique below it

  protected SyntheticCorpus corpus;

  @Override
  protected void makeCorpus(long seed) {
    // A small vocabulary, so that text queries match a good share of a few hundred documents.
    corpus =
        new SyntheticCorpus(seed, DIM, SyntheticCorpus.Params.builder().vocabulary(400).build());
  }

  @Override
  protected Mapping mapping() {
    return Mapping.product(DIM);
  }

  @Override
  protected IndexSettings settings() {
    return IndexSettings.DEFAULT;
  }

  @Override
  protected List<Document> documents(int n) {
    List<Document> docs = new ArrayList<>();
    int i = 0;
    for (Document d : corpus.documents(n)) {
      String category = i % 17 == 5 ? null : d.category();
      docs.add(product(d, d.id(), category, 1 + (int) ((i * 7919L) % PRICES)));
      i++;
    }
    return docs;
  }

  /**
   * Another document's fields with a unique price and its vector moved a little: an exact copy of a
   * vector would tie two documents at the k-th place of a kNN search, where which one is in the top
   * k is each engine's own choice (Lucene's lower doc id, the oracle's lower id).
   */
  @Override
  protected Document replacement(Document fields, String id, int i) {
    float[] v = fields.embedding().clone();
    v[i % v.length] += 0.01f * (1 + i % 7);
    return product(fields, id, fields.category(), 2 * PRICES + i, SyntheticCorpus.normalize(v));
  }

  private static Document product(Document d, String id, String category, int price) {
    return product(d, id, category, price, d.embedding());
  }

  private static Document product(
      Document d, String id, String category, int price, float[] vector) {
    return new Document(id, d.title(), d.description(), category, price, d.averageRating(), vector);
  }

  @Override
  protected String uniqueField() {
    return Schema.PRICE;
  }

  @Override
  protected String[] keywords() {
    return new String[] {Schema.CATEGORY};
  }

  @Override
  protected String[] numbers() {
    return new String[] {Schema.PRICE, Schema.AVERAGE_RATING};
  }

  @Override
  protected String[] sortable() {
    return new String[] {Schema.CATEGORY, Schema.PRICE, Schema.AVERAGE_RATING};
  }

  @Override
  protected String[] otherTermsFields() {
    return new String[] {Schema.PRICE, Schema.AVERAGE_RATING};
  }

  @Override
  protected String[] missingKeyword() {
    return new String[] {Schema.CATEGORY, "none"};
  }

  @Override
  protected String textField() {
    return Schema.TITLE;
  }

  @Override
  protected String dateField() {
    return null;
  }

  @Override
  protected Object[] rangeField() {
    return random.nextBoolean()
        ? new Object[] {Schema.PRICE, 24_000} // histogram intervals of 4,000 and 1,000
        : new Object[] {Schema.AVERAGE_RATING, 6};
  }

  /** One of the most frequent categories (the corpus draws them by a Zipf law). */
  private String category() {
    return corpus.categories().get(random.nextInt(Math.min(8, corpus.categories().size())));
  }

  private Filter filter() {
    return switch (random.nextInt(4)) {
      case 0 -> Filter.ALL;
      case 1 -> Filter.category(category());
      case 2 -> Filter.ALL.withPrice(new Filter.PriceRange(0, random.nextInt(PRICES)));
      default ->
          Filter.category(category())
              .withPrice(new Filter.PriceRange(random.nextInt(PRICES / 2), PRICES));
    };
  }

  @Override
  protected Query randomFilter() {
    return switch (random.nextInt(4)) {
      case 0 -> new Query.Term(Schema.CATEGORY, category(), 1f);
      case 1 ->
          new Query.Range(
              Schema.PRICE, null, random.nextInt(PRICES), null, random.nextInt(PRICES), null, 1f);
      case 2 -> new Query.Range(Schema.AVERAGE_RATING, null, 2.5, null, null, null, 1f);
      default ->
          new Query.Bool(
              List.of(),
              List.of(new Query.Term(Schema.CATEGORY, category(), 1f)),
              List.of(),
              List.of(new Query.Range(Schema.PRICE, null, null, 5000, null, null, 1f)),
              null,
              1f);
    };
  }

  @Override
  protected RandomSearch randomSearch(boolean sorted) {
    Filter filter = filter();
    String text = corpus.randomQueryText(random, 1 + random.nextInt(3));
    float[] vector = corpus.randomQueryVector(random);
    int k = 5 + random.nextInt(60);
    Fusion fusion = !sorted && random.nextBoolean() ? Fusion.RRF : Fusion.SUM;
    // kNN searches are exact (the oracle's): an approximate one may find other neighbours.
    return switch (random.nextInt(5)) {
      case 0 -> new RandomSearch(() -> SearchRequest.builder().filter(Filter.ALL), true);
      case 1 -> new RandomSearch(() -> SearchRequest.builder().filter(filter), true);
      case 2 -> new RandomSearch(() -> SearchRequest.builder().text(text).filter(filter), false);
      case 3 ->
          new RandomSearch(
              () ->
                  SearchRequest.builder()
                      .vector(vector)
                      .targetHits(k)
                      .filter(filter)
                      .approximate(false),
              false);
      default ->
          new RandomSearch(
              () ->
                  SearchRequest.builder()
                      .text(text)
                      .vector(vector)
                      .targetHits(k)
                      .filter(filter)
                      .fusion(fusion)
                      .approximate(false),
              false);
    };
  }

  /**
   * In-place attribute assignments (price, category, rating), deletes and re-puts of the same
   * documents, then every kind of aggregation against the oracle: the columns a store updates in
   * place and the values it aggregates must be the same ones.
   */
  @Test
  public void aggregationsSeeInPlaceUpdates() throws IOException {
    SearchIndex[] both = storeAndOracle(300);
    List<Document> docs = documents(300);
    for (SearchIndex index : both) {
      for (int i = 0; i < 300; i += 4) {
        PartialUpdate u = PartialUpdate.of(docs.get(i).id()).withPrice(3 * PRICES + i);
        if (i % 8 == 0) {
          u = u.withCategory(corpus.categories().get(i % 5));
        }
        if (i % 12 == 0) {
          u = u.with(Schema.AVERAGE_RATING, (double) ((i % 50) / 10f));
        }
        index.update(u);
      }
      for (int i = 1; i < 300; i += 9) {
        index.delete(docs.get(i).id());
      }
      for (int i = 2; i < 300; i += 11) {
        index.put(replacement(docs.get(i), docs.get(i).id(), i)); // same text: in place
      }
      index.refresh();
    }
    for (int round = 0; round < 20; round++) {
      SearchRequest r =
          randomSearch(false).start().get().hits(0).aggregations(randomAggs(0)).build();
      String where = "round " + round + " " + r;
      SearchResult[] wantGot = searchBoth(both, r, where);
      if (wantGot == null) {
        continue;
      }
      org.junit.jupiter.api.Assertions.assertEquals(wantGot[0].total(), wantGot[1].total(), where);
      assertAggs(wantGot[0].aggregations(), wantGot[1].aggregations(), where);
    }
  }
}
