package io.dyno.testsupport;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Asks a port "who are you?" in RESP: PING, then {@code INFO server}'s {@code process_id}. Knowing the
 * pid lets start-up tell our redis-server from another process that won a race for the same port.
 */
final class RespProbe {
  /** The answer when nothing (or nothing speaking RESP) listens on the port yet. */
  static final long NOT_ANSWERING = -1;
  /** The answer of a server that wants credentials the probe does not have (ACL users, default user off). */
  static final long ANSWERING_UNIDENTIFIED = -2;

  private static final int CONNECT_TIMEOUT_MS = 200;
  private static final int READ_TIMEOUT_MS = 1000;

  private RespProbe() {}

  /**
   * The process id of the redis-server answering on loopback {@code port}, or {@link #NOT_ANSWERING}.
   *
   * @param password sent with AUTH first when not null ({@code --requirepass})
   * @param tls speak TLS; the server's certificate is not checked (a test's self-signed one)
   * @return the pid, {@link #NOT_ANSWERING}, or {@link #ANSWERING_UNIDENTIFIED} when it wants other credentials
   */
  static long processId(int port, String password, boolean tls) {
    try (Socket socket = connect(port, tls)) {
      OutputStream out = socket.getOutputStream();
      InputStream in = new BufferedInputStream(socket.getInputStream());
      if (password != null) {
        send(out, "AUTH", password);
        String auth = readReply(in);
        if (!auth.startsWith("+OK")) {
          return refusedCredentials(auth) ? ANSWERING_UNIDENTIFIED : NOT_ANSWERING;
        }
      }
      send(out, "PING");
      String pong = readReply(in);
      if (!pong.startsWith("+PONG")) {
        return refusedCredentials(pong)
            ? ANSWERING_UNIDENTIFIED
            : NOT_ANSWERING; // e.g. -LOADING while it starts
      }
      send(out, "INFO", "server");
      return parseProcessId(readReply(in));
    } catch (IOException | RuntimeException notYet) {
      return NOT_ANSWERING;
    }
  }

  private static boolean refusedCredentials(String reply) {
    return reply.startsWith("-NOAUTH")
        || reply.startsWith("-WRONGPASS")
        || reply.startsWith("-NOPERM");
  }

  private static Socket connect(int port, boolean tls) throws IOException {
    Socket plain = new Socket();
    try {
      plain.connect(
          new InetSocketAddress(InetAddress.getLoopbackAddress(), port), CONNECT_TIMEOUT_MS);
      plain.setSoTimeout(READ_TIMEOUT_MS);
      if (!tls) {
        return plain;
      }
      SSLSocket secure = (SSLSocket)
          trustingEverything().getSocketFactory().createSocket(plain, "127.0.0.1", port, true);
      secure.startHandshake();
      return secure;
    } catch (IOException | RuntimeException e) {
      plain.close();
      throw e;
    }
  }

  private static void send(OutputStream out, String... words) throws IOException {
    StringBuilder command = new StringBuilder("*").append(words.length).append("\r\n");
    for (String word : words) {
      command
          .append('$')
          .append(word.getBytes(StandardCharsets.UTF_8).length)
          .append("\r\n")
          .append(word)
          .append("\r\n");
    }
    out.write(command.toString().getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** One reply: a status or error line as sent, or a bulk string's body. */
  private static String readReply(InputStream in) throws IOException {
    String line = readLine(in);
    if (!line.startsWith("$")) {
      return line;
    }
    int length = Integer.parseInt(line.substring(1));
    byte[] body = in.readNBytes(Math.max(length, 0) + 2);
    if (body.length < length + 2) {
      throw new IOException("connection closed inside a reply");
    }
    return new String(body, 0, length, StandardCharsets.UTF_8);
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        throw new IOException("connection closed inside a reply");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.UTF_8);
  }

  private static long parseProcessId(String info) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("process_id:")) {
        return Long.parseLong(line.substring("process_id:".length()).trim());
      }
    }
    return NOT_ANSWERING;
  }

  private static SSLContext trustingEverything() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new TrustManager[] {new TrustAll()}, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no TLS in this JVM: " + e.getMessage(), e);
    }
  }

  /** Only for probing a test's own server, whose certificate a test made a moment ago. */
  private static final class TrustAll implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
