package io.dyno.core.exec.internal;

import io.dyno.core.Host;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.pool.internal.Pooled;
import io.dyno.core.routing.Topology;
import io.dyno.core.time.Ticker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The health probe of a node ({@link HealthTracker}'s prober): the node must answer (open + ping),
 * and when it is out of rotation its replication must work both ways before it may come back. A
 * restarted Dynomite accepts clients before its peer links are up and, until they are (about 1 s for
 * its own links, 3–4 s for its peers' links to it), silently keeps a write in the rack that took it;
 * a node readmitted in that window would miss writes for good (Dynomite never repairs). So a probe
 * key the node owns is written through it and must be read back, within {@link #WAIT}, through its
 * owner in every other rack that is up; and one is written through another rack's owner and must be
 * read back through the node. Not in datastore mode (no Dynomite, no replication), not for a node
 * in rotation (a steered node's latency probe), and not when the driver has no probe commands
 * ({@link NodeConnection#probeWrite}). Runs on the I/O executor, never a caller's thread.
 */
final class ReplicationCheck<C extends NodeConnection> implements ToLongFunction<Host> {
  private static final Logger log = LoggerFactory.getLogger(ReplicationCheck.class);

  /** How long a probe write may take to show in another rack (loopback p99 is under 1 ms). */
  static final Duration WAIT = Duration.ofMillis(50);

  private static final Duration TTL = Duration.ofSeconds(60);
  private static final long BORROW_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
  private static final int MAX_KEY_TRIES = 100_000;

  private final PoolRegistry<C> pools;
  private final Supplier<HealthTracker> health;
  private final Ticker ticker;
  private final boolean datastoreMode;
  private final AtomicBoolean unsupportedLogged = new AtomicBoolean();

  ReplicationCheck(
      PoolRegistry<C> pools, Supplier<HealthTracker> health, Ticker ticker, boolean datastoreMode) {
    this.pools = pools;
    this.health = health;
    this.ticker = ticker;
    this.datastoreMode = datastoreMode;
  }

  /** The node's ping round trip (ticker nanos), or -1 when it did not answer or does not replicate. */
  @Override
  public long applyAsLong(Host host) {
    long took = pools.pool(host).probe();
    if (took < 0) {
      return -1;
    }
    HealthTracker h = health.get();
    if (datastoreMode || h == null || h.isUp(host)) {
      return took;
    }
    try {
      return replicates(host, h) ? took : -1;
    } catch (UnsupportedOperationException e) {
      if (unsupportedLogged.compareAndSet(false, true)) {
        log.info("the driver has no probe commands: nodes come back without a replication check");
      }
      return took;
    }
  }

  private boolean replicates(Host host, HealthTracker h) {
    Topology t = pools.current();
    byte[] key = ownedKey(t, host);
    if (key == null) {
      return true; // the node owns nothing here (it is leaving the topology)
    }
    List<Host> others = new ArrayList<>();
    for (Host o : t.replicas(key)) {
      if (!o.rack().equals(host.rack()) && h.isUp(o)) {
        others.add(o); // a rack that is itself away cannot be checked, nor held against this node
      }
    }
    if (others.isEmpty()) {
      return true;
    }
    byte[] out = nonce();
    if (!write(host, key, out)) {
      return false;
    }
    for (Host o : others) {
      if (!readsBack(o, key, out)) {
        log.info(
            "node {} answers, but a write through it did not reach {} within {} ms"
                + " (its replication is not up yet): it stays out of rotation",
            host,
            o,
            WAIT.toMillis());
        return false;
      }
    }
    byte[] in = nonce();
    Host from = others.get(0);
    if (!write(from, key, in) || !readsBack(host, key, in)) {
      log.info(
          "node {} answers, but a write through {} did not reach it within {} ms"
              + " (replication to it is not up yet): it stays out of rotation",
          host,
          from,
          WAIT.toMillis());
      return false;
    }
    return true;
  }

  /** A key whose owner in {@code host}'s rack is {@code host}, or null. */
  private static byte[] ownedKey(Topology t, Host host) {
    String base = "dyno:replication-probe:" + host.address() + ":" + host.port() + ":";
    for (int i = 0; i < MAX_KEY_TRIES; i++) {
      byte[] key = (base + i).getBytes(StandardCharsets.UTF_8);
      if (t.replicas(key).contains(host)) {
        return key;
      }
    }
    return null;
  }

  private static byte[] nonce() {
    return Long.toHexString(ThreadLocalRandom.current().nextLong())
        .getBytes(StandardCharsets.UTF_8);
  }

  private boolean write(Host node, byte[] key, byte[] value) {
    NodePool<C> pool = pools.pool(node);
    Pooled<C> c = null;
    try {
      c = pool.borrow(BORROW_NANOS);
      c.connection().probeWrite(key, value, TTL);
      pool.release(c);
      return true;
    } catch (UnsupportedOperationException e) {
      release(pool, c);
      throw e;
    } catch (Exception e) {
      discard(pool, c);
      log.debug("replication probe write through {} failed: {}", node, e.toString());
      return false;
    }
  }

  /** Polls {@code node} for {@code key} until it reads {@code value}, for at most {@link #WAIT}. */
  private boolean readsBack(Host node, byte[] key, byte[] value) {
    NodePool<C> pool = pools.pool(node);
    Pooled<C> c = null;
    long end = ticker.nanoTime() + WAIT.toNanos();
    try {
      c = pool.borrow(BORROW_NANOS);
      while (true) {
        if (Arrays.equals(value, c.connection().probeRead(key))) {
          pool.release(c);
          return true;
        }
        if (ticker.nanoTime() - end >= 0) {
          pool.release(c);
          return false;
        }
        LockSupport.parkNanos(POLL_NANOS);
      }
    } catch (UnsupportedOperationException e) {
      release(pool, c);
      throw e;
    } catch (Exception e) {
      discard(pool, c);
      log.debug("replication probe read through {} failed: {}", node, e.toString());
      return false;
    }
  }

  private static <C extends NodeConnection> void release(NodePool<C> pool, Pooled<C> c) {
    if (c != null) {
      pool.release(c);
    }
  }

  private static <C extends NodeConnection> void discard(NodePool<C> pool, Pooled<C> c) {
    if (c != null) {
      pool.discard(c, "broken");
    }
  }
}
