package org.searchlab.core.wal;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * The child of {@link WriteAheadLogTest#survivesSigkill}: several threads append records under
 * {@code request} sync and print {@code ack <serial>} once each append has returned. Runs until
 * killed. Arguments: directory, seed.
 */
public final class WalCrashChild {
  private WalCrashChild() {}

  /** The payload of the record with this serial: derived from it, so replay can check it. */
  static byte[] payloadFor(long serial, long seed) {
    SplittableRandom r = new SplittableRandom(seed ^ serial * 0x9E3779B97F4A7C15L);
    byte[] b = new byte[16 + r.nextInt(4000)];
    r.nextBytes(b);
    byte[] tag = ("s" + serial + ";").getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(tag, 0, b, 0, tag.length);
    return b;
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long seed = Long.parseLong(args[1]);
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.US_ASCII);
    // 1 MiB files so a run crosses file boundaries too.
    WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.builder().fileBytes(1 << 20).build());
    long start = wal.lastSerial();
    out.println("ready " + start);
    out.flush();
    Object printLock = new Object();
    Runnable writer =
        () -> {
          try {
            while (true) {
              // The payload depends on the serial, which is only known inside write(); write a
              // placeholder-free record by reserving under our own lock instead.
              long serial;
              synchronized (WalCrashChild.class) {
                serial = wal.write(payloadFor(wal.lastSerial() + 1, seed));
              }
              wal.sync(serial);
              synchronized (printLock) {
                out.println("ack " + serial);
                out.flush();
              }
            }
          } catch (Exception e) {
            e.printStackTrace();
            System.exit(3);
          }
        };
    for (int t = 0; t < 4; t++) {
      Thread th = new Thread(writer, "writer-" + t);
      th.start();
    }
    Thread.sleep(Long.MAX_VALUE);
  }
}
