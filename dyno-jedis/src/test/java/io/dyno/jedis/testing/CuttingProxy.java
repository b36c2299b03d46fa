package io.dyno.jedis.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of a real server (a fault injector): it passes bytes both ways, counts the
 * client writes that contain a marker, and can be told to let the next write containing the marker
 * reach the server, swallow the server's reply and close the client's connection: the command ran
 * once and the client cannot know it did. Binds 127.0.0.1 on a free port; daemon threads.
 */
public final class CuttingProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile byte[] marker = new byte[0];
  private final AtomicInteger seen = new AtomicInteger();
  private final AtomicInteger cutsLeft = new AtomicInteger();

  public CuttingProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::acceptLoop, "cutting-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** From now on, counts writes containing {@code text}; the next {@code cuts} of them are cut after the server ran them. */
  public void cut(String text, int cuts) {
    this.marker = text.getBytes(StandardCharsets.UTF_8);
    this.seen.set(0);
    this.cutsLeft.set(cuts);
  }

  /** How many client writes contained the marker since {@link #cut}. */
  public int seen() {
    return seen.get();
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        sockets.add(client);
        sockets.add(server);
        boolean[] cutNextReply = {false};
        start(() -> pump(client, server, cutNextReply, true));
        start(() -> pump(server, client, cutNextReply, false));
      } catch (IOException e) {
        return;
      }
    }
  }

  private static void start(Runnable r) {
    Thread t = new Thread(r, "cutting-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private void pump(Socket from, Socket to, boolean[] cutNextReply, boolean fromClient) {
    byte[] buf = new byte[64 * 1024];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buf)) > 0) {
        if (fromClient) {
          if (contains(buf, n, marker)) {
            seen.incrementAndGet();
            if (cutsLeft.getAndUpdate(c -> Math.max(0, c - 1)) > 0) {
              synchronized (cutNextReply) {
                cutNextReply[0] = true;
              }
            }
          }
        } else {
          boolean cut;
          synchronized (cutNextReply) {
            cut = cutNextReply[0];
          }
          if (cut) {
            // The server ran the command and answered; the client never hears of it.
            from.close();
            to.close();
            return;
          }
        }
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException closed) {
      // one side went away: close both
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static boolean contains(byte[] buf, int n, byte[] m) {
    if (m.length == 0) {
      return false;
    }
    outer:
    for (int i = 0; i + m.length <= n; i++) {
      for (int j = 0; j < m.length; j++) {
        if (buf[i + j] != m[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // closing
    }
  }

  @Override
  public void close() {
    try {
      listener.close();
    } catch (IOException ignored) {
      // closing
    }
    sockets.forEach(CuttingProxy::closeQuietly);
  }
}
