package org.searchlab.mutable.attributes;

import java.io.DataInput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.searchlab.core.Filter;
import org.searchlab.mutable.memory.PagedBits;
import org.searchlab.mutable.memory.PagedFloats;
import org.searchlab.mutable.memory.PagedInts;
import org.searchlab.mutable.memory.PagedRefs;

/**
 * The attribute columns: category ordinal (−1 for none) with one {@link PagedBits} per category,
 * price, average rating, and a seqlock counter per local id.
 *
 * <p>Thread safety: one writer; readers never lock. How an in-place update stays whole to readers,
 * step by step:
 *
 * <ol>
 *   <li>the writer makes the document's counter odd (volatile store), then a store-store fence;
 *   <li>it sets the new category's bit, writes the columns, clears the old category's bit;
 *   <li>it makes the counter even again with a release store;
 *   <li>a reader that needs more than one column ({@link #matches}) reads the counter (acquire),
 *       the columns, a load-load fence and the counter again, and retries if it was odd or moved.
 * </ol>
 *
 * A category bit is only a candidate: the ordinal column decides, so a document moving between
 * categories is seen in exactly one of them.
 */
public final class AttributeStore {
  /** The ordinal of "no category". */
  public static final int NO_CATEGORY = -1;

  private final ConcurrentHashMap<String, Integer> ordinals = new ConcurrentHashMap<>();
  private final PagedRefs<String> names = new PagedRefs<>();
  private final List<PagedBits> categoryBits = new ArrayList<>(); // writer appends
  private volatile PagedBits[] bitsByOrdinal = new PagedBits[0];
  private final PagedInts category = new PagedInts(NO_CATEGORY);
  private final PagedInts price = new PagedInts(0);
  private final PagedFloats rating = new PagedFloats(0f);
  private final PagedInts seq = new PagedInts(0);

  /** The ordinal of a category name, or −2 when no document ever had it. */
  public int ordinalOf(String name) {
    Integer o = ordinals.get(name);
    return o == null ? -2 : o;
  }

  /** The bits of a category ordinal (candidates only; confirm with {@link #category}). */
  public PagedBits bits(int ordinal) {
    return bitsByOrdinal[ordinal];
  }

  /** Documents currently holding a category (live or retired but not yet freed). */
  public int categoryCount(int ordinal) {
    return bitsByOrdinal[ordinal].cardinality();
  }

  public int category(int doc) {
    return category.get(doc);
  }

  public String categoryName(int ordinal) {
    return ordinal < 0 ? null : names.get(ordinal);
  }

  public int price(int doc) {
    return price.get(doc);
  }

  public float rating(int doc) {
    return rating.get(doc);
  }

  /** Writer only: the ordinal of a name, adding it to the dictionary if new. */
  private int ordinalFor(String name) {
    if (name == null) {
      return NO_CATEGORY;
    }
    Integer o = ordinals.get(name);
    if (o != null) {
      return o;
    }
    int next = categoryBits.size();
    categoryBits.add(new PagedBits());
    names.set(next, name);
    bitsByOrdinal = categoryBits.toArray(new PagedBits[0]);
    ordinals.put(name, next);
    return next;
  }

  /** Writer only: writes every column of a document that is not visible yet. */
  public void set(int doc, String categoryName, int priceValue, float ratingValue) {
    int ord = ordinalFor(categoryName);
    seq.ensure(doc);
    category.ensure(doc);
    price.set(doc, priceValue);
    rating.set(doc, ratingValue);
    int old = category.get(doc);
    if (ord != NO_CATEGORY) {
      bitsByOrdinal[ord].set(doc);
    }
    category.set(doc, ord);
    if (old >= 0 && old != ord) {
      bitsByOrdinal[old].clear(doc);
    }
  }

  /**
   * Writer only: assigns the given attributes of a live document in place (null = unchanged), as
   * one seqlock-protected change.
   */
  public void update(int doc, String categoryName, Integer priceValue, Float ratingValue) {
    write(
        doc,
        categoryName == null ? category.get(doc) : ordinalFor(categoryName),
        priceValue == null ? price.get(doc) : priceValue,
        ratingValue == null ? rating.get(doc) : ratingValue);
  }

  /**
   * Writer only: assigns every attribute of a live document in place, as one seqlock-protected
   * change; unlike {@link #update}, a null category means "no category" (a re-put's values).
   */
  public void assign(int doc, String categoryName, int priceValue, float ratingValue) {
    write(doc, ordinalFor(categoryName), priceValue, ratingValue);
  }

  /** The seqlock-protected write of {@link #update} and {@link #assign}. */
  private void write(int doc, int ord, int priceValue, float ratingValue) {
    int v = seq.get(doc);
    seq.setVolatile(doc, v + 1);
    VarHandle.storeStoreFence();
    int old = category.get(doc);
    if (ord >= 0) {
      bitsByOrdinal[ord].set(doc);
    }
    category.set(doc, ord);
    if (old >= 0 && old != ord) {
      bitsByOrdinal[old].clear(doc);
    }
    price.set(doc, priceValue);
    rating.set(doc, ratingValue);
    seq.setRelease(doc, v + 2);
  }

  /** Writer only: forgets a freed local id (clears its category bit). */
  public void clear(int doc) {
    int old = category.get(doc);
    if (old >= 0) {
      bitsByOrdinal[old].clear(doc);
    }
    category.set(doc, NO_CATEGORY);
  }

  /**
   * Whether the document passes {@code filter} given a resolved category ordinal ({@code
   * NO_CATEGORY} when the filter has no category). Lock-free; a filter on both category and price
   * reads them as one seqlock-consistent pair.
   */
  public boolean matches(int doc, Filter filter, int categoryOrdinal) {
    Filter.PriceRange range = filter.price();
    if (range == null) {
      return filter.category() == null || category.get(doc) == categoryOrdinal;
    }
    if (filter.category() == null) {
      return range.contains(price.get(doc));
    }
    while (true) {
      int v1 = seq.getAcquire(doc);
      int c = category.get(doc);
      int p = price.get(doc);
      VarHandle.loadLoadFence();
      int v2 = seq.get(doc);
      if ((v1 & 1) == 0 && v1 == v2) {
        return c == categoryOrdinal && range.contains(p);
      }
      Thread.onSpinWait();
    }
  }

  /**
   * Reads every column of a document as one seqlock-consistent row into {@code categories[at]},
   * {@code prices[at]} and {@code ratings[at]}: the values of one moment, never a category of one
   * write beside the price of another. Lock-free; for searches that read several columns of a
   * document more than once (aggregations), which then read this row instead of the columns.
   */
  public void readRow(int doc, int at, int[] categories, int[] prices, float[] ratings) {
    while (true) {
      int v1 = seq.getAcquire(doc);
      int c = category.get(doc);
      int p = price.get(doc);
      float r = rating.get(doc);
      VarHandle.loadLoadFence();
      int v2 = seq.get(doc);
      if ((v1 & 1) == 0 && v1 == v2) {
        categories[at] = c;
        prices[at] = p;
        ratings[at] = r;
        return;
      }
      Thread.onSpinWait();
    }
  }

  /**
   * The number of categories in the dictionary; lock-free (the names of these ordinals are
   * published before the count).
   */
  public int categoryCardinality() {
    return bitsByOrdinal.length;
  }

  public long ramBytesUsed() {
    long bytes =
        category.ramBytesUsed() + price.ramBytesUsed() + rating.ramBytesUsed() + seq.ramBytesUsed();
    for (PagedBits b : bitsByOrdinal) {
      bytes += b.ramBytesUsed();
    }
    return bytes + names.ramBytesUsed() + 64L * ordinals.size();
  }

  public void write(DataOutputStream out, int idLimit) throws IOException {
    PagedBits[] bits = bitsByOrdinal;
    out.writeInt(bits.length);
    for (int i = 0; i < bits.length; i++) {
      out.writeUTF(names.get(i));
    }
    category.write(out, idLimit);
    price.write(out, idLimit);
    rating.write(out, idLimit);
  }

  /** Reads into an empty store; {@code live} says which ids are documents (their bits are set). */
  public void read(DataInput in, java.util.function.IntPredicate live, int idLimit)
      throws IOException {
    int n = in.readInt();
    for (int i = 0; i < n; i++) {
      ordinalFor(in.readUTF());
    }
    category.read(in);
    price.read(in);
    rating.read(in);
    seq.ensure(Math.max(0, idLimit - 1));
    for (int d = 0; d < idLimit; d++) {
      int c = category.get(d);
      if (c >= 0) {
        if (live.test(d)) {
          bitsByOrdinal[c].set(d);
        } else {
          category.set(d, NO_CATEGORY);
        }
      }
    }
  }
}
