package org.searchlab.bench.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code searchlab jmh [regex]}: runs the JMH suite ({@code org.searchlab.bench.jmh}) through
 * {@code org.openjdk.jmh.Main}, passing the regex and any JMH options after {@code --}.
 */
@Command(
    name = "jmh",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the JMH microbenchmarks whose names match the regex (default: all of"
          + " org.searchlab.bench.jmh). JMH options follow '--', e.g. -- -f 1 -wi 2 -i 3.",
      "Benchmarks: DistanceBenchmark, HnswSearchBenchmark, LexicalTopTenBenchmark,"
          + " PartialUpdateBenchmark, BulkPutBenchmark, and the segmented ones."
    })
final class JmhCommand implements Callable<Integer> {
  @Parameters(index = "0", arity = "0..1", description = "Benchmark name regex.")
  String regex;

  @Parameters(index = "1..*", arity = "0..*", description = "JMH options (after --).")
  List<String> jmhOptions = new ArrayList<>();

  @Option(names = "--list", description = "List the matching benchmarks and exit.")
  boolean list;

  @Override
  public Integer call() throws Exception {
    List<String> args = new ArrayList<>();
    args.add(regex == null ? "org\\.searchlab\\.bench\\.jmh\\..*" : regex);
    if (list) {
      args.add("-l");
    }
    // The forked benchmark JVMs' own flags, instead of JMH's default of copying this JVM's: the
    // launcher runs its commands with assertions on (-ea), and a fork that inherited them measured
    // every assert of Lucene's and ours (Lucene's postings check each block's order with a stream
    // in VectorUtil.findNextGEQ: 17% of a faceted segmented search's time), which the servers
    // never run. Given as -jvmArgs, not -jvmArgsAppend, so that each benchmark's @Fork flags (its
    // heap) still apply. The SIMD module and huge pages as every other searchlab JVM has them.
    if (!jmhOptions.contains("-jvmArgs")) {
      List<String> fork =
          new ArrayList<>(
              List.of(
                  "--add-modules",
                  "jdk.incubator.vector",
                  "--enable-native-access=ALL-UNNAMED",
                  "-Djava.awt.headless=true",
                  "-da"));
      fork.addAll(org.searchlab.bench.report.HugePages.childFlags());
      args.addAll(List.of("-jvmArgs", String.join(" ", fork)));
    }
    args.addAll(jmhOptions);
    org.openjdk.jmh.Main.main(args.toArray(String[]::new));
    return 0;
  }
}
