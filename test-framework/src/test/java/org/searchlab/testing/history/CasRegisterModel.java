package org.searchlab.testing.history;

import java.util.OptionalInt;

/**
 * A compare-and-set register of integers, initially absent, as Jepsen's etcd test and Porcupine's
 * {@code etcdModel} define it: read answers the value (or nil), write sets it, {@code cas(from,
 * to)} sets {@code to} and answers ok when the value is {@code from}, else answers fail and changes
 * nothing. Stateless and thread-safe.
 */
final class CasRegisterModel
    implements Model<OptionalInt, CasRegisterModel.Input, CasRegisterModel.Output> {

  /** A call: {@code read}, {@code write(value)} or {@code cas(value, to)}. */
  record Input(Kind kind, int value, int to) {
    enum Kind {
      READ,
      WRITE,
      CAS
    }

    @Override
    public String toString() {
      return switch (kind) {
        case READ -> "read";
        case WRITE -> "write(" + value + ")";
        case CAS -> "cas(" + value + ", " + to + ")";
      };
    }
  }

  /**
   * An answer: what a read saw ({@code exists}, {@code value}), whether a cas succeeded ({@code
   * ok}); a write answers nothing.
   */
  record Output(boolean exists, int value, boolean ok) {
    static final Output WRITTEN = new Output(false, 0, true);

    @Override
    public String toString() {
      return exists ? Integer.toString(value) : ok ? "ok" : "nil/fail";
    }
  }

  @Override
  public OptionalInt init() {
    return OptionalInt.empty();
  }

  @Override
  public OptionalInt step(OptionalInt state, Input in, Output out) {
    return switch (in.kind()) {
      case READ -> {
        boolean same =
            out.exists() ? state.isPresent() && state.getAsInt() == out.value() : state.isEmpty();
        yield same ? state : null;
      }
      case WRITE -> OptionalInt.of(in.value());
      case CAS -> {
        boolean matches = state.isPresent() && state.getAsInt() == in.value();
        if (out.ok() != matches) {
          yield null;
        }
        yield matches ? OptionalInt.of(in.to()) : state;
      }
    };
  }

  @Override
  public OptionalInt apply(OptionalInt state, Input in) {
    return switch (in.kind()) {
      case READ -> state;
      case WRITE -> OptionalInt.of(in.value());
      case CAS ->
          state.isPresent() && state.getAsInt() == in.value() ? OptionalInt.of(in.to()) : state;
    };
  }
}
