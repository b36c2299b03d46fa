package io.dyno.core.exec;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.engine.internal.FailureReport;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.engine.internal.NodeConnectionFactory;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** Fake connections with scriptable faults per node (keyed by port), for deterministic engine tests. */
public final class FakeFactory implements NodeConnectionFactory<FakeFactory.Conn> {
  /** A Dynomite replica error reply. */
  public static final class ReplicaError extends RuntimeException {
    public ReplicaError(String m) {
      super(m);
    }
  }

  /** A data error reply (WRONGTYPE …). */
  public static final class DataError extends RuntimeException {
    public DataError(String m) {
      super(m);
    }
  }

  /** The connection refused the command at capacity, before sending it (a multiplexed in-flight limit). */
  public static final class AtCapacity extends IOException {
    public AtCapacity(String m) {
      super(m);
    }
  }

  /** The connection closed before the command left it (a multiplexed connection's queue): the node may take it again. */
  public static final class ClosedBeforeSent extends IOException {
    public ClosedBeforeSent(String m) {
      super(m);
    }
  }

  public enum Fault {
    NONE,
    IO,
    TIMEOUT,
    REPLICA,
    DATA,
    AT_CAPACITY,
    CLOSED_BEFORE_SENT
  }

  /** Per-node script. */
  public static final class Node {
    public volatile boolean refuseConnect;
    /**
     * When set, a connect to the node hangs for its whole connect timeout (this is given the timeout,
     * e.g. to move a manual clock) and then fails as a connect timeout does.
     */
    public volatile Consumer<Duration> connectHangs;

    public volatile boolean failPing;
    /** Faults for the next calls, in order; empty = use {@link #always}. */
    public final Deque<Fault> next = new ArrayDeque<>();

    public volatile Fault always = Fault.NONE;
    public final List<String> calls = new CopyOnWriteArrayList<>();
    public int opens;
    /** While set, {@link Conn#submit} leaves its replies pending in {@link #held}: the test completes them. */
    public volatile boolean hold;

    public final List<CompletableFuture<String>> held = new CopyOnWriteArrayList<>();

    synchronized Fault take() {
      Fault f = next.poll();
      return f != null ? f : always;
    }

    public synchronized void script(Fault... faults) {
      next.addAll(List.of(faults));
    }
  }

  public final Map<Integer, Node> nodes = new ConcurrentHashMap<>();
  public final List<Conn> opened = new CopyOnWriteArrayList<>();
  public final List<Duration> connectTimeouts = new CopyOnWriteArrayList<>();
  /** Threads that count as the transport's I/O threads ({@link #onTransportThread}). */
  public final Set<Thread> transportThreads = ConcurrentHashMap.newKeySet();
  /** A transport whose attempts hold their thread until the reply (pooled sockets); read as the engine starts. */
  public volatile boolean blocking;

  @Override
  public boolean blocksUntilReply() {
    return blocking;
  }

  @Override
  public boolean onTransportThread() {
    return transportThreads.contains(Thread.currentThread());
  }

  public Node node(Host h) {
    return node(h.port());
  }

  public Node node(int port) {
    return nodes.computeIfAbsent(port, p -> new Node());
  }

  @Override
  public Conn open(Host host, Duration connectTimeout, Duration socketTimeout) throws Exception {
    Node n = node(host.port());
    connectTimeouts.add(connectTimeout);
    if (n.refuseConnect) {
      throw new ConnectException("connection refused: " + host.id());
    }
    Consumer<Duration> hang = n.connectHangs;
    if (hang != null) {
      hang.accept(connectTimeout);
      throw new SocketTimeoutException(
          "connect timed out after " + connectTimeout.toMillis() + " ms: " + host.id());
    }
    synchronized (n) {
      n.opens++;
    }
    Conn c = new Conn(host, n, socketTimeout);
    opened.add(c);
    return c;
  }

  @Override
  public FailureKind classify(Throwable failure) {
    if (failure instanceof SocketTimeoutException) return FailureKind.TIMEOUT;
    if (failure instanceof IOException) return FailureKind.CONNECTION;
    if (failure instanceof ReplicaError) return FailureKind.REPLICA;
    if (failure instanceof DataError) return FailureKind.DATA;
    return FailureKind.CONNECTION;
  }

  /** Refused at capacity or closed before sending: not sent (the same node may retake it after a close). */
  @Override
  public FailureReport report(Throwable failure) {
    if (failure instanceof AtCapacity || failure instanceof ClosedBeforeSent) {
      return FailureReport.notSent(failure instanceof ClosedBeforeSent);
    }
    return FailureReport.sent(classify(failure));
  }

  public long openConnections() {
    return opened.stream().filter(c -> !c.closed).count();
  }

  public static final class Conn implements NodeConnection {
    private final Host host;
    private final Node node;
    public final List<ConsistencyLevel> consistencySent = new ArrayList<>();
    private ConsistencyLevel consistency;
    /** Every {@link #setReadTimeout} call, in order. */
    public final List<Duration> readTimeouts = new CopyOnWriteArrayList<>();

    private volatile Duration readTimeout;
    public volatile boolean broken;
    public volatile boolean closed;
    /** Set by {@link #abandon()}: the engine gave up on this connection's node as silent. */
    public volatile boolean abandoned;

    public int pings;

    Conn(Host host, Node node, Duration socketTimeout) {
      this.host = host;
      this.node = node;
      this.readTimeout = socketTimeout;
    }

    @Override
    public void abandon() {
      abandoned = true;
      broken = true;
    }

    /** The read timeout a blocked read would wait now (the socket timeout unless the engine capped it). */
    public Duration readTimeout() {
      return readTimeout;
    }

    @Override
    public void setReadTimeout(Duration timeout) {
      readTimeouts.add(timeout);
      readTimeout = timeout;
    }

    /** Runs a fake command: returns "<command>@<port>" or throws the node's scripted fault. */
    public String call(String command) throws Exception {
      if (closed) throw new IllegalStateException("used after close");
      node.calls.add(command);
      switch (node.take()) {
        case IO -> {
          broken = true;
          throw new IOException("connection reset by " + host.id());
        }
        case TIMEOUT -> {
          broken = true;
          throw new SocketTimeoutException("read timed out from " + host.id());
        }
        case REPLICA -> throw new ReplicaError("ERR Peer: Peer Node is not connected");
        case DATA ->
          throw new DataError("WRONGTYPE Operation against a key holding the wrong kind of value");
        case AT_CAPACITY ->
          throw new AtCapacity("timed out waiting to send to " + host.id()
              + ": 4 requests in flight, the limit (maxInFlight) is 4; the command was not sent");
        case CLOSED_BEFORE_SENT ->
          throw new ClosedBeforeSent("connection to " + host.id()
              + " closed with 3 requests in flight (the command was queued, not sent)");
        default -> {
          return command + "@" + host.port();
        }
      }
    }

    /**
     * A fake command of an asynchronous transport: pending in the node's {@link Node#held} while the
     * node holds replies; otherwise completed at once as {@link #call} answers (a blocking transport).
     */
    public CompletableFuture<String> submit(String command) {
      if (closed) throw new IllegalStateException("used after close");
      if (node.hold) {
        node.calls.add(command);
        CompletableFuture<String> f = new CompletableFuture<>();
        node.held.add(f);
        return f;
      }
      try {
        return CompletableFuture.completedFuture(call(command));
      } catch (Exception e) {
        return CompletableFuture.failedFuture(e);
      }
    }

    @Override
    public Host host() {
      return host;
    }

    @Override
    public ConsistencyLevel consistency() {
      return consistency;
    }

    @Override
    public void setConsistency(ConsistencyLevel level) {
      consistencySent.add(level);
      consistency = level;
    }

    @Override
    public void ping() throws Exception {
      pings++;
      if (node.failPing) {
        broken = true;
        throw new IOException("ping failed on " + host.id());
      }
    }

    @Override
    public boolean isBroken() {
      return broken;
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
