package io.dyno.companion.diff;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Raw bytes over TCP: write, then a bounded read that ends on N complete RESP replies, on close, or on time. */
final class Wire {
  private Wire() {}

  /** What came back: the bytes, and whether the server closed the connection. */
  record Reply(byte[] bytes, boolean closed) {
    String text() {
      return new String(bytes, StandardCharsets.UTF_8);
    }

    String describe(int waitMillis) {
      if (bytes.length == 0) {
        return closed ? "<closed, no reply>" : "<no reply within " + waitMillis + " ms>";
      }
      return escape(bytes) + (closed ? " <closed>" : "");
    }
  }

  static byte[] cmd(String... args) {
    StringBuilder sb = new StringBuilder("*" + args.length + "\r\n");
    for (String a : args) {
      sb.append('$')
          .append(a.getBytes(StandardCharsets.UTF_8).length)
          .append("\r\n")
          .append(a)
          .append("\r\n");
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  static byte[] cmd(List<String> args) {
    return cmd(args.toArray(String[]::new));
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** One connection, one write, one bounded read. */
  static Reply exchange(int port, byte[] send, int replies, int waitMillis) {
    try (Conn c = new Conn(port)) {
      return c.exchange(send, replies, waitMillis);
    }
  }

  /** A connection kept across several exchanges (per-connection state such as the consistency level). */
  static final class Conn implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private boolean closed;

    Conn(int port) {
      try {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
        socket.setTcpNoDelay(true);
        in = socket.getInputStream();
        out = socket.getOutputStream();
      } catch (IOException e) {
        throw new IllegalStateException("cannot connect to 127.0.0.1:" + port + ": " + e, e);
      }
    }

    boolean closed() {
      return closed;
    }

    /**
     * Writes {@code send}, then reads until {@code replies} complete replies have come and 150 ms
     * passed without more bytes (a close right after a reply is seen), or the peer closed, or
     * {@code waitMillis} passed.
     */
    Reply exchange(byte[] send, int replies, int waitMillis) {
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      try {
        out.write(send);
        out.flush();
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        long quietUntil = Long.MAX_VALUE;
        byte[] buf = new byte[8192];
        while (true) {
          long now = System.nanoTime();
          long until = Math.min(deadline, quietUntil);
          if (now >= until) {
            break;
          }
          socket.setSoTimeout((int) Math.max(1, (until - now) / 1_000_000));
          int n;
          try {
            n = in.read(buf);
          } catch (SocketTimeoutException e) {
            continue;
          }
          if (n < 0) {
            closed = true;
            break;
          }
          got.write(buf, 0, n);
          if (replies != Integer.MAX_VALUE && completeReplies(got.toByteArray()) >= replies) {
            quietUntil = System.nanoTime() + 150_000_000L;
          }
        }
      } catch (IOException e) { // a reset is a close
        closed = true;
      }
      return new Reply(got.toByteArray(), closed);
    }

    @Override
    public void close() {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }

  /** How many complete RESP replies {@code b} holds from its start. */
  static int completeReplies(byte[] b) {
    int[] pos = {0};
    int n = 0;
    try {
      while (pos[0] < b.length && skip(b, pos)) {
        n++;
      }
    } catch (NumberFormatException e) {
      // not RESP (inline text): what was complete before it
    }
    return n;
  }

  private static boolean skip(byte[] b, int[] pos) {
    int lineEnd = lineEnd(b, pos[0]);
    if (lineEnd < 0) {
      return false;
    }
    byte type = b[pos[0]];
    String line = new String(b, pos[0] + 1, lineEnd - pos[0] - 1, StandardCharsets.US_ASCII);
    pos[0] = lineEnd + 2;
    switch (type) {
      case '$' -> {
        int len = Integer.parseInt(line);
        if (len < 0) {
          return true;
        }
        if (pos[0] + len + 2 > b.length) {
          return false;
        }
        pos[0] += len + 2;
        return true;
      }
      case '*' -> {
        int count = Integer.parseInt(line);
        for (int i = 0; i < count; i++) {
          if (pos[0] >= b.length || !skip(b, pos)) {
            return false;
          }
        }
        return true;
      }
      default -> {
        return true;
      }
    }
  }

  private static int lineEnd(byte[] b, int from) {
    for (int i = from; i + 1 < b.length; i++) {
      if (b[i] == '\r' && b[i + 1] == '\n') {
        return i;
      }
    }
    return -1;
  }

  /** A reply tree, for normalisers that must reorder what Redis returns in hash order. */
  static Object parse(byte[] b, int[] pos) {
    int lineEnd = lineEnd(b, pos[0]);
    byte type = b[pos[0]];
    String line = new String(b, pos[0] + 1, lineEnd - pos[0] - 1, StandardCharsets.UTF_8);
    pos[0] = lineEnd + 2;
    switch (type) {
      case '$' -> {
        int len = Integer.parseInt(line);
        if (len < 0) {
          return "$-1";
        }
        String s = "$" + new String(b, pos[0], len, StandardCharsets.UTF_8);
        pos[0] += len + 2;
        return s;
      }
      case '*' -> {
        int count = Integer.parseInt(line);
        List<Object> l = new ArrayList<>();
        for (int i = 0; i < count; i++) {
          l.add(parse(b, pos));
        }
        return l;
      }
      default -> {
        return (char) type + line;
      }
    }
  }

  /** Bytes as text with \r \n and non-printables escaped. */
  static String escape(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) {
      int c = x & 0xff;
      switch (c) {
        case '\r' -> sb.append("\\r");
        case '\n' -> sb.append("\\n");
        case '\\' -> sb.append("\\\\");
        default -> {
          if (c < 0x20 || c >= 0x7f) {
            sb.append(String.format("\\x%02x", c));
          } else {
            sb.append((char) c);
          }
        }
      }
    }
    return sb.toString();
  }

  static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
