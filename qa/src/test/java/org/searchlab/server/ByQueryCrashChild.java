package org.searchlab.server;

import java.nio.file.Path;

/**
 * The server {@link DeleteByQueryCrashTest} kills: both store kinds over the data folder in {@code
 * args[0]}, on a free port it prints as {@code port N}, serving until it is killed.
 */
public final class ByQueryCrashChild {
  private ByQueryCrashChild() {}

  public static void main(String[] args) throws Exception {
    SearchServer s = EsBatchApisTest.bothKinds(Path.of(args[0]));
    System.out.println("port " + s.port());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
