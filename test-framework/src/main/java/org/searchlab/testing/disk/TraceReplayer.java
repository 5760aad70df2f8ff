package org.searchlab.testing.disk;

import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * Rebuilds the crash states of a recorded {@link FsTrace} from the trace alone: a fresh in-memory
 * {@link DiskModel} applies the trace's operations one by one, with no live files, and at any
 * prefix gives the {@link CrashImage} a {@link CrashState} names (design note of issue 70, §4.2).
 *
 * <p>Walking forward is cheap (each operation once); an earlier prefix starts again from the empty
 * disk. So visit states in the order of their prefixes, as {@link CrashStates#all} lists them.
 *
 * <p>Not thread-safe: one walk per replayer.
 */
public final class TraceReplayer {
  private final List<FsOp> ops;
  private final DiskModel.Options options;
  private DiskModel model;
  private int position;

  /**
   * A replayer of {@code trace} under {@code options}, which must be those it was recorded with
   * where they change durability ({@code fsyncPersistsOwnEntry}, {@code ignored}).
   */
  public TraceReplayer(FsTrace trace, DiskModel.Options options) {
    this.ops = trace.ops();
    this.options = Objects.requireNonNull(options, "options");
    restart();
  }

  /** The image crash state {@code s} of {@code trace} leaves, replayed from nothing. */
  public static CrashImage image(FsTrace trace, DiskModel.Options options, CrashState s) {
    return new TraceReplayer(trace, options).image(s);
  }

  /** How many operations the trace holds. */
  public int size() {
    return ops.size();
  }

  /** How many operations have been applied: the prefix the model stands at. */
  public int position() {
    return position;
  }

  /** The image {@code s} leaves, after bringing the model to its prefix. */
  public CrashImage image(CrashState s) {
    advanceTo(s.prefix());
    return model.image(s);
  }

  /**
   * The fingerprint of the image {@code s} leaves ({@link DiskModel#fingerprint}), after bringing
   * the model to its prefix: equal for equal images, and much cheaper than {@link #image} when a
   * moment has many states, since files no state of the moment changes are hashed once.
   */
  public String fingerprint(CrashState s) {
    advanceTo(s.prefix());
    return model.fingerprint(s);
  }

  /** Brings the model to {@code prefix}: forward from here, or from the empty disk if earlier. */
  public void advanceTo(int prefix) {
    if (prefix > ops.size()) {
      throw new IllegalArgumentException(
          "prefix " + prefix + " is past the trace's " + ops.size() + " operations");
    }
    if (prefix < position) {
      restart();
    }
    while (position < prefix) {
      apply(ops.get(position));
      position++;
    }
  }

  /** The model at {@link #position()}, for {@link CrashStates} to read what is pending. */
  DiskModel model() {
    return model;
  }

  private void restart() {
    model = new DiskModel(options);
    position = 0;
  }

  private void apply(FsOp op) {
    try {
      switch (op) {
        case FsOp.Write w -> model.write(w.inode(), w.offset(), w.bytes());
        case FsOp.Truncate t -> model.truncate(t.inode(), t.size());
        case FsOp.Force f -> model.force(f.inode());
        case FsOp.Create c -> inStep(op, model.create(c.dir(), c.name()), c.inode());
        case FsOp.Mkdir m -> inStep(op, model.mkdir(m.dir(), m.name()), m.inode());
        case FsOp.Rename r -> {
          inStep(op, model.lookup(r.fromDir(), r.from()), r.inode());
          inStep(op, model.lookup(r.toDir(), r.to()), r.replaced());
          model.rename(r.fromDir(), r.from(), r.toDir(), r.to());
        }
        case FsOp.Unlink u -> {
          inStep(op, model.lookup(u.dir(), u.name()), u.inode());
          model.unlink(u.dir(), u.name());
        }
        case FsOp.DirForce d -> model.forceDirectory(d.dir());
        case FsOp.Marker m -> {}
      }
    } catch (IOException e) {
      throw new IllegalStateException("a replayed disk never loses power: " + op, e);
    }
  }

  /** Checks that the replay's inode is the recorded one: the trace started on an empty disk. */
  private static void inStep(FsOp op, long replayed, long recorded) {
    if (replayed != recorded) {
      throw new IllegalStateException(
          "the replay is out of step with the trace at " + op + ": inode " + replayed);
    }
  }
}
