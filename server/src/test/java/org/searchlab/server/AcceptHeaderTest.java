package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Content negotiation between JSON and CBOR: qualities, the client's order, and 406 cases. */
class AcceptHeaderTest {
  private static final List<String> VESPA = List.of(ApiResponse.JSON, AcceptHeader.CBOR);
  private static final List<String> JSON_ONLY = List.of(ApiResponse.JSON);

  private static String choose(String accept, List<String> offered) {
    return AcceptHeader.choose(accept, offered).orElse("406");
  }

  @Test
  void noPreferenceGetsTheRoutesFirstType() {
    assertEquals(ApiResponse.JSON, choose(null, VESPA));
    assertEquals(ApiResponse.JSON, choose("  ", VESPA));
    assertEquals(ApiResponse.JSON, choose("*/*", VESPA));
    assertEquals(ApiResponse.JSON, choose("application/*", VESPA));
  }

  @Test
  void cborWhenAskedForAlone() {
    assertEquals(AcceptHeader.CBOR, choose("application/cbor", VESPA)); // pyvespa's query()
    assertEquals(AcceptHeader.CBOR, choose("Application/CBOR", VESPA));
    assertEquals("406", choose("application/cbor", JSON_ONLY));
  }

  @Test
  void qualitiesWinOverOrder() {
    assertEquals(ApiResponse.JSON, choose("application/cbor;q=0.5, application/json", VESPA));
    assertEquals(AcceptHeader.CBOR, choose("application/json;q=0.9, application/cbor", VESPA));
    assertEquals(AcceptHeader.CBOR, choose("application/json ; q=0.2,*/*;q=0.5", VESPA));
  }

  @Test
  void equalQualitiesGoToTheTypeListedFirst() {
    assertEquals(AcceptHeader.CBOR, choose("application/cbor, application/json", VESPA));
    assertEquals(ApiResponse.JSON, choose("application/json, application/cbor", VESPA));
    assertEquals(AcceptHeader.CBOR, choose("application/cbor, */*", VESPA));
    // Both only through */*: the route's own order.
    assertEquals(ApiResponse.JSON, choose("application/xml, */*;q=0.1", VESPA));
  }

  @Test
  void theMostSpecificRangeSetsTheQuality() {
    assertEquals(AcceptHeader.CBOR, choose("*/*, application/json;q=0", VESPA));
    assertEquals("406", choose("application/cbor;q=0, application/json;q=0, */*", VESPA));
    assertEquals(ApiResponse.JSON, choose("application/*;q=0.3, application/json", VESPA));
  }

  @Test
  void zeroQualityRefuses() {
    assertEquals("406", choose("application/cbor;q=0", VESPA));
    assertEquals("406", choose("application/json;q=0.0", JSON_ONLY));
    assertEquals("406", choose("*/*;q=0", VESPA));
  }

  @Test
  void typesNoEngineAnswersAreRefused() {
    assertEquals("406", choose("application/xml", VESPA));
    assertEquals("406", choose("image/png, application/xml;q=0.9", VESPA));
    assertEquals("406", choose("application/smile", JSON_ONLY));
  }

  @Test
  void jsonKeepsItsAliases() {
    assertEquals(
        ApiResponse.JSON,
        choose("application/vnd.elasticsearch+json; compatible-with=8", JSON_ONLY));
    assertEquals(ApiResponse.JSON, choose("application/x-ndjson", JSON_ONLY));
    assertEquals(ApiResponse.JSON, choose("text/plain;version=0.0.4", JSON_ONLY)); // Prometheus
    assertEquals(ApiResponse.JSON, choose("text/*", VESPA));
    // An alias is less specific than the type itself.
    assertEquals(
        AcceptHeader.CBOR, choose("application/json;q=0, text/plain, application/cbor", VESPA));
  }

  @Test
  void anUnreadableQualityCountsAsOne() {
    assertEquals(AcceptHeader.CBOR, choose("application/cbor;q=high, application/json", VESPA));
    assertEquals(Optional.of(ApiResponse.JSON), AcceptHeader.choose("application/json;q=7", VESPA));
  }
}
