package io.dyno.e2e.faults;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * When a node other than the faulted one stopped answering by itself: a daemon thread per such node
 * PINGs it every {@link #TICK_MS} ms over a socket of its own (plain RESP), on the node's own client port,
 * and records each ping that took {@link #RECORDED_MS} ms or more (or failed, until one answers
 * again) as the span it waited (ms since the run's origin). A busy machine deschedules the servers
 * as well as the test (a node's JVM, its redis-server): a client that takes such a node out of
 * rotation, or fails a call that waited on it, met the node's own stall, which {@link
 * MachineStalls} (this JVM's) does not show. The checks leave those out ({@link Figures}, {@link
 * RotationWatch}) and each run prints the stalls. A client's own stall does not delay these pings,
 * so it still counts against the client.
 */
final class NodeStalls implements AutoCloseable {
  static final long TICK_MS = 25;
  static final long RECORDED_MS = 50;
  private static final int PING_TIMEOUT_MS = 5_000;

  private final long originNanos;
  /** Per node id as the clients see it, its stalls as {from, to} in ms since the run's origin. */
  private final Map<String, List<long[]>> stalls = new ConcurrentHashMap<>();

  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean running = true;

  /** Watches each node of {@code direct}: id as the clients see it -> its own host and port. */
  NodeStalls(Map<String, ClusterView.Address> direct, long originNanos) {
    this.originNanos = originNanos;
    direct.forEach((id, address) -> {
      stalls.put(id, new ArrayList<>());
      Thread t = new Thread(() -> watch(id, address), "node-stalls-" + id);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    });
  }

  private void watch(String id, ClusterView.Address address) {
    Socket socket = null;
    long failingSince = -1;
    byte[] pong = new byte[PONG.length];
    while (running) {
      long sent = System.nanoTime();
      try {
        if (socket == null) {
          socket = new Socket();
          socket.connect(new InetSocketAddress(address.host(), address.port()), PING_TIMEOUT_MS);
          socket.setSoTimeout(PING_TIMEOUT_MS);
          socket.setTcpNoDelay(true);
        }
        socket.getOutputStream().write(PING);
        new DataInputStream(socket.getInputStream()).readFully(pong);
        if (!Arrays.equals(pong, PONG)) throw new IOException("not a PONG from " + id);
        long now = System.nanoTime();
        long from = failingSince >= 0 ? failingSince : sent;
        if (now - from >= RECORDED_MS * 1_000_000) record(id, from, now);
        failingSince = -1;
      } catch (IOException e) {
        if (failingSince < 0) failingSince = sent;
        closeQuietly(socket);
        socket = null;
      }
      LockSupport.parkNanos(TICK_MS * 1_000_000); // the ping's period, not synchronisation
    }
    closeQuietly(socket);
  }

  private static final byte[] PING = "PING\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] PONG = "+PONG\r\n".getBytes(StandardCharsets.US_ASCII);

  private static void closeQuietly(Socket s) {
    if (s == null) return;
    try {
      s.close();
    } catch (IOException ignored) {
      // a broken socket: a new one is opened for the next ping
    }
  }

  private void record(String id, long fromNanos, long toNanos) {
    List<long[]> own = stalls.get(id);
    synchronized (own) {
      own.add(
          new long[] {(fromNanos - originNanos) / 1_000_000, (toNanos - originNanos) / 1_000_000});
    }
  }

  /** The longest stall of node {@code id} overlapping [fromMs, toMs], in ms (0: none, or not watched). */
  long longestWithin(String id, long fromMs, long toMs) {
    List<long[]> own = stalls.get(id);
    if (own == null) return 0;
    long longest = 0;
    synchronized (own) {
      for (long[] s : own) {
        if (s[1] >= fromMs && s[0] <= toMs) longest = Math.max(longest, s[1] - s[0]);
      }
    }
    return longest;
  }

  /** The longest stall of any watched node overlapping [fromMs, toMs], in ms (0: none). */
  long longestOfAnyWithin(long fromMs, long toMs) {
    long longest = 0;
    for (String id : stalls.keySet()) longest = Math.max(longest, longestWithin(id, fromMs, toMs));
    return longest;
  }

  /**
   * Whether node {@code id} stalled {@code minMs} or more in a span that began before {@code atMs}
   * and ended no more than {@code afterMs} before it: what a verdict at {@code atMs} may have seen.
   */
  boolean stalledJustBefore(String id, long atMs, long minMs, long afterMs) {
    List<long[]> own = stalls.get(id);
    if (own == null) return false;
    synchronized (own) {
      for (long[] s : own) {
        if (s[1] - s[0] >= minMs && s[0] <= atMs && atMs - s[1] <= afterMs) return true;
      }
    }
    return false;
  }

  /** Stalls of at least {@code minMs} between {@code fromMs} and {@code toMs}, as "node at +s: ms". */
  List<String> describe(long fromMs, long toMs, long minMs, long zeroMs) {
    List<String> out = new ArrayList<>();
    stalls.forEach((id, own) -> {
      synchronized (own) {
        for (long[] s : own) {
          if (s[1] - s[0] >= minMs && s[1] >= fromMs && s[0] <= toMs) {
            out.add(String.format(
                Locale.ROOT, "%s at %+.1f s: %d ms", id, (s[0] - zeroMs) / 1000.0, s[1] - s[0]));
          }
        }
      }
    });
    return out;
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    for (Thread t : threads) {
      LockSupport.unpark(t);
      t.join(PING_TIMEOUT_MS * 2L);
    }
  }
}
