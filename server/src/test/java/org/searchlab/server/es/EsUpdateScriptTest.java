package org.searchlab.server.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.searchlab.server.ApiException;
import org.searchlab.server.Json;

/** The script subset of {@code _update_by_query}: what it assigns, and what it refuses. */
class EsUpdateScriptTest {
  private static JsonNode json(String s) throws Exception {
    return Json.MAPPER.readTree(s);
  }

  private static JsonNode parse(String scriptJson) throws Exception {
    return EsUpdateScript.parse(json(scriptJson));
  }

  @Test
  void assignmentsBecomeOnePartialSource() throws Exception {
    assertEquals(json("{\"price\":5}"), parse("\"ctx._source.price = 5\""));
    assertEquals(json("{\"price\":5}"), parse("\"ctx._source.price=5;\""));
    assertEquals(
        json("{\"a\":-1.5,\"b\":\"it's\",\"c\":\"x\",\"d\":true,\"e\":false,\"f\":null}"),
        parse(
            "\" ctx._source.a = -1.5; ctx._source.b = 'it\\\\'s' ;ctx._source.c=\\\"x\\\";"
                + " ctx._source.d = true; ctx._source.e = false; ctx._source.f = null \""));
    assertEquals(
        json("{\"flag\":{\"x\":[1,2]},\"meta\":{\"n\":3,\"tag\":\"t\"}}"),
        parse(
            "{\"source\":\"ctx._source.flag = params.v; ctx._source.meta.n = 3;"
                + " ctx._source.meta.tag = 't'\",\"lang\":\"painless\","
                + "\"params\":{\"v\":{\"x\":[1,2]}}}"));
  }

  @Test
  void otherConstructsAreRefusedByName() throws Exception {
    String[] refused = {
      "\"ctx._source.price += 1\"",
      "\"ctx._source.price = ctx._source.price + 1\"",
      "\"ctx.op = 'delete'\"",
      "\"ctx._source.price == 1\"",
      "\"ctx._source.title = 'open\"",
      "\"ctx._source.price = 1e999\"",
      "\"ctx._source.price = 1 2\"",
      "\"\"",
      "\";\"",
      "{\"source\":\"ctx._source.p = params.missing\",\"params\":{}}",
      "\"" + "ctx._source.p = 1;".repeat(65) + "\"",
      "\"ctx._source.t = '" + "x".repeat(EsUpdateScript.MAX_LENGTH) + "'\"",
    };
    for (String s : refused) {
      ApiException e = assertThrows(ApiException.class, () -> parse(s), s);
      assertEquals("script_exception", e.type(), s);
      assertEquals(400, e.status(), s);
      assertTrue(e.getMessage().length() < 2100, s);
    }
    ApiException at = assertThrows(ApiException.class, () -> parse("\"ctx._source.price += 1\""));
    assertTrue(at.getMessage().contains("position 18"), at.getMessage());
    for (String s :
        new String[] {
          "{\"source\":\"ctx._source.p = 1\",\"lang\":\"expression\"}", "{\"id\":\"stored\"}"
        }) {
      org.searchlab.core.InvalidRequestException e =
          assertThrows(org.searchlab.core.InvalidRequestException.class, () -> parse(s), s);
      assertEquals("illegal_argument_exception", e.type(), s);
    }
    for (String s : new String[] {"5", "{\"source\":5}", "{\"nope\":1}"}) {
      ApiException e = assertThrows(ApiException.class, () -> parse(s), s);
      assertEquals("parsing_exception", e.type(), s);
    }
  }
}
