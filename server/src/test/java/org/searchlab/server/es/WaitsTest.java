package org.searchlab.server.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.searchlab.server.ApiException;

/** Waits: polls until a condition or a timeout, bounded in number, all answered at close. */
class WaitsTest {
  @Test
  void aPollEndsWhenItsConditionHoldsOrItsTimeoutRunsOut() throws Exception {
    try (Waits w = new Waits(4, Duration.ofMillis(5))) {
      AtomicInteger reads = new AtomicInteger();
      CompletableFuture<Integer> f =
          w.poll(reads::incrementAndGet, v -> v >= 3, Duration.ofSeconds(30));
      assertEquals(3, f.get(10, TimeUnit.SECONDS));
      CompletableFuture<Integer> never = w.poll(() -> 0, v -> v > 0, Duration.ofMillis(30));
      assertEquals(0, never.get(10, TimeUnit.SECONDS), "the last value read, at the timeout");
      assertTrue(w.poll(() -> 1, v -> false, Duration.ZERO).isDone(), "a zero timeout reads once");

      CompletableFuture<String> event = new CompletableFuture<>();
      CompletableFuture<Void> until = w.until(event, Duration.ofSeconds(30));
      assertFalse(until.isDone());
      event.complete("x");
      until.get(10, TimeUnit.SECONDS);
      w.until(new CompletableFuture<>(), Duration.ofMillis(20)).get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void waitsAreBoundedAndCloseAnswersThem() throws Exception {
    Waits w = new Waits(2, Duration.ofMillis(5));
    CompletableFuture<Integer> a = w.poll(() -> 0, v -> false, Duration.ofMinutes(1));
    CompletableFuture<Void> b = w.until(new CompletableFuture<>(), Duration.ofMinutes(1));
    ApiException full =
        assertThrows(ApiException.class, () -> w.poll(() -> 0, v -> false, Duration.ofMinutes(1)));
    assertEquals(429, full.status());
    w.close();
    for (CompletableFuture<?> f : java.util.List.of(a, b)) {
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
      assertEquals(503, ((ApiException) e.getCause()).status());
    }
    ApiException closed =
        assertThrows(
            ApiException.class, () -> w.until(new CompletableFuture<>(), Duration.ofMinutes(1)));
    assertEquals(
        503, closed.status(), "a slot freed by close, then refused by the stopped scheduler");
  }
}
