package org.searchlab.bench.crash;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.searchlab.distribution.serve.ServeCommand;
import org.searchlab.testing.disk.CrashImage;
import org.searchlab.testing.disk.DiskModel;
import org.searchlab.testing.disk.ForgetfulFileSystem;
import org.searchlab.testing.disk.PowerCut;
import org.searchlab.testing.disk.PowerLossCycles;
import picocli.CommandLine;

/**
 * The server child of {@code crashtest --power-loss}: {@code searchlab serve} with every path it is
 * given on a {@link ForgetfulFileSystem} over a real directory, so that the power can be cut under
 * it (issue 70, design note §2.4).
 *
 * <p>Arguments: the real directory the forgetful disk lies over, then serve's flags, whose {@code
 * --data-dir} lies inside that directory. A line {@code cut <seed> <image-dir>} on standard input
 * cuts the power with the cut {@link PowerLossCycles#chooseCut} draws from the seed, writes the
 * image to {@code image-dir} (a fresh directory), prints {@code cut-done <cut> <digest>} and halts
 * the JVM at once, as a power cut stops a machine: no shutdown hook runs. Any failure of the
 * control thread halts with status 3.
 *
 * <p>Not thread-safe in any useful sense: one per JVM, started by {@code main}.
 */
public final class PowerLossServerChild {
  private PowerLossServerChild() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 1) {
      System.err.println("usage: PowerLossServerChild DISK-DIR [serve flags]");
      System.exit(2);
    }
    ForgetfulFileSystem fs = ForgetfulFileSystem.over(Path.of(args[0]), DiskModel.Options.DEFAULT);
    Thread control = new Thread(() -> control(fs), "power-loss-control");
    control.setDaemon(true);
    control.start();
    CommandLine serve = new CommandLine(new ServeCommand());
    // Every path serve is given lies on the forgetful disk; paths outside its directory are only
    // read (the provider refuses writes there).
    serve.registerConverter(Path.class, s -> fs.getPath(s));
    System.exit(serve.execute(Arrays.copyOfRange(args, 1, args.length)));
  }

  private static void control(ForgetfulFileSystem fs) {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] f = line.trim().split(" ");
        if (f.length != 3 || !f[0].equals("cut")) {
          System.err.println("power-loss child: unknown command '" + line + "'");
          continue;
        }
        SplittableRandom random = new SplittableRandom(Long.parseLong(f[1]));
        PowerCut cut = PowerLossCycles.chooseCut(random);
        CrashImage image = fs.powerCut(cut, random);
        image.writeTo(Path.of(f[2]));
        System.out.println("cut-done " + cut + " " + image.digest());
        System.out.flush();
        Runtime.getRuntime().halt(0);
      }
    } catch (IOException | RuntimeException e) {
      e.printStackTrace();
      Runtime.getRuntime().halt(3);
    }
  }
}
