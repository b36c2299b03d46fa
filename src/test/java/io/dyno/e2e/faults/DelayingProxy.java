package io.dyno.e2e.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on a loopback port in front of one node, which holds every chunk of the node's
 * replies for {@link #replyDelay(long)} milliseconds before passing it on: added latency where the
 * kernel has no netem. Requests pass at once. The delay is fixed per chunk at the moment it is read,
 * and chunks leave in order, so a reply stream is shifted in time, never reordered or throttled:
 * a node that answers as fast as before, 50 ms later.
 *
 * <p>Per connection three daemon threads: requests up, replies read, and replies written when due
 * (see {@link ReplyLine}).
 * {@link #close()} closes the listener and every connection. Idempotent.
 */
final class DelayingProxy implements AutoCloseable {
  private static final int CHUNK = 16 * 1024;

  private final int targetPort;
  private final ServerSocket listener;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile long replyDelayNanos;
  private volatile boolean closed;

  private DelayingProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    daemon("proxy-accept-" + targetPort, this::acceptLoop).start();
  }

  /** A proxy on a free loopback port that forwards to {@code 127.0.0.1:targetPort}, no delay yet. */
  static DelayingProxy to(int targetPort) {
    try {
      return new DelayingProxy(targetPort);
    } catch (IOException e) {
      throw new IllegalStateException(
          "could not open a proxy for port " + targetPort + ": " + e, e);
    }
  }

  /** The port clients connect to. */
  int port() {
    return listener.getLocalPort();
  }

  /** Sets the delay of every reply chunk read from now on; 0 for none. */
  void replyDelay(long millis) {
    if (millis < 0) throw new IllegalArgumentException("reply delay must be >= 0, was " + millis);
    replyDelayNanos = TimeUnit.MILLISECONDS.toNanos(millis);
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        Socket node = new Socket();
        node.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2_000);
        client.setTcpNoDelay(true);
        node.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(node);
        if (closed) { // closed while connecting: close() may have missed these two
          closeQuietly(client);
          closeQuietly(node);
          return;
        }
        ReplyLine replies = new ReplyLine();
        String name = "proxy-" + targetPort + "-" + client.getPort();
        daemon(name + "-up", () -> pump(client, node)).start();
        daemon(name + "-down-read", () -> readReplies(node, client, replies)).start();
        daemon(name + "-down-write", () -> writeReplies(replies, client, node)).start();
      } catch (IOException e) {
        // the listener closed, or the node refused: the client sees its connection close
      }
    }
  }

  /** Requests, as they come. */
  private void pump(Socket from, Socket to) {
    byte[] buf = new byte[CHUNK];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      for (int n; (n = in.read(buf)) >= 0; ) {
        out.write(buf, 0, n);
      }
    } catch (IOException e) {
      // either side closed
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private void readReplies(Socket node, Socket client, ReplyLine line) {
    byte[] buf = new byte[CHUNK];
    try (InputStream in = node.getInputStream()) {
      OutputStream out = client.getOutputStream();
      for (int n; (n = in.read(buf)) >= 0; ) {
        line.writeNowOrQueue(out, buf, n, replyDelayNanos);
      }
    } catch (IOException e) {
      // either side closed
    } finally {
      line.end();
    }
  }

  private void writeReplies(ReplyLine line, Socket client, Socket node) {
    try (OutputStream out = client.getOutputStream()) {
      for (Chunk c = line.take(); c != Chunk.END; c = line.take()) {
        // Holding the chunk until it is due is the fault itself.
        for (long wait; (wait = c.dueNanos - System.nanoTime()) > 0; ) {
          LockSupport.parkNanos(wait);
        }
        line.write(out, c);
      }
    } catch (IOException | InterruptedException e) {
      // either side closed
    } finally {
      closeQuietly(client);
      closeQuietly(node);
    }
  }

  /**
   * One connection's replies. With no delay and nothing held back, a chunk is written at once by
   * the reading thread (no hand-off, so an undelayed proxy costs little even on a busy machine);
   * otherwise it is queued, in order, for the writing thread, which holds it until it is due.
   */
  private static final class ReplyLine {
    private final ArrayDeque<Chunk> queue = new ArrayDeque<>();
    private boolean held; // the writing thread took a chunk and has not written it yet

    synchronized void writeNowOrQueue(OutputStream out, byte[] buf, int n, long delayNanos)
        throws IOException {
      if (delayNanos == 0 && queue.isEmpty() && !held) {
        out.write(buf, 0, n);
        return;
      }
      queue.add(new Chunk(System.nanoTime() + delayNanos, Arrays.copyOf(buf, n)));
      notifyAll();
    }

    synchronized void end() {
      queue.add(Chunk.END);
      notifyAll();
    }

    synchronized Chunk take() throws InterruptedException {
      while (queue.isEmpty()) wait();
      held = true;
      return queue.poll();
    }

    synchronized void write(OutputStream out, Chunk c) throws IOException {
      out.write(c.bytes);
      held = false;
    }
  }

  @Override
  public void close() {
    if (closed) return;
    closed = true;
    try {
      listener.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    sockets.forEach(this::closeQuietly);
  }

  private void closeQuietly(Socket s) {
    sockets.remove(s);
    try {
      s.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  private static Thread daemon(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  private record Chunk(long dueNanos, byte[] bytes) {
    static final Chunk END = new Chunk(0, new byte[0]);
  }
}
