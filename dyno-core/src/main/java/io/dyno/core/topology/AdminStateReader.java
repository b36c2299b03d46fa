package io.dyno.core.topology;

import io.dyno.core.Host;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.ToIntFunction;

/**
 * {@link NodeStateSource#dynomiteAdmin}: one plain HTTP/1.0 GET of {@code /state/get_state} per ask,
 * on its own socket (Dynomite's admin port closes the connection after each answer, and its header
 * lines end in {@code " \n"}, so a small reader that splits at the blank line is all it takes).
 */
final class AdminStateReader implements NodeStateSource {
  static final String PATH = "/state/get_state";
  private static final int MAX_ANSWER = 4096;

  private final ToIntFunction<Host> adminPort;
  private final int timeoutMillis;

  AdminStateReader(ToIntFunction<Host> adminPort, Duration timeout) {
    this.adminPort = adminPort;
    this.timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
  }

  @Override
  public NodeState stateOf(Host host) throws IOException {
    int port = adminPort.applyAsInt(host);
    String where = "http://" + host.address() + ":" + port + PATH;
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host.address(), port), timeoutMillis);
      s.setSoTimeout(timeoutMillis);
      OutputStream out = s.getOutputStream();
      out.write(("GET " + PATH + " HTTP/1.0\r\nHost: " + host.address() + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String answer = readAll(s.getInputStream());
      if (!answer.startsWith("HTTP/1.")
          || !answer.substring(0, answer.indexOf('\n') + 1).contains(" 200 ")) {
        throw new IOException(where + " answered no HTTP 200: '" + firstLine(answer) + "'");
      }
      int body = answer.indexOf("\r\n\r\n");
      if (body < 0) {
        throw new IOException(where + " answered no complete HTTP header");
      }
      try {
        return NodeState.parse(answer.substring(body + 4));
      } catch (IllegalArgumentException e) {
        throw new IOException(where + ": " + e.getMessage(), e);
      }
    } catch (IOException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(where)) {
        throw e;
      }
      throw new IOException(where + ": " + e, e);
    }
  }

  private static String readAll(InputStream in) throws IOException {
    byte[] buf = new byte[MAX_ANSWER];
    int n = 0;
    for (int r; n < buf.length && (r = in.read(buf, n, buf.length - n)) >= 0; ) {
      n += r;
    }
    return new String(buf, 0, n, StandardCharsets.ISO_8859_1);
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).strip();
  }
}
