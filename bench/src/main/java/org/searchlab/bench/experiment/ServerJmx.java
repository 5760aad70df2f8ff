package org.searchlab.bench.experiment;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;
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

  @Override
  public void close() throws IOException {
    connector.close();
  }
}
