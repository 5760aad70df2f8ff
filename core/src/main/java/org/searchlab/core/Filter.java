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
