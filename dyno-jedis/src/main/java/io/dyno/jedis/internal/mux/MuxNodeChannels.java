package io.dyno.jedis.internal.mux;

import io.dyno.core.ConsistencyLevel;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The multiplexed connections to one node: {@code perLevel} of them for each consistency level
 * (Dynomite keeps the level per connection, so a connection carries one level for life; null =
 * "send none", as in datastore mode). Connections open lazily: a slot opens when every open one
 * already has work, and a broken one is replaced on its next use. Opening happens on the calling
 * thread, never on the event loop; one caller opens a slot while others keep using the open ones.
 *
 * <p>{@link #connection} picks the open connection with the least queued + in-flight requests.
 */
public final class MuxNodeChannels implements AutoCloseable {
  private final String node;
  private final InetSocketAddress address;
  private final EventLoopGroup group;
  private final MuxSettings settings;
  private final int perLevel;
  /** Slot (level index * perLevel + i); level index 0 is "no level", then each ConsistencyLevel. */
  private final AtomicReferenceArray<MuxConnection> slots;

  private final ReentrantLock[] opening;
  private volatile boolean closed;

  public MuxNodeChannels(
      String node,
      InetSocketAddress address,
      EventLoopGroup group,
      MuxSettings settings,
      int perLevel) {
    if (perLevel < 1) {
      throw new IllegalArgumentException(
          "connections per node must be >= 1, was " + perLevel + " (node " + node + ")");
    }
    this.node = node;
    this.address = address;
    this.group = group;
    this.settings = settings;
    this.perLevel = perLevel;
    int n = (ConsistencyLevel.values().length + 1) * perLevel;
    this.slots = new AtomicReferenceArray<>(n);
    this.opening = new ReentrantLock[n];
    for (int i = 0; i < n; i++) {
      opening[i] = new ReentrantLock();
    }
  }

  /** Shorthand: the least-loaded connection for {@code level}, then its submit. */
  public CompletableFuture<Object> submit(
      ConsistencyLevel level, CommandArguments cmd, long timeoutNanos) {
    return connection(level).submit(cmd, timeoutNanos);
  }

  /**
   * A connection carrying {@code level} (null: none set), opening or replacing one when needed.
   * Throws a {@link JedisConnectionException} naming the node when none is open and none can be.
   */
  public MuxConnection connection(ConsistencyLevel level) {
    return connection(level, settings.ticker().nanoTime() + MuxConnection.NO_DEADLINE);
  }

  /**
   * As {@link #connection(ConsistencyLevel)}, for a request that must be answered by
   * {@code deadlineNanos} (on the settings' {@link MuxSettings#ticker() ticker}): waiting for another
   * caller's open, and opening one here (connect, then AUTH or DYNO_CONFIG), end by then. The socket
   * timeout is no bound for a request capped below it: a frozen node still accepts connections, then
   * never answers the handshake.
   */
  public MuxConnection connection(ConsistencyLevel level, long deadlineNanos) {
    if (closed) {
      throw new JedisConnectionException("connections to " + node + " are closed");
    }
    int base = (level == null ? 0 : level.ordinal() + 1) * perLevel;
    MuxConnection best = null;
    int bestLoad = Integer.MAX_VALUE;
    int vacant = -1;
    for (int i = 0; i < perLevel; i++) {
      MuxConnection c = slots.get(base + i);
      if (c == null || c.isBroken()) {
        if (vacant < 0) {
          vacant = base + i;
        }
        continue;
      }
      int load = c.load();
      if (load < bestLoad) {
        best = c;
        bestLoad = load;
      }
    }
    if (best != null && (bestLoad == 0 || vacant < 0)) {
      return best;
    }
    // Every open one is busy (or none is open): open another, unless someone already is.
    if (best != null) {
      if (!opening[vacant].tryLock()) {
        return best;
      }
      try {
        return openSlot(vacant, level, deadlineNanos);
      } catch (JedisConnectionException e) {
        return best; // the node still answers on the others; the failure shows again on the next
        // open
      } finally {
        opening[vacant].unlock();
      }
    }
    ReentrantLock lock = opening[vacant];
    try {
      // Bounded like the connect it waits for: a dead node must not queue callers behind each other
      // forever.
      long wait = Math.min(
          settings.connectTimeout().toNanos() + settings.socketTimeout().toNanos(),
          deadlineNanos - settings.ticker().nanoTime());
      if (!lock.tryLock(Math.max(0, wait), TimeUnit.NANOSECONDS)) {
        throw new JedisConnectionException(
            "timed out waiting for another caller's connect to " + node);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new JedisConnectionException("interrupted while connecting to " + node, e);
    }
    try {
      return openSlot(vacant, level, deadlineNanos);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Opens a connection for {@code level} by {@code deadlineNanos} unless one is open already (a busy
   * one will do: this is no request of its own). Throws as {@link #connection} does.
   */
  public void ensureOpen(ConsistencyLevel level, long deadlineNanos) {
    int base = (level == null ? 0 : level.ordinal() + 1) * perLevel;
    for (int i = 0; i < perLevel; i++) {
      MuxConnection c = slots.get(base + i);
      if (c != null && !c.isBroken()) {
        return;
      }
    }
    connection(level, deadlineNanos);
  }

  /** Holding the slot's lock: the slot's connection if another caller just opened it, else a new one. */
  private MuxConnection openSlot(int slot, ConsistencyLevel level, long deadlineNanos) {
    MuxConnection c = slots.get(slot);
    if (c != null && !c.isBroken()) {
      return c;
    }
    MuxConnection fresh = MuxConnection.open(node, address, group, settings, level, deadlineNanos);
    slots.set(slot, fresh);
    if (c != null) {
      c.close();
    }
    if (closed) {
      fresh.close();
      throw new JedisConnectionException("connections to " + node + " are closed");
    }
    return fresh;
  }

  /** Open connections (any level) that are not broken. */
  public int openConnections() {
    int n = 0;
    for (int i = 0; i < slots.length(); i++) {
      MuxConnection c = slots.get(i);
      if (c != null && !c.isBroken()) {
        n++;
      }
    }
    return n;
  }

  /** Gauge: requests written and unanswered over all this node's connections. */
  public int inFlight() {
    int n = 0;
    for (int i = 0; i < slots.length(); i++) {
      MuxConnection c = slots.get(i);
      if (c != null) {
        n += c.inFlight();
      }
    }
    return n;
  }

  /** Gauge: requests submitted and not yet written over all this node's connections. */
  public int queued() {
    int n = 0;
    for (int i = 0; i < slots.length(); i++) {
      MuxConnection c = slots.get(i);
      if (c != null) {
        n += c.queued();
      }
    }
    return n;
  }

  public String node() {
    return node;
  }

  public long socketTimeoutMillis() {
    return settings.socketTimeout().toMillis();
  }

  /**
   * Fails every open connection (their requests fail at once naming the node and {@code why});
   * later calls open new ones. Never blocks.
   */
  public void abandon(String why) {
    for (int i = 0; i < slots.length(); i++) {
      MuxConnection c = slots.get(i);
      if (c != null) {
        c.abandon(why);
      }
    }
  }

  /** Closes every connection (their requests fail naming the node). Idempotent. */
  @Override
  public void close() {
    closed = true;
    for (int i = 0; i < slots.length(); i++) {
      MuxConnection c = slots.get(i);
      if (c != null) {
        c.close();
      }
    }
  }
}
