package org.searchlab.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A raw HTTP/1.1 connection for tests that must send what no client library sends (a forged {@code
 * Host}, half a request line, a malformed header). One per thread; not thread-safe.
 */
final class RawHttp implements AutoCloseable {
  final Socket socket;
  private final InputStream in;

  RawHttp(int port, int soTimeoutMs) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(soTimeoutMs);
    // buffered: a response head is read a byte at a time
    in = new BufferedInputStream(socket.getInputStream());
  }

  /** One parsed answer. */
  record Answer(int status, Map<String, String> headers, String body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  void send(String raw) throws IOException {
    send(raw.getBytes(StandardCharsets.ISO_8859_1));
  }

  void send(byte[] raw) throws IOException {
    socket.getOutputStream().write(raw);
    socket.getOutputStream().flush();
  }

  /** Reads one response, or returns null when the server closed without answering. */
  Answer read() throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int last4 = 0; // the last four bytes read; "\r\n\r\n" ends the head
    while (last4 != 0x0d0a0d0a) {
      int b = in.read();
      if (b < 0) {
        if (head.size() == 0) {
          return null;
        }
        throw new IOException("connection closed inside a response head: " + head);
      }
      head.write(b);
      last4 = (last4 << 8) | b;
    }
    String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, String> headers = new TreeMap<>();
    for (int i = 1; i < lines.length; i++) {
      int c = lines[i].indexOf(':');
      if (c > 0) {
        headers.put(
            lines[i].substring(0, c).trim().toLowerCase(Locale.ROOT),
            lines[i].substring(c + 1).trim());
      }
    }
    int len = Integer.parseInt(headers.getOrDefault("content-length", "0"));
    byte[] body = in.readNBytes(len);
    return new Answer(status, headers, new String(body, StandardCharsets.UTF_8));
  }

  /** Whether the server has closed the connection (reads EOF within the socket timeout). */
  boolean closedByServer() {
    try {
      return in.read() < 0;
    } catch (IOException e) {
      return !e.getClass().getSimpleName().equals("SocketTimeoutException");
    }
  }

  /** One request on a fresh connection; the answer. */
  static Answer exchange(int port, String raw) throws IOException {
    try (RawHttp c = new RawHttp(port, 30_000)) {
      c.send(raw);
      return c.read();
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
