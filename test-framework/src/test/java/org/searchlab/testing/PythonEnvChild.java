package org.searchlab.testing;

import java.nio.file.Path;

/**
 * The other JVM of {@link PythonEnvTest}'s race: makes the environment of {@code args[1]} under the
 * cache folder {@code args[0]} once the parent says go, and prints its folder.
 */
public final class PythonEnvChild {
  private PythonEnvChild() {}

  public static void main(String[] args) throws Exception {
    System.out.println("ready");
    System.out.flush();
    if (System.in.read() < 0) {
      return; // the parent went away
    }
    PythonEnv env = PythonEnv.of("race", Path.of(args[1]), Path.of(args[0]));
    System.out.println(env.dir());
    System.out.flush();
  }
}
