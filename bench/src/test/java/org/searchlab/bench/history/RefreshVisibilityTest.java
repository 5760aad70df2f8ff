package org.searchlab.bench.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.history.DocInput;
import org.searchlab.testing.history.DocOutput;
import org.searchlab.testing.history.Op;

/**
 * The search-after-refresh check on hand-made histories of one document {@code d0}: what it must
 * accept (anything at least as new as the writes acknowledged before the refresh) and what it must
 * flag (a state those writes replaced, a token no write carried, a write from the future).
 */
class RefreshVisibilityTest {
  private static final List<String> IDS = List.of("d0");

  private static Op<DocInput, DocOutput> put(String token, DocOutput.Result r, long from, long to) {
    return Op.ok(0, "d0", DocInput.put(Map.of("token", token)), DocOutput.of(r), from, to);
  }

  private static Op<DocInput, DocOutput> delete(long from, long to) {
    return Op.ok(0, "d0", DocInput.delete(), DocOutput.of(DocOutput.Result.DELETED), from, to);
  }

  /** A refresh over [r, r+1] and a search over [r+2, r+3] that shows d0 with a token, or absent. */
  private static RefreshVisibility.Search search(long r, String token) {
    Map<String, String> tokens = new HashMap<>();
    if (token != null) {
      tokens.put("d0", token);
    }
    return new RefreshVisibility.Search(1, r, r + 1, r + 2, r + 3, tokens);
  }

  private static RefreshVisibility.Result check(
      List<Op<DocInput, DocOutput>> ops, RefreshVisibility.Search s) {
    return RefreshVisibility.check(ops, List.of(s), IDS);
  }

  @Test
  void aSearchSeesTheLastWriteAcknowledgedBeforeTheRefresh() {
    var ops =
        List.of(put("a", DocOutput.Result.CREATED, 0, 1), put("b", DocOutput.Result.UPDATED, 2, 3));
    assertTrue(check(ops, search(10, "b")).ok());
    RefreshVisibility.Result stale = check(ops, search(10, "a"));
    assertEquals(1, stale.stale().size(), stale.toString());
    assertEquals(0, stale.phantom().size());
  }

  @Test
  void aWriteConcurrentWithTheRefreshNeedNotBeSeenButMayBe() {
    var ops =
        List.of(
            put("a", DocOutput.Result.CREATED, 0, 1), put("b", DocOutput.Result.UPDATED, 9, 12));
    assertTrue(check(ops, search(10, "a")).ok());
    assertTrue(check(ops, search(10, "b")).ok());
  }

  @Test
  void anIndeterminateWriteMayShowOrNot() {
    var ops =
        List.of(
            put("a", DocOutput.Result.CREATED, 0, 1),
            Op.<DocInput, DocOutput>indeterminate(0, "d0", DocInput.put(Map.of("token", "b")), 2));
    assertTrue(check(ops, search(10, "a")).ok());
    assertTrue(check(ops, search(10, "b")).ok());
  }

  @Test
  void anAcknowledgedCreateMustBeVisibleAndAnAcknowledgedDeleteMustHideIt() {
    var created = List.of(put("a", DocOutput.Result.CREATED, 0, 1));
    assertEquals(1, check(created, search(10, null)).stale().size());
    var deleted = List.of(put("a", DocOutput.Result.CREATED, 0, 1), delete(2, 3));
    assertTrue(check(deleted, search(10, null)).ok());
    assertEquals(1, check(deleted, search(10, "a")).stale().size());
    // Absent before any write is fine; so is absence by a delete concurrent with the refresh.
    assertTrue(check(List.of(), search(10, null)).ok());
    var racing = List.of(put("a", DocOutput.Result.CREATED, 0, 1), delete(9, 12));
    assertTrue(check(racing, search(10, null)).ok());
  }

  @Test
  void aTokenNoWriteCarriedOrAFutureWriteIsAPhantom() {
    var ops =
        List.of(
            put("a", DocOutput.Result.CREATED, 0, 1),
            Op.<DocInput, DocOutput>failed(0, "d0", DocInput.put(Map.of("token", "f")), 2, 3),
            Op.ok(
                0,
                "d0",
                DocInput.create(Map.of("token", "c")),
                DocOutput.of(DocOutput.Result.CONFLICT),
                4,
                5),
            put("late", DocOutput.Result.UPDATED, 20, 21));
    assertEquals(1, check(ops, search(10, "f")).phantom().size(), "a failed write's token");
    assertEquals(1, check(ops, search(10, "c")).phantom().size(), "a conflicting create's token");
    assertEquals(1, check(ops, search(10, "zz")).phantom().size(), "a token never sent");
    assertEquals(1, check(ops, search(10, "late")).phantom().size(), "a write after the search");
  }
}
