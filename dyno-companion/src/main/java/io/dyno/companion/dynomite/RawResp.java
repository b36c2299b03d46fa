package io.dyno.companion.dynomite;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One RESP command on a fresh loopback connection, for cluster helpers that must not depend on a
 * Redis client library. Answers the reply's text: a status or error line as it came
 * ({@code +OK}, {@code -ERR ...}), an integer as {@code :n}, a bulk string's content, or
 * {@code null} for a null bulk. Arrays are not needed here and are refused.
 */
final class RawResp {
  private RawResp() {}

  static String call(int port, Duration timeout, String... args) throws IOException {
    int ms = (int) Math.max(1, timeout.toMillis());
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), ms);
      s.setSoTimeout(ms);
      OutputStream out = s.getOutputStream();
      out.write(encode(args));
      out.flush();
      return readReply(s.getInputStream());
    }
  }

  static byte[] encode(String... args) {
    StringBuilder b = new StringBuilder().append('*').append(args.length).append("\r\n");
    for (String a : args) {
      b.append('$')
          .append(a.getBytes(StandardCharsets.UTF_8).length)
          .append("\r\n")
          .append(a)
          .append("\r\n");
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String readReply(InputStream in) throws IOException {
    String line = readLine(in);
    switch (line.charAt(0)) {
      case '+', '-', ':' -> {
        return line;
      }
      case '$' -> {
        int len = Integer.parseInt(line.substring(1));
        if (len < 0) return null;
        byte[] body = in.readNBytes(len + 2);
        if (body.length != len + 2) throw new IOException("connection closed inside a bulk reply");
        return new String(body, 0, len, StandardCharsets.UTF_8);
      }
      default -> throw new IOException("unexpected reply: " + line);
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int prev = -1;
    while (true) {
      int c = in.read();
      if (c < 0) throw new IOException("connection closed before a reply");
      if (prev == '\r' && c == '\n') {
        byte[] bytes = b.toByteArray();
        return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
      }
      b.write(c);
      prev = c;
    }
  }
}
