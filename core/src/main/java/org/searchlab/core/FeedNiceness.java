package org.searchlab.core;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Lowers the operating-system scheduling priority of the calling thread, as Vespa's {@code
 * feeding.niceness} does for a content node's feed threads: writes then take the cores that
 * searches leave idle, and a search never waits in the run queue behind a write. Niceness is a
 * number from 0.0 (as any other thread) to 1.0 (the nicest: Linux nice 19, about 1.5% of a core's
 * share against a nice-0 thread that wants it); values between map linearly to nice 0–19.
 *
 * <p>Only Linux threads can be given their own nice value (each is a task with its own id). The
 * call uses {@code setpriority(PRIO_PROCESS, gettid(), nice)} through JNA; raising a priority is
 * never attempted, so no privilege is needed. Elsewhere, or where the native call fails, the thread
 * keeps its priority, and the first failure is reported once on standard error.
 */
public final class FeedNiceness {
  private static final AtomicBoolean WARNED = new AtomicBoolean();

  private FeedNiceness() {}

  /** The glibc calls used. */
  interface LibC extends Library {
    int gettid();

    int setpriority(int which, int who, int prio);
  }

  private static final int PRIO_PROCESS = 0;

  private static final class Native_ {
    static final LibC LIBC = load();

    private static LibC load() {
      try {
        return Native.load("c", LibC.class);
      } catch (Throwable e) {
        warn("cannot load libc (" + e.getClass().getSimpleName() + ")");
        return null;
      }
    }
  }

  /**
   * Checks a niceness value.
   *
   * @throws InvalidRequestException unless it is within 0.0–1.0
   */
  public static double check(double niceness) {
    if (!(niceness >= 0.0 && niceness <= 1.0)) {
      throw new InvalidRequestException(
          "feed niceness must be within 0.0 (as searches) and 1.0 (nicest); got " + niceness);
    }
    return niceness;
  }

  /** The Linux nice value for a niceness in 0.0–1.0: 0 to 19. */
  public static int niceValue(double niceness) {
    return (int) Math.round(check(niceness) * 19);
  }

  /**
   * Gives the calling thread the nice value of {@code niceness} when that is lower priority than it
   * has; 0.0, or a thread already at that nice value or nicer, is left alone (a priority is never
   * raised: that would need privilege, and with it would override whoever niced the process).
   *
   * @return whether this call lowered the thread's priority
   */
  public static boolean applyToCurrentThread(double niceness) {
    int nice = niceValue(niceness);
    if (nice == 0 || currentThreadNice().orElse(Integer.MIN_VALUE) >= nice) {
      return false;
    }
    if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
      warn("thread niceness needs Linux");
      return false;
    }
    LibC libc = Native_.LIBC;
    if (libc == null) {
      return false;
    }
    try {
      int tid = libc.gettid();
      if (libc.setpriority(PRIO_PROCESS, tid, nice) != 0) {
        warn("setpriority failed with errno " + Native.getLastError());
        return false;
      }
      return true;
    } catch (Throwable e) {
      warn("setpriority failed (" + e.getClass().getSimpleName() + ")");
      return false;
    }
  }

  /**
   * The calling thread's nice value as the kernel reports it (field 19 of {@code
   * /proc/thread-self/stat}), or empty where that file does not exist.
   */
  public static OptionalInt currentThreadNice() {
    try {
      return OptionalInt.of(niceOf(Files.readString(Path.of("/proc/thread-self/stat"))));
    } catch (IOException | RuntimeException e) {
      return OptionalInt.empty();
    }
  }

  /**
   * The nice value in the text of a task's {@code /proc/.../stat} file (field 19).
   *
   * @throws RuntimeException if the text is not such a line
   */
  public static int niceOf(String stat) {
    // The command name (field 2) is in parentheses and may hold spaces: count after its ')'.
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Integer.parseInt(f[19 - 3]);
  }

  /** {@code body}, first lowering the priority of the thread it runs on. */
  public static Runnable niced(double niceness, Runnable body) {
    check(niceness);
    return () -> {
      applyToCurrentThread(niceness);
      body.run();
    };
  }

  private static void warn(String why) {
    if (WARNED.compareAndSet(false, true)) {
      System.err.println("searchlab: feed niceness not applied: " + why);
    }
  }
}
