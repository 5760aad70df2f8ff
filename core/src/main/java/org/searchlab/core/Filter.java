package org.searchlab.core;

/**
 * A pre-filter: an exact match on {@code category} and/or an inclusive range on {@code price}. The
 * neighbours of a filtered vector search all satisfy it. Use {@link #ALL} for "no filter"; a {@code
 * null} component inside means "this field is not constrained". Immutable.
 *
 * @param category the keyword a document's category must equal, or {@code null} (unconstrained)
 * @param price the inclusive price range, or {@code null} (unconstrained)
 */
public record Filter(String category, PriceRange price) {
  /** The filter that every document passes. */
  public static final Filter ALL = new Filter(null, null);

  public static Filter category(String category) {
    if (category == null) {
      throw new InvalidRequestException("category filter value is missing");
    }
    return new Filter(category, null);
  }

  public Filter withPrice(PriceRange range) {
    return new Filter(category, range);
  }

  /** True when every document passes. */
  public boolean isMatchAll() {
    return category == null && price == null;
  }

  /**
   * The filter as query clauses: a {@code term} on {@code category} and a {@code range} (both
   * bounds inclusive) on {@code price}; none for {@link #ALL}.
   */
  public java.util.List<org.searchlab.core.query.Query> toQueries() {
    java.util.List<org.searchlab.core.query.Query> out = new java.util.ArrayList<>(2);
    if (category != null) {
      out.add(org.searchlab.core.query.Query.Term.of(Schema.CATEGORY, category));
    }
    if (price != null) {
      out.add(
          new org.searchlab.core.query.Query.Range(
              Schema.PRICE, null, (long) price.min(), null, (long) price.max(), null, 1f));
    }
    return out;
  }

  /** The filter that {@link #toQueries} gave {@code clauses}, or empty for other clauses. */
  public static java.util.Optional<Filter> fromQueries(
      java.util.List<org.searchlab.core.query.Query> clauses) {
    String category = null;
    PriceRange price = null;
    for (org.searchlab.core.query.Query q : clauses) {
      if (q instanceof org.searchlab.core.query.Query.Term t
          && category == null
          && t.field().equals(Schema.CATEGORY)
          && t.boost() == 1f
          && t.value() instanceof String s) {
        category = s;
      } else if (q instanceof org.searchlab.core.query.Query.Range r
          && price == null
          && r.field().equals(Schema.PRICE)
          && r.gt() == null
          && r.lt() == null
          && r.format() == null
          && r.boost() == 1f
          && r.gte() instanceof Long min
          && r.lte() instanceof Long max
          && min >= Integer.MIN_VALUE
          && max <= Integer.MAX_VALUE) {
        price = new PriceRange((int) (long) min, (int) (long) max);
      } else {
        return java.util.Optional.empty();
      }
    }
    return java.util.Optional.of(new Filter(category, price));
  }

  /** Whether {@code doc} passes; the reference definition every store must agree with. */
  public boolean matches(Document doc) {
    if (category != null && !category.equals(doc.category())) {
      return false;
    }
    return price == null || price.contains(doc.price());
  }

  /**
   * An inclusive range of prices. Elasticsearch's exclusive bounds map onto it by ±1. A range with
   * {@code max < min} is empty and matches nothing, as Elasticsearch answers a range whose bounds
   * exclude every value (say {@code gt 2147483647} on an integer) with no hits, not an error.
   *
   * @param min the smallest accepted price
   * @param max the largest accepted price; below {@code min} for the empty range
   */
  public record PriceRange(int min, int max) {
    /** The range no price is in. */
    public static final PriceRange EMPTY = new PriceRange(1, 0);

    /** Whether no price is in this range. */
    public boolean isEmpty() {
      return max < min;
    }

    public boolean contains(int price) {
      return price >= min && price <= max;
    }
  }
}
