package org.searchlab.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Grouped hand-offs: one submission per executor per group, in order, nothing lost. */
class HandoffsTest {

  /** A single-thread executor that counts how often it is handed work and what ran where. */
  private static final class Loop implements java.util.concurrent.Executor, AutoCloseable {
    final ExecutorService thread = Executors.newSingleThreadExecutor();
    final AtomicInteger submissions = new AtomicInteger();
    final List<String> ran = java.util.Collections.synchronizedList(new ArrayList<>());
    volatile Thread runner;

    @Override
    public void execute(Runnable task) {
      submissions.incrementAndGet();
      thread.execute(
          () -> {
            runner = Thread.currentThread();
            task.run();
          });
    }

    Runnable record(String name) {
      return () -> ran.add(name + (Thread.currentThread() == runner ? "" : "@wrong-thread"));
    }

    void await() throws InterruptedException {
      thread.shutdown();
      assertTrue(thread.awaitTermination(10, TimeUnit.SECONDS));
    }

    @Override
    public void close() {
      thread.shutdownNow();
    }
  }

  private static final Runnable NEVER =
      () -> {
        throw new AssertionError("rejected");
      };

  @Test
  void outsideAGroupEachTaskIsSubmittedAtOnce() throws InterruptedException {
    try (Loop loop = new Loop()) {
      Handoffs.execute(loop, loop.record("a"), NEVER);
      Handoffs.execute(loop, loop.record("b"), NEVER);
      assertEquals(2, loop.submissions.get());
      loop.await();
      assertEquals(List.of("a", "b"), loop.ran);
    }
  }

  @Test
  void aGroupSubmitsOncePerExecutorAfterItsBodyInHandOffOrder() throws InterruptedException {
    try (Loop one = new Loop();
        Loop two = new Loop()) {
      Handoffs.grouped(
          () -> {
            for (int i = 0; i < 5; i++) {
              Handoffs.execute(one, one.record("one" + i), NEVER);
              Handoffs.execute(two, two.record("two" + i), NEVER);
            }
            // Nothing has left the writer's thread yet: the group submits when its body returns.
            assertEquals(0, one.submissions.get() + two.submissions.get());
            // A nested group joins the outer one instead of submitting on its own.
            Handoffs.grouped(() -> Handoffs.execute(one, one.record("nested"), NEVER));
            assertEquals(0, one.submissions.get());
          });
      assertEquals(1, one.submissions.get());
      assertEquals(1, two.submissions.get());
      one.await();
      two.await();
      assertEquals(List.of("one0", "one1", "one2", "one3", "one4", "nested"), one.ran);
      assertEquals(List.of("two0", "two1", "two2", "two3", "two4"), two.ran);
      // The group is closed: the next hand-off goes at once again.
      try (Loop three = new Loop()) {
        Handoffs.execute(three, three.record("x"), NEVER);
        assertEquals(1, three.submissions.get());
      }
    }
  }

  @Test
  void aFailingTaskDoesNotStopTheOthersAndTheGroupIsSubmittedEvenIfTheBodyThrows()
      throws InterruptedException {
    try (Loop loop = new Loop()) {
      List<Throwable> seen = java.util.Collections.synchronizedList(new ArrayList<>());
      assertThrows(
          IllegalStateException.class,
          () ->
              Handoffs.grouped(
                  () -> {
                    Handoffs.execute(loop, loop.record("before"), NEVER);
                    Handoffs.execute(
                        loop,
                        () -> {
                          try {
                            throw new IllegalArgumentException("task failed");
                          } catch (IllegalArgumentException e) {
                            seen.add(e);
                            throw e;
                          }
                        },
                        NEVER);
                    Handoffs.execute(loop, loop.record("after"), NEVER);
                    throw new IllegalStateException("body failed");
                  }));
      assertEquals(1, loop.submissions.get());
      loop.await();
      assertEquals(List.of("before", "after"), loop.ran);
      assertEquals(1, seen.size());
    }
  }

  @Test
  void aRefusedGroupRunsEveryTasksRejectionHandler() {
    ExecutorService stopped = Executors.newSingleThreadExecutor();
    stopped.shutdown();
    List<String> rejected = new ArrayList<>();
    Handoffs.grouped(
        () -> {
          Handoffs.execute(stopped, () -> rejected.add("ran!"), () -> rejected.add("a"));
          Handoffs.execute(stopped, () -> rejected.add("ran!"), () -> rejected.add("b"));
        });
    assertEquals(List.of("a", "b"), rejected);
    List<String> alone = new ArrayList<>();
    Handoffs.execute(stopped, () -> alone.add("ran!"), () -> alone.add("c"));
    assertEquals(List.of("c"), alone);
  }
}
