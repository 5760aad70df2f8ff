package org.searchlab.testing.history;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a Jepsen etcd log of Porcupine's test data ({@code test_data/jepsen/etcd_NNN.log}) into a
 * history of {@link CasRegisterModel} operations, as Porcupine's {@code parseJepsenLog} does: a
 * line's number is its time; {@code :ok} completes the process's pending call, and {@code :fail
 * :cas} is an answered cas that did not match; {@code :fail :read :timed-out} observed nothing
 * (left out, where Porcupine gives it an unknown output: the same thing for a read); {@code :info}
 * leaves the call pending, and every call still pending at the end is indeterminate (Jepsen gives
 * the crashed process a new number). Any other line is refused. Stateless.
 */
final class JepsenEtcdLog {
  private static final String PREFIX = "^INFO\\s+jepsen\\.util\\s+-\\s+(\\d+)\\s+";
  private static final Pattern INVOKE_READ = Pattern.compile(PREFIX + ":invoke\\s+:read\\s+nil$");
  private static final Pattern INVOKE_WRITE =
      Pattern.compile(PREFIX + ":invoke\\s+:write\\s+(\\d+)$");
  private static final Pattern INVOKE_CAS =
      Pattern.compile(PREFIX + ":invoke\\s+:cas\\s+\\[(\\d+)\\s+(\\d+)\\]$");
  private static final Pattern OK_READ = Pattern.compile(PREFIX + ":ok\\s+:read\\s+(nil|\\d+)$");
  private static final Pattern OK_WRITE = Pattern.compile(PREFIX + ":ok\\s+:write\\s+(\\d+)$");
  private static final Pattern DONE_CAS =
      Pattern.compile(PREFIX + ":(ok|fail)\\s+:cas\\s+\\[(\\d+)\\s+(\\d+)\\]$");
  private static final Pattern TIMED_OUT_READ =
      Pattern.compile(PREFIX + ":fail\\s+:read\\s+:timed-out$");
  private static final Pattern INFO = Pattern.compile(PREFIX + ":info\\s+.*$");

  private JepsenEtcdLog() {}

  private record Pending(CasRegisterModel.Input input, long invoked) {}

  static List<Op<CasRegisterModel.Input, CasRegisterModel.Output>> read(String resource) {
    try (InputStream in = JepsenEtcdLog.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no resource [" + resource + "]");
      }
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      return parse(reader.lines().toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<Op<CasRegisterModel.Input, CasRegisterModel.Output>> parse(List<String> lines) {
    List<Op<CasRegisterModel.Input, CasRegisterModel.Output>> ops = new ArrayList<>();
    Map<Integer, Pending> pending = new HashMap<>();
    for (int t = 0; t < lines.size(); t++) {
      String line = lines.get(t);
      Matcher m;
      if ((m = INVOKE_READ.matcher(line)).matches()) {
        invoke(pending, m, new CasRegisterModel.Input(CasRegisterModel.Input.Kind.READ, 0, 0), t);
      } else if ((m = INVOKE_WRITE.matcher(line)).matches()) {
        int v = Integer.parseInt(m.group(2));
        invoke(pending, m, new CasRegisterModel.Input(CasRegisterModel.Input.Kind.WRITE, v, 0), t);
      } else if ((m = INVOKE_CAS.matcher(line)).matches()) {
        int from = Integer.parseInt(m.group(2));
        int to = Integer.parseInt(m.group(3));
        invoke(
            pending, m, new CasRegisterModel.Input(CasRegisterModel.Input.Kind.CAS, from, to), t);
      } else if ((m = OK_READ.matcher(line)).matches()) {
        boolean nil = m.group(2).equals("nil");
        int v = nil ? 0 : Integer.parseInt(m.group(2));
        ops.add(complete(pending, m, new CasRegisterModel.Output(!nil, v, false), t, line));
      } else if ((m = OK_WRITE.matcher(line)).matches()) {
        ops.add(complete(pending, m, CasRegisterModel.Output.WRITTEN, t, line));
      } else if ((m = DONE_CAS.matcher(line)).matches()) {
        boolean ok = m.group(2).equals("ok");
        ops.add(complete(pending, m, new CasRegisterModel.Output(false, 0, ok), t, line));
      } else if ((m = TIMED_OUT_READ.matcher(line)).matches()) {
        int process = Integer.parseInt(m.group(1));
        Pending p = take(pending, process, line);
        ops.add(Op.failed(process, "etcd", p.input(), p.invoked(), t));
      } else if (!INFO.matcher(line).matches() && !line.isBlank()) {
        throw new IllegalArgumentException("line " + (t + 1) + " is not understood: " + line);
      }
    }
    pending.forEach(
        (process, p) -> ops.add(Op.indeterminate(process, "etcd", p.input(), p.invoked())));
    return ops;
  }

  private static void invoke(
      Map<Integer, Pending> pending, Matcher m, CasRegisterModel.Input input, long t) {
    int process = Integer.parseInt(m.group(1));
    if (pending.put(process, new Pending(input, t)) != null) {
      throw new IllegalArgumentException(
          "process [" + process + "] invoked at line " + (t + 1) + " with a call pending");
    }
  }

  private static Op<CasRegisterModel.Input, CasRegisterModel.Output> complete(
      Map<Integer, Pending> pending,
      Matcher m,
      CasRegisterModel.Output output,
      long t,
      String line) {
    int process = Integer.parseInt(m.group(1));
    Pending p = take(pending, process, line);
    return Op.ok(process, "etcd", p.input(), output, p.invoked(), t);
  }

  private static Pending take(Map<Integer, Pending> pending, int process, String line) {
    Pending p = pending.remove(process);
    if (p == null) {
      throw new IllegalArgumentException("a completion with no call pending: " + line);
    }
    return p;
  }
}
