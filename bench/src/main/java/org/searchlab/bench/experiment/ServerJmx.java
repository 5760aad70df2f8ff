package org.searchlab.bench.experiment;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A JMX connection to a server child's JVM through its local management agent, which the attach API
 * starts on demand (no flag on the child, no port, no extra process): the runner records a flight
 * recording over it ({@link FacetProfile}) and collects garbage and reads the heap over it (the
 * restart probe). Not thread-safe; one owner opens and closes it.
 */
final class ServerJmx implements AutoCloseable {
  private final JMXConnector connector;

  private ServerJmx(JMXConnector connector) {
    this.connector = connector;
  }

  /** Connects to the JVM of {@code pid} (a child of this process, the same user). */
  static ServerJmx connect(long pid) throws IOException {
    String url;
    try {
      VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
      try {
        url = vm.startLocalManagementAgent();
      } finally {
        vm.detach();
      }
    } catch (AttachNotSupportedException e) {
      throw new IOException("cannot attach to the server JVM " + pid, e);
    }
    return new ServerJmx(JMXConnectorFactory.connect(new JMXServiceURL(url)));
  }

  /** The connection, for proxies of other beans. */
  JMXConnector connector() {
    return connector;
  }

  /**
   * Runs a full collection in the child ({@code MemoryMXBean.gc()}, which is {@code System.gc()}: a
   * full G1 collection that returns once it is done, after which G1 shrinks the heap as far as its
   * free-ratio flags allow) and returns the heap then: used, committed and max.
   */
  MemoryUsage fullGc() throws IOException {
    MemoryMXBean memory =
        ManagementFactory.newPlatformMXBeanProxy(
            connector.getMBeanServerConnection(),
            ManagementFactory.MEMORY_MXBEAN_NAME,
            MemoryMXBean.class);
    memory.gc();
    return memory.getHeapMemoryUsage();
  }

  /**
   * The collector's own structures, committed, from native memory tracking ({@code VM.native_memory
   * summary}: the {@code GC} and {@code GCCardSet} categories, G1's marking bitmaps, card table and
   * remembered sets), or -1 when the JVM does not track native memory ({@code
   * -XX:NativeMemoryTracking} off).
   */
  long gcStructuresBytes() throws IOException {
    String summary;
    try {
      summary =
          (String)
              connector
                  .getMBeanServerConnection()
                  .invoke(
                      new ObjectName("com.sun.management:type=DiagnosticCommand"),
                      "vmNativeMemory",
                      new Object[] {new String[] {"summary", "scale=KB"}},
                      new String[] {String[].class.getName()});
    } catch (JMException e) {
      throw new IOException("cannot read the server JVM's native memory summary", e);
    }
    return gcStructuresBytes(summary);
  }

  private static final Pattern NMT_CATEGORY =
      Pattern.compile("^-\\s+(\\w+) \\(reserved=\\d+(?:[KMG]?B)?, committed=(\\d+)([KMG]?B)?\\)");

  /**
   * The committed bytes of the {@code GC} and {@code GCCardSet} categories of a native memory
   * summary, -1 when it has neither (tracking off).
   */
  static long gcStructuresBytes(String summary) {
    long bytes = -1;
    for (String line : summary.split("\\R")) {
      Matcher m = NMT_CATEGORY.matcher(line);
      if (m.find() && (m.group(1).equals("GC") || m.group(1).equals("GCCardSet"))) {
        bytes = Math.max(bytes, 0) + Long.parseLong(m.group(2)) * unit(m.group(3));
      }
    }
    return bytes;
  }

  private static long unit(String suffix) {
    if (suffix == null) {
      return 1;
    }
    return switch (suffix) {
      case "KB" -> 1L << 10;
      case "MB" -> 1L << 20;
      case "GB" -> 1L << 30;
      default -> 1;
    };
  }

  @Override
  public void close() throws IOException {
    connector.close();
  }
}
