package org.searchlab.server.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.SearchRequest;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.Json;

/**
 * {@code knn.rescore_vector.oversample}, as Elasticsearch reads it: the window rescored by the
 * floats is {@code ceil(k × oversample)}, the value lies in [1, 10], and absent it the store's own
 * oversample applies (window 0).
 */
class EsRescoreVectorTest {
  private static SearchRequest parse(String knnExtra) throws Exception {
    String body =
        "{\"size\":10,\"knn\":{\"field\":\"embedding\",\"query_vector\":[0.6,0.8],\"k\":15,"
            + "\"num_candidates\":40"
            + knnExtra
            + "}}";
    ApiRequest r =
        new ApiRequest(
            HttpMethod.POST,
            "/product/_search",
            Map.of(),
            new DefaultHttpHeaders(),
            Unpooled.EMPTY_BUFFER);
    return EsSearchParser.parse(Json.MAPPER.readTree(body), r).request();
  }

  private static String refused(String knnExtra) {
    Exception e = assertThrows(Exception.class, () -> parse(knnExtra));
    return e.getMessage();
  }

  @Test
  void oversampleSetsTheWindowToCeilOfKTimesOversample() throws Exception {
    assertEquals(0, parse("").rescoreWindow(), "absent: the store's own oversample");
    assertEquals(45, parse("").rescoreWindow(3), "the store's 3 × k 15");
    assertEquals(15, parse(",\"rescore_vector\":{\"oversample\":1}").rescoreWindow());
    assertEquals(23, parse(",\"rescore_vector\":{\"oversample\":1.5}").rescoreWindow());
    assertEquals(150, parse(",\"rescore_vector\":{\"oversample\":10}").rescoreWindow());
    SearchRequest r = parse(",\"rescore_vector\":{\"oversample\":2}");
    assertEquals(30, r.rescoreWindow(3), "the request's window wins over the store's");
    assertEquals(40, r.candidates(), "num_candidates is unchanged");
  }

  @Test
  void badOversampleNamesTheValueAndTheLimit() {
    String tooBig = refused(",\"rescore_vector\":{\"oversample\":11}");
    assertTrue(tooBig.contains("11") && tooBig.contains("[1, 10]"), tooBig);
    String tooSmall = refused(",\"rescore_vector\":{\"oversample\":0.5}");
    assertTrue(tooSmall.contains("0.5") && tooSmall.contains("[1, 10]"), tooSmall);
    String zero = refused(",\"rescore_vector\":{\"oversample\":0}");
    assertTrue(zero.contains("not supported"), zero);
    String text = refused(",\"rescore_vector\":{\"oversample\":\"2\"}");
    assertTrue(text.contains("must be a number"), text);
    String extra = refused(",\"rescore_vector\":{\"oversample\":2,\"x\":1}");
    assertTrue(extra.contains("exactly one key"), extra);
    String missing = refused(",\"rescore_vector\":{}");
    assertTrue(missing.contains("exactly one key"), missing);
  }
}
