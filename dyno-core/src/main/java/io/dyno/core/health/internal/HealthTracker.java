package io.dyno.core.health.internal;

import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.time.Scheduler;
import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Node health with time decay. Each connection failure or timeout adds 1 to a node's error score;
 * the score halves every {@code healthHalfLife}, so old errors fade (the original Dyno's budget of
 * 3 never decayed). When the score reaches {@code healthErrorThreshold} the node goes DOWN: the
 * executor skips it while another replica exists. After {@code healthCoolDown} a background probe
 * (open + ping, on the I/O executor) runs; success brings the node back UP with a clean score,
 * failure waits twice as long (up to {@code healthMaxCoolDown}) and probes again.
 * Data errors and Dynomite replica errors never count.
 */
public final class HealthTracker {
  private static final Logger log = LoggerFactory.getLogger(HealthTracker.class);

  private final Map<Host, Node> nodes = new ConcurrentHashMap<>();
  private final Supplier<DynoConfig> config;
  private final Ticker ticker;
  private final Scheduler scheduler;
  private final Executor io;
  private final Predicate<Host> prober;
  private final Meters metrics;
  private volatile boolean closed;

  /** @param prober blocking check of a node (run on {@code io}); true when it answered */
  public HealthTracker(
      Supplier<DynoConfig> config,
      Ticker ticker,
      Scheduler scheduler,
      Executor io,
      Predicate<Host> prober,
      Meters metrics) {
    this.config = config;
    this.ticker = ticker;
    this.scheduler = scheduler;
    this.io = io;
    this.prober = prober;
    this.metrics = metrics;
  }

  /** Whether the node takes traffic. Unknown nodes do. Hot path: one map lookup and a volatile read. */
  public boolean isUp(Host host) {
    Node n = nodes.get(host);
    return n == null || n.up;
  }

  /** A connection failure or timeout on {@code host}. */
  public void failure(Host host) {
    Node n = nodes.computeIfAbsent(host, h -> new Node());
    DynoConfig cfg = config.get();
    boolean tripped;
    synchronized (n) {
      long now = ticker.nanoTime();
      n.score = decayed(n, now, cfg) + 1.0;
      n.lastNanos = now;
      tripped = n.up && n.score >= cfg.healthErrorThreshold();
      if (tripped) {
        n.up = false;
        n.failedProbes = 0;
      }
    }
    if (tripped) {
      log.warn(
          "node {} taken out of rotation after repeated failures; probing in {} ms",
          host,
          cfg.healthCoolDown().toMillis());
      metrics.nodeHealth(host, false);
      scheduleProbe(host, n, cfg.healthCoolDown());
    }
  }

  /** The node's current (decayed) error score. */
  public double score(Host host) {
    Node n = nodes.get(host);
    if (n == null) {
      return 0;
    }
    synchronized (n) {
      return decayed(n, ticker.nanoTime(), config.get());
    }
  }

  private static double decayed(Node n, long now, DynoConfig cfg) {
    if (n.score == 0) {
      return 0;
    }
    double halfLives = (double) (now - n.lastNanos) / cfg.healthHalfLife().toNanos();
    return n.score * Math.pow(0.5, Math.max(0, halfLives));
  }

  private void scheduleProbe(Host host, Node n, Duration delay) {
    if (closed) {
      return;
    }
    n.probeTask = scheduler.schedule(
        () -> {
          try {
            io.execute(() -> probe(host, n));
          } catch (RejectedExecutionException e) {
            scheduleProbe(host, n, delay);
          }
        },
        delay);
  }

  private void probe(Host host, Node n) {
    if (closed || nodes.get(host) != n) {
      return;
    }
    boolean ok;
    try {
      ok = prober.test(host);
    } catch (RuntimeException e) {
      ok = false;
    }
    DynoConfig cfg = config.get();
    if (ok) {
      synchronized (n) {
        n.up = true;
        n.score = 0;
        n.failedProbes = 0;
      }
      log.info("node {} answered its health probe and takes traffic again", host);
      metrics.nodeHealth(host, true);
    } else {
      int failed;
      synchronized (n) {
        failed = ++n.failedProbes;
      }
      long next = Math.min(
          cfg.healthMaxCoolDown().toNanos(),
          cfg.healthCoolDown().toNanos() << Math.min(20, failed));
      scheduleProbe(host, n, Duration.ofNanos(next));
    }
  }

  /** Forgets a node that left the topology. */
  public void remove(Host host) {
    Node n = nodes.remove(host);
    if (n != null && n.probeTask != null) {
      n.probeTask.cancel();
    }
  }

  /** Nodes currently DOWN. */
  public int downCount() {
    int c = 0;
    for (Node n : nodes.values()) {
      if (!n.up) {
        c++;
      }
    }
    return c;
  }

  public void close() {
    closed = true;
    for (Node n : nodes.values()) {
      if (n.probeTask != null) {
        n.probeTask.cancel();
      }
    }
  }

  private static final class Node {
    volatile boolean up = true;
    double score;
    long lastNanos;
    int failedProbes;
    volatile Scheduler.Cancellable probeTask;
  }
}
