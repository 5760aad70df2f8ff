package org.searchlab.server.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The task registry: ids, the one-way move to finished, and the bounds on what it remembers. */
class TaskRegistryTest {
  @Test
  void tasksFinishOnceAndTheOldestFinishedAreForgotten() {
    TaskRegistry<String> r = new TaskRegistry<>(2);
    TaskRegistry.Task<String> a = r.register("act", "first");
    TaskRegistry.Task<String> b = r.register("act", "second");
    TaskRegistry.Task<String> c = r.register("act", "third");
    assertEquals(List.of(1L, 2L, 3L), List.of(a.id(), b.id(), c.id()));
    assertEquals(3, r.running().size());
    assertFalse(a.isDone());
    assertTrue(a.result().isEmpty() && a.failure().isEmpty());

    a.complete("done");
    a.fail(new RuntimeException("too late")); // the first outcome wins
    assertEquals("done", a.result().orElseThrow());
    assertTrue(a.failure().isEmpty());
    long ran = a.runningNanos();
    assertEquals(ran, a.runningNanos(), "a finished task's running time stays");
    assertTrue(a.whenDone().isDone());

    b.fail(new IllegalStateException("broke"));
    assertEquals("broke", b.failure().orElseThrow().getMessage());
    c.complete("ok");
    assertTrue(r.running().isEmpty());
    assertTrue(r.get(a.id()).isEmpty(), "three finished, two remembered: the oldest is gone");
    assertTrue(r.get(b.id()).isPresent() && r.get(c.id()).isPresent());
    assertTrue(r.get(99).isEmpty());

    TaskRegistry.Task<String> never = r.register("act", "refused by its executor");
    r.unregister(never);
    assertTrue(r.get(never.id()).isEmpty());
    never.complete("x"); // a late outcome of an unregistered task is not remembered
    assertTrue(r.get(never.id()).isEmpty());
  }

  @Test
  void runningTasksAreBounded() {
    TaskRegistry<String> r = new TaskRegistry<>(1);
    List<TaskRegistry.Task<String>> all = new ArrayList<>();
    for (int i = 0; i < TaskRegistry.MAX_RUNNING; i++) {
      all.add(r.register("a", "d"));
    }
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> r.register("a", "d"));
    assertTrue(e.getMessage().contains(Integer.toString(TaskRegistry.MAX_RUNNING)));
    all.get(0).complete("x");
    r.register("a", "d"); // room again
    assertThrows(IllegalArgumentException.class, () -> new TaskRegistry<String>(0));
  }
}
