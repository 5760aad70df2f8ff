package org.searchlab.mutable;

import java.util.Arrays;
import java.util.List;
import org.searchlab.core.Hit;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Schema;
import org.searchlab.core.agg.AggregationSource;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.FieldValues;
import org.searchlab.core.query.MinimumShouldMatch;
import org.searchlab.core.query.Query;
import org.searchlab.mutable.attributes.AttributeStore;

/**
 * The product store's values for aggregations and sorts, from its attribute columns: one leaf, the
 * whole index by local id; {@code category} as the ordinals of the store's own category dictionary
 * (Vespa's enumerated attribute: no per-search dictionary is built), {@code price} as the integer
 * and {@code average_rating} as the float (widened to double, as {@link FieldValues} reads a float
 * field) the columns hold.
 *
 * <p>Every matching document's row of columns is read once, seqlock-consistent ({@link
 * AttributeStore#readRow}), when the source is made, and every aggregation, sort and filter of the
 * search reads that row: a writer moving a document to another category or price while the search
 * runs changes none of its values half-way, so the document is counted in exactly one category by
 * every aggregation of the search.
 *
 * <p>The store keeps a price and a rating for every document (0 when a document had none, as its
 * real-time get reports them), so every match has both values. Other fields have no values here:
 * the product mapping's other keyword, {@code id}, is not a column.
 *
 * <p>Not thread-safe: one per search, used inside its generation guard (top hits read the stored
 * document of a local id the guard keeps).
 */
final class ColumnAggregationSource implements AggregationSource {
  private final IndexParts parts;
  private final Mapping mapping;
  private final int maxDoc;
  private final int[] docs;
  private final int[] categories;
  private final int[] prices;
  private final float[] ratings;
  private final int count;
  private final CategoryDictionary dictionary;
  private final List<Leaf> leaves = List.of(new WholeIndex());

  /**
   * A source over the rows of the matches ({@link AttributeStore#readRow}), held in arrays beside
   * their local ids.
   *
   * @param maxDoc the ids' limit at the search's start
   * @param docs the matching local ids, ascending, in {@code [0, count)}
   * @param categories their category ordinals
   * @param prices their prices
   * @param ratings their ratings
   * @param count how many matches
   */
  ColumnAggregationSource(
      IndexParts parts,
      Mapping mapping,
      int maxDoc,
      int[] docs,
      int[] categories,
      int[] prices,
      float[] ratings,
      int count) {
    this.parts = parts;
    this.mapping = mapping;
    this.maxDoc = maxDoc;
    this.docs = docs;
    this.categories = categories;
    this.prices = prices;
    this.ratings = ratings;
    this.count = count;
    // Ordinals only grow and a name is published before any row can hold its ordinal: the
    // dictionary covers every row read above and every category known now.
    int size = parts.attributes.categoryCardinality();
    for (int i = 0; i < count; i++) {
      size = Math.max(size, categories[i] + 1);
    }
    this.dictionary = size == 0 ? null : new CategoryDictionary(size);
  }

  @Override
  public List<? extends Leaf> leaves() {
    return leaves;
  }

  @Override
  public KeywordDictionary dictionary(String field) {
    return field.equals(Schema.CATEGORY) ? dictionary : null;
  }

  /**
   * The store's category names by ordinal; a category no live document holds any more keeps its
   * ordinal (shown by {@code min_doc_count: 0} with a count of 0, as Elasticsearch's global
   * ordinals may still hold terms of deleted documents).
   */
  private final class CategoryDictionary implements KeywordDictionary {
    private final int size;

    CategoryDictionary(int size) {
      this.size = size;
    }

    @Override
    public long size() {
      return size;
    }

    @Override
    public String term(long ord) {
      return parts.attributes.categoryName((int) ord);
    }
  }

  /** The row of {@code doc}, or −1 when it is not a match; {@code from} is where to look first. */
  private int row(int doc, int from) {
    if (from < count && docs[from] == doc) {
      return from;
    }
    int lo = from < count && docs[from] < doc ? from : 0;
    int i = Arrays.binarySearch(docs, lo, count, doc);
    return i >= 0 ? i : -1;
  }

  /** A reader's position: read documents in increasing order and each lookup is a step. */
  private abstract class Cursor {
    int at;
    int row = -1;

    boolean position(int doc) {
      row = row(doc, at);
      if (row >= 0) {
        at = row + 1;
      }
      return row >= 0;
    }
  }

  private final class WholeIndex implements Leaf {
    @Override
    public int maxDoc() {
      return maxDoc;
    }

    @Override
    public OrdinalValues ordinals(String field) {
      if (!field.equals(Schema.CATEGORY) || dictionary == null) {
        return null;
      }
      final class Ordinals extends Cursor implements OrdinalValues {
        @Override
        public boolean advanceExact(int doc) {
          return position(doc) && categories[row] != AttributeStore.NO_CATEGORY;
        }

        @Override
        public int count() {
          return 1;
        }

        @Override
        public long ord(int i) {
          return categories[row];
        }
      }
      return new Ordinals();
    }

    @Override
    public NumericValues numbers(String field) {
      boolean price = field.equals(Schema.PRICE);
      if (!price && !field.equals(Schema.AVERAGE_RATING)) {
        return null;
      }
      final class Numbers extends Cursor implements NumericValues {
        @Override
        public boolean advanceExact(int doc) {
          return position(doc);
        }

        @Override
        public int count() {
          return 1;
        }

        @Override
        public long longValue(int i) {
          return price ? prices[row] : (long) ratings[row];
        }

        @Override
        public double doubleValue(int i) {
          return price ? prices[row] : (double) ratings[row];
        }
      }
      return new Numbers();
    }

    @Override
    public DocMatcher matcher(Query query) {
      int[] at = {0};
      return doc -> {
        int r = row(doc, at[0]);
        if (r < 0) {
          return false;
        }
        at[0] = r + 1;
        return matches(query, doc, r);
      };
    }

    @Override
    public Hit hit(int doc, float score) {
      return new Hit(parts.ids.external(doc), score, parts.document(doc));
    }
  }

  /**
   * Whether the document at {@code row} matches {@code q}, from its row of columns (and its id):
   * the queries a filter aggregation can ask of attributes. Text queries would need the postings,
   * which this source does not read; they are refused.
   */
  private boolean matches(Query q, int doc, int row) {
    return switch (q) {
      case Query.MatchAll a -> true;
      case Query.MatchNone n -> false;
      case Query.ConstantScore c -> matches(c.filter(), doc, row);
      case Query.Term t -> hasValue(t.field(), t.value(), row);
      case Query.Terms t -> t.values().stream().anyMatch(v -> hasValue(t.field(), v, row));
      case Query.Range r -> inRange(r, row);
      case Query.Exists e -> exists(e.field(), row);
      case Query.Ids i -> i.ids().contains(parts.ids.external(doc));
      case Query.Bool b -> bool(b, doc, row);
      case Query.DisMax d -> d.queries().stream().anyMatch(c -> matches(c, doc, row));
      case Query.Match m -> throw textQuery("match", m.field());
      case Query.MultiMatch m -> throw textQuery("multi_match", String.valueOf(m.fields()));
      case Query.ScriptScore s -> throw textQuery("script_score", "");
    };
  }

  private static InvalidRequestException textQuery(String type, String field) {
    return new InvalidRequestException(
        "a filter aggregation on the mutable store's product index reads its attribute columns"
            + " (category, price, average_rating) and ids; a ["
            + type
            + "] query on "
            + field
            + " is not supported there");
  }

  private boolean bool(Query.Bool b, int doc, int row) {
    for (Query c : b.must()) {
      if (!matches(c, doc, row)) {
        return false;
      }
    }
    for (Query c : b.filter()) {
      if (!matches(c, doc, row)) {
        return false;
      }
    }
    for (Query c : b.mustNot()) {
      if (matches(c, doc, row)) {
        return false;
      }
    }
    int matched = 0;
    for (Query c : b.should()) {
      if (matches(c, doc, row)) {
        matched++;
      }
    }
    int msm =
        b.minimumShouldMatch() != null
            ? MinimumShouldMatch.of(b.minimumShouldMatch(), b.should().size())
            : (b.must().isEmpty() && b.filter().isEmpty() && !b.should().isEmpty() ? 1 : 0);
    return matched >= msm;
  }

  private boolean hasValue(String field, Object value, int row) {
    FieldType f = mapping.leaf(field);
    checkColumn(field, f);
    Object v = FieldValues.termValue(f, field, value);
    return switch (field) {
      case Schema.CATEGORY -> v instanceof String s && s.equals(category(row));
      case Schema.PRICE -> v instanceof Long l && l == prices[row];
      case Schema.AVERAGE_RATING -> v instanceof Double d && d == (double) ratings[row];
      default -> false;
    };
  }

  private boolean inRange(Query.Range r, int row) {
    FieldType f = mapping.leaf(r.field());
    checkColumn(r.field(), f);
    return switch (FieldValues.range(f, r)) {
      case null -> false;
      case FieldValues.LongBounds b -> r.field().equals(Schema.PRICE) && b.contains(prices[row]);
      case FieldValues.DoubleBounds b ->
          r.field().equals(Schema.AVERAGE_RATING) && b.contains(ratings[row]);
      case FieldValues.StringBounds b ->
          r.field().equals(Schema.CATEGORY) && category(row) != null && b.contains(category(row));
      default -> false;
    };
  }

  private boolean exists(String field, int row) {
    checkColumn(field, mapping.leaf(field));
    return switch (field) {
      case Schema.CATEGORY -> categories[row] != AttributeStore.NO_CATEGORY;
      case Schema.PRICE, Schema.AVERAGE_RATING -> true;
      default -> false;
    };
  }

  /** Refuses a query on a text field: its values are in the postings, not in a column. */
  private static void checkColumn(String field, FieldType f) {
    if (f instanceof FieldType.Text) {
      throw textQuery("term", field);
    }
  }

  private String category(int row) {
    return parts.attributes.categoryName(categories[row]);
  }
}
