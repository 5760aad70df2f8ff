package org.searchlab.bench.experiment;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.management.JMX;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import jdk.management.jfr.FlightRecorderMXBean;

/**
 * The Flight Recorders of the server JVMs, reached over JMX: the first recording of a process
 * connects to it once ({@link ServerJmx}: the Attach API, as {@code jcmd} uses, starts its local
 * management agent, which listens on the loopback interface only) and keeps the connection; each
 * recording after that is a few MXBean calls (this JVM's own recorder is used without a
 * connection). {@code jcmd} cost two JVM starts per profiled cell, about a second on two busy
 * cores, which a scale run paid 54 times and its end-to-end test 12 times.
 *
 * <p>Thread-safe: connections are kept in a concurrent map; a process is recorded by one cell at a
 * time ({@link CellProfiles}).
 */
final class FlightRecorders {
  private static final ObjectName NAME = name();

  private static final Map<Long, Open> OPEN = new ConcurrentHashMap<>();

  private record Open(ServerJmx jmx, FlightRecorderMXBean recorder) {}

  private FlightRecorders() {}

  private static ObjectName name() {
    try {
      return new ObjectName(FlightRecorderMXBean.MXBEAN_NAME);
    } catch (MalformedObjectNameException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * The Flight Recorder of the process {@code pid}, connected on first use.
   *
   * @throws IOException when the process cannot be attached to or its agent not reached
   */
  static FlightRecorderMXBean of(long pid) throws IOException {
    if (pid == ProcessHandle.current().pid()) {
      // This JVM's own recorder: attaching to oneself is refused without
      // -Djdk.attach.allowAttachSelf, and needs no connection anyway.
      return ManagementFactory.getPlatformMXBean(FlightRecorderMXBean.class);
    }
    Open o = OPEN.get(pid);
    if (o != null) {
      return o.recorder();
    }
    ServerJmx jmx = ServerJmx.connect(pid);
    try {
      FlightRecorderMXBean recorder =
          JMX.newMXBeanProxy(
              jmx.connector().getMBeanServerConnection(), NAME, FlightRecorderMXBean.class);
      OPEN.put(pid, new Open(jmx, recorder));
      return recorder;
    } catch (IOException | RuntimeException e) {
      jmx.close();
      throw e;
    }
  }

  /** Drops the connection to {@code pid} (after a failure, or when the process has ended). */
  static void forget(long pid) {
    Open o = OPEN.remove(pid);
    if (o != null) {
      try {
        o.jmx().close();
      } catch (IOException e) {
        // The process is gone or the connection broken; either way it is no longer kept.
      }
    }
  }
}
