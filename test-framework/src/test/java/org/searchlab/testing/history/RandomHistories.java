package org.searchlab.testing.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.searchlab.core.Source;

/**
 * Random small histories of one document, made from a real sequential run of the register: each
 * operation gets a linearization point 100 ns after the previous one and its output is what the
 * register answers there; then its interval is drawn around the point. Seeded by the caller; not
 * thread-safe (the random is).
 *
 * <p>Three shapes: {@link Shape#CONTAINED} intervals contain their points, so the history is
 * linearizable by construction; {@link Shape#JITTERED} intervals are shifted off their points, so
 * some histories are and some are not; {@link Shape#MUTATED} is contained with one output changed
 * to another, so most are not. Some operations fail (no effect) and some are indeterminate (applied
 * at their point or never, at random).
 */
final class RandomHistories {
  enum Shape {
    CONTAINED,
    JITTERED,
    MUTATED
  }

  record Generated(List<Op<DocInput, DocOutput>> history, Shape shape) {
    String describe() {
      StringBuilder sb = new StringBuilder(shape + ":\n");
      history.forEach(op -> sb.append("  ").append(op.describe()).append('\n'));
      return sb.toString();
    }
  }

  private static final String[] VALUES = {"a", "b", "c"};
  private static final String[] UPPER = {"A", "B", "C"};

  private RandomHistories() {}

  static Generated next(SplittableRandom random, String key, int maxOps) {
    int n = 1 + random.nextInt(maxOps);
    Shape shape = Shape.values()[random.nextInt(Shape.values().length)];
    Optional<Map<String, Object>> state = Optional.empty();
    List<Op<DocInput, DocOutput>> ops = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      long point = 100L * (i + 1);
      long invoked;
      long completed;
      if (shape == Shape.JITTERED) {
        invoked = point + random.nextLong(-120, 121);
        completed = invoked + random.nextLong(0, 150);
      } else {
        invoked = point - random.nextLong(0, 150);
        completed = point + random.nextLong(0, 150);
      }
      int client = random.nextInt(4);
      DocInput in = input(random);
      int roll = random.nextInt(20);
      if (roll == 0) {
        ops.add(Op.failed(client, key, in, invoked, completed));
      } else if (roll <= 2) {
        if (random.nextBoolean()) {
          state = DocOps.MODEL.apply(state, in);
        }
        ops.add(Op.indeterminate(client, key, in, invoked));
      } else {
        DocOutput out = answer(state, in, random);
        Optional<Map<String, Object>> after = DocOps.MODEL.step(state, in, out);
        if (after == null) {
          throw new AssertionError("the model refuses its own answer " + out + " to " + in);
        }
        state = after;
        ops.add(Op.ok(client, key, in, out, invoked, completed));
      }
    }
    if (shape == Shape.MUTATED) {
      List<Integer> answered = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (ops.get(i).outcome() == Op.Outcome.OK) {
          answered.add(i);
        }
      }
      if (!answered.isEmpty()) {
        int i = answered.get(random.nextInt(answered.size()));
        Op<DocInput, DocOutput> op = ops.get(i);
        DocOutput other;
        do {
          other = anyOutput(op.input(), random);
        } while (other.equals(op.output()));
        ops.set(i, withOutput(op, other));
      }
    }
    return new Generated(List.copyOf(ops), shape);
  }

  static Op<DocInput, DocOutput> withOutput(Op<DocInput, DocOutput> op, DocOutput output) {
    return Op.ok(op.client(), op.key(), op.input(), output, op.invoked(), op.completed());
  }

  private static DocInput input(SplittableRandom random) {
    String v = VALUES[random.nextInt(VALUES.length)];
    return switch (random.nextInt(10)) {
      case 0, 1, 2 -> DocInput.put(Map.of("v", v));
      case 3 -> DocInput.create(Map.of("v", v));
      case 4, 5 ->
          DocInput.update(
              random.nextBoolean() ? Map.of("v", v) : Map.of("w", UPPER[random.nextInt(3)]));
      case 6 -> DocInput.delete();
      default -> DocInput.get();
    };
  }

  /** What the register answers, written apart from {@link DocumentModel} to check it too. */
  private static DocOutput answer(
      Optional<Map<String, Object>> state, DocInput in, SplittableRandom random) {
    boolean present = state.isPresent();
    return switch (in.kind()) {
      case PUT -> DocOutput.of(present ? DocOutput.Result.UPDATED : DocOutput.Result.CREATED);
      case CREATE -> DocOutput.of(present ? DocOutput.Result.CONFLICT : DocOutput.Result.CREATED);
      case UPDATE -> {
        if (!present) {
          yield DocOutput.of(DocOutput.Result.NOT_FOUND);
        }
        boolean changes = !Source.merge(state.get(), in.fields()).equals(state.get());
        yield DocOutput.of(
            changes || random.nextBoolean() ? DocOutput.Result.UPDATED : DocOutput.Result.NOOP);
      }
      case DELETE -> DocOutput.of(present ? DocOutput.Result.DELETED : DocOutput.Result.NOT_FOUND);
      case GET -> state.map(DocOutput::found).orElse(DocOutput.notFound());
    };
  }

  /** Any output of the input's kind, right or wrong; each kind has at least two. */
  private static DocOutput anyOutput(DocInput in, SplittableRandom random) {
    return switch (in.kind()) {
      case PUT -> DocOutput.of(pick(random, DocOutput.Result.CREATED, DocOutput.Result.UPDATED));
      case CREATE ->
          DocOutput.of(pick(random, DocOutput.Result.CREATED, DocOutput.Result.CONFLICT));
      case UPDATE ->
          DocOutput.of(
              pick(
                  random,
                  DocOutput.Result.UPDATED,
                  DocOutput.Result.NOOP,
                  DocOutput.Result.NOT_FOUND));
      case DELETE ->
          DocOutput.of(pick(random, DocOutput.Result.DELETED, DocOutput.Result.NOT_FOUND));
      case GET ->
          switch (random.nextInt(4)) {
            case 0 -> DocOutput.notFound();
            case 1 -> DocOutput.found(Map.of("v", VALUES[random.nextInt(VALUES.length)]));
            case 2 -> DocOutput.found(Map.of("v", "a", "w", "B"));
            default -> DocOutput.found(Map.of("w", "C"));
          };
    };
  }

  @SafeVarargs
  private static <T> T pick(SplittableRandom random, T... choices) {
    return choices[random.nextInt(choices.length)];
  }
}
