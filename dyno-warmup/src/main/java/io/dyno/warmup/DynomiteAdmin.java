package io.dyno.warmup;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Dynomite node's admin (stats) port: its state and its uptime. Plain HTTP/1.0 GETs on a fresh
 * socket each (Dynomite closes the connection after every answer, and its header lines end in
 * {@code " \n"}).
 */
final class DynomiteAdmin {
  private static final Pattern UPTIME = Pattern.compile("\"uptime\"\\s*:\\s*(\\d+)");
  private static final int MAX_ANSWER = 1 << 16;

  private final String host;
  private final int port;
  private final int timeoutMillis;

  DynomiteAdmin(String host, int port, Duration timeout) {
    this.host = host;
    this.port = port;
    this.timeoutMillis = (int) Math.max(1, timeout.toMillis());
  }

  /** The node's state name, as {@code /state/get_state} gives it ({@code NORMAL}, {@code STANDBY}, ...). */
  String state() throws IOException {
    String body = get("/state/get_state").strip();
    if (!body.startsWith("State: ")) {
      throw new IOException(this + "/state/get_state answered '" + body + "', not 'State: <name>'");
    }
    return body.substring("State: ".length()).strip();
  }

  /** Sets the node's state: {@code standby}, {@code writes_only}, {@code resuming} or {@code normal}. */
  void setState(String state) throws IOException {
    String body = get("/state/" + state).strip();
    if (!body.equals("OK")) {
      throw new IOException(this + "/state/" + state + " answered '" + body + "', not OK");
    }
    String now = state();
    if (!now.equalsIgnoreCase(state)) {
      throw new IOException(this + " is in state " + now + " after /state/" + state);
    }
  }

  /** Seconds since the Dynomite process started ({@code /info}'s uptime): a smaller one means it restarted. */
  long uptimeSeconds() throws IOException {
    String info = get("/info");
    Matcher m = UPTIME.matcher(info);
    if (!m.find()) {
      throw new IOException(this + "/info has no uptime");
    }
    return Long.parseLong(m.group(1));
  }

  private String get(String path) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), timeoutMillis);
      s.setSoTimeout(timeoutMillis);
      OutputStream out = s.getOutputStream();
      out.write(("GET " + path + " HTTP/1.0\r\nHost: " + host + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[MAX_ANSWER];
      int n = 0;
      for (int r; n < buf.length && (r = in.read(buf, n, buf.length - n)) >= 0; ) {
        n += r;
      }
      String answer = new String(buf, 0, n, StandardCharsets.UTF_8);
      int body = answer.indexOf("\r\n\r\n");
      if (!answer.startsWith("HTTP/1.") || body < 0) {
        throw new IOException(this + path + " gave no HTTP answer");
      }
      return answer.substring(body + 4);
    } catch (IOException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(toString())) {
        throw e;
      }
      throw new IOException(this + path + ": " + e, e);
    }
  }

  @Override
  public String toString() {
    return "http://" + host + ":" + port;
  }
}
