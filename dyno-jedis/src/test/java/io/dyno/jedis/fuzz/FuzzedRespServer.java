package io.dyno.jedis.fuzz;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A raw-socket RESP server on 127.0.0.1 that reads real commands and answers each with bytes the
 * test sets (the fuzzer's), optionally closing the connection after them; in {@link #good} mode it
 * answers GET, MGET and HGETALL with {@code "ok"} values, PING with {@code +PONG} and anything else with {@code +OK}.
 */
final class FuzzedRespServer implements AutoCloseable {
  private final ServerSocket server;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile byte[] reply;
  private volatile boolean closeAfterReply;
  private volatile boolean closed;

  FuzzedRespServer() throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t = new Thread(this::acceptLoop, "fuzzed-resp-accept");
    t.setDaemon(true);
    t.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** Every command is answered with {@code bytes}; the connection is then closed if {@code close}. */
  void fuzz(byte[] bytes, boolean close) {
    this.closeAfterReply = close;
    this.reply = bytes;
  }

  /** Correct answers from now on. */
  void good() {
    this.reply = null;
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket s = server.accept();
        open.add(s);
        Thread t = new Thread(() -> serve(s), "fuzzed-resp-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket s) {
    try (s) {
      InputStream in = new BufferedInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      while (true) {
        List<String> command = readCommand(in);
        if (command == null) {
          return;
        }
        byte[] r = reply;
        if (r != null) {
          out.write(r);
          out.flush();
          if (closeAfterReply) {
            return;
          }
          continue;
        }
        String name = command.get(0).toUpperCase();
        String answer = switch (name) {
          case "GET" -> "$2\r\nok\r\n";
          case "MGET" ->
            "*" + (command.size() - 1) + "\r\n" + "$2\r\nok\r\n".repeat(command.size() - 1);
          case "HGETALL" -> "*2\r\n$1\r\nf\r\n$2\r\nok\r\n";
          case "PING" -> "+PONG\r\n";
          default -> "+OK\r\n";
        };
        out.write(answer.getBytes(StandardCharsets.US_ASCII));
        out.flush();
      }
    } catch (IOException e) {
      // the client went away
    } finally {
      open.remove(s);
    }
  }

  /** One RESP array of bulk strings, as every client sends; null at end of stream. */
  private static List<String> readCommand(InputStream in) throws IOException {
    String header = line(in);
    if (header == null) {
      return null;
    }
    if (!header.startsWith("*")) {
      throw new IOException("not a RESP command: " + header);
    }
    int n = Integer.parseInt(header.substring(1));
    List<String> args = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String len = line(in);
      if (len == null || !len.startsWith("$")) {
        throw new IOException("bad bulk header " + len);
      }
      byte[] b = in.readNBytes(Integer.parseInt(len.substring(1)) + 2);
      args.add(new String(b, 0, Math.max(0, b.length - 2), StandardCharsets.UTF_8));
    }
    return args;
  }

  private static String line(InputStream in) throws IOException {
    StringBuilder sb = new StringBuilder();
    int c;
    while ((c = in.read()) != -1) {
      if (c == '\n') {
        int len = sb.length();
        return len > 0 && sb.charAt(len - 1) == '\r' ? sb.substring(0, len - 1) : sb.toString();
      }
      sb.append((char) c);
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    for (Socket s : open) {
      s.close();
    }
  }
}
