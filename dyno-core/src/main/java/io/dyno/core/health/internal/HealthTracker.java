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
 * Which nodes take traffic, and which are preferred.
 *
 * <p>Out of rotation (DOWN): the executor skips the node while another replica exists. A node goes
 * DOWN in one of two ways:
 * <ul>
 *   <li>at once, when it stays silent: an attempt waited at least {@code silentNodeAfter} for its
 *       reply and timed out ({@link #timedOut}), the node has not answered since that request was
 *       sent, and other nodes kept answering quickly long after ({@link #replyTimes}). Without that
 *       witness the client itself may have stalled, and the verdict waits for one more look
 *       ({@link SilenceWitness}). A timeout after a wait shorter than {@code silentNodeAfter} (the
 *       call's share of its deadline was short) says nothing about the node and is not held
 *       against it;
 *   <li>by errors: each connection failure adds 1 to an error score that halves every
 *       {@code healthHalfLife}, so old errors fade; at {@code healthErrorThreshold} the node goes
 *       DOWN ({@link #failure}).
 * </ul>
 * A DOWN node is probed in the background (open + ping, on the I/O executor, never a caller's
 * thread) every {@code healthCoolDown}; a failed probe doubles the wait, up to
 * {@code healthMaxCoolDown} (by default equal: a probe every second), a good one is followed after
 * {@link #QUICK_PROBE_INTERVAL}. It comes back after {@link #GOOD_PROBES} probes in a row each
 * answered within {@code silentNodeAfter}: a node losing packets is not let back in by one lucky
 * probe, and a restarted node is back about half a second after its first good probe (one that
 * restarts often would otherwise be out for nearly all of each short life).
 *
 * <p>Steered: a node in rotation whose replies have become far slower than its peers'
 * ({@link #steer}, decided from recent latencies by the request path), or one reply of which ran
 * past {@code silentNodeAfter} while the node answered other requests ({@link SilenceWitness}:
 * lagging), is not preferred: calls go to another replica first; it is not counted as failed. A
 * probe every {@link #QUICK_PROBE_INTERVAL} times it; after {@link #GOOD_PROBES} in a row within the
 * bound it was steered at ({@link #GOOD_PROBES_AFTER_LAGGING} when lagging: a node losing packets
 * answers most probes in time), it is preferred again.
 *
 * <p>Data errors and Dynomite replica errors never count.
 */
public final class HealthTracker {
  private static final Logger log = LoggerFactory.getLogger(HealthTracker.class);

  /** Probes in a row that must answer in time before a node is back (in rotation, or preferred). */
  public static final int GOOD_PROBES = 3;

  /** Probes in a row a lagging node must answer in time before it is preferred again (5 s). */
  public static final int GOOD_PROBES_AFTER_LAGGING = 20;

  /** The wait after a good re-admission probe (at most healthCoolDown); steer probes' period. */
  public static final Duration QUICK_PROBE_INTERVAL = Duration.ofMillis(250);

  /** Why a node whose one reply was late while it and its peers answered others is steered. */
  private static final String LAGGING = "a reply wait ran out while it answered other requests"
      + " and nodes kept answering quickly (lost packets, a stalled connection)";

  /** How long a timeout not yet witnessed as the node's silence waits for a second look. */
  public static final Duration SILENCE_GRACE = SilenceWitness.GRACE;

  private final Map<Host, Node> nodes = new ConcurrentHashMap<>();
  private final SilenceWitness witness;
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
    this.witness = new SilenceWitness(config, scheduler);
  }

  /** Whether the node takes traffic. Unknown nodes do. Hot path: one map lookup and a volatile read. */
  public boolean isUp(Host host) {
    Node n = nodes.get(host);
    return n == null || n.up;
  }

  /** Whether calls should go to the node first: it takes traffic and is not steered away from. */
  public boolean isPreferred(Host host) {
    Node n = nodes.get(host);
    return n == null || (n.up && !n.steered);
  }

  /** Whether the node is steered away from for its latency (it still takes traffic). */
  public boolean isSteered(Host host) {
    Node n = nodes.get(host);
    return n != null && n.steered;
  }

  /** A connection failure on {@code host}: adds to its error score. */
  public void failure(Host host) {
    Node n = node(host);
    DynoConfig cfg = config.get();
    boolean tripped;
    synchronized (n) {
      long now = ticker.nanoTime();
      n.score = decayed(n, now, cfg) + 1.0;
      n.lastNanos = now;
      tripped = n.up && n.score >= cfg.healthErrorThreshold();
      if (tripped) {
        takeOut(n);
      }
    }
    if (tripped) {
      log.warn(
          "node {} taken out of rotation after repeated failures; probing every {} ms",
          host,
          cfg.healthCoolDown().toMillis());
      tookOut(host, n, cfg);
    }
  }

  /**
   * Where every reply from {@code host} is written (what tells a silent node from a stalled
   * client): kept by the caller that records replies, so that a reply costs no map lookup here;
   * once {@link ReplyTimes#forgotten()}, ask again.
   */
  public ReplyTimes replyTimes(Host host) {
    return witness.times(host);
  }

  /**
   * An attempt on {@code host} timed out after waiting {@code waitedNanos} for its reply. At least
   * {@code silentNodeAfter}, and witnessed (see the class comment): the node is taken out of
   * rotation, at once or after {@link #SILENCE_GRACE}. Shorter: not blamed.
   */
  public void timedOut(Host host, long waitedNanos) {
    if (waitedNanos < config.get().silentNodeAfter().toNanos()) {
      return;
    }
    Node n = node(host);
    if (n.up) {
      long sentAt = ticker.nanoTime() - waitedNanos;
      witness.timedOut(
          host,
          sentAt,
          silentSince -> takeOutSilent(host, n, silentSince),
          () -> steer(
              host, config.get().silentNodeAfter().toNanos(), LAGGING, GOOD_PROBES_AFTER_LAGGING));
    }
  }

  private void takeOutSilent(Host host, Node n, long silentSince) {
    boolean tripped;
    synchronized (n) {
      tripped = !closed && nodes.get(host) == n && n.up;
      if (tripped) {
        takeOut(n);
      }
    }
    if (tripped) {
      DynoConfig cfg = config.get();
      log.warn(
          "node {} taken out of rotation: no reply for {} ms while other nodes answered"
              + " (silentNodeAfter {} ms); probing every {} ms",
          host,
          (ticker.nanoTime() - silentSince) / 1_000_000,
          cfg.silentNodeAfter().toMillis(),
          cfg.healthCoolDown().toMillis());
      tookOut(host, n, cfg);
    }
  }

  /**
   * The node's recent replies are far slower than its peers': calls prefer other replicas until
   * {@link #GOOD_PROBES} probes in a row answer within {@code boundNanos}. No effect on a node
   * out of rotation or already steered.
   */
  public void steer(Host host, long boundNanos) {
    steer(host, boundNanos, "its recent replies are far slower than its peers'", GOOD_PROBES);
  }

  /** As {@link #steer(Host, long)}, {@code why} saying what the node did. */
  private void steer(Host host, long boundNanos, String why, int probesToReturn) {
    Node n = node(host);
    synchronized (n) {
      if (closed || !n.up || n.steered) {
        return;
      }
      n.steered = true;
      n.steerBoundNanos = boundNanos;
      n.probesToReturn = probesToReturn;
      n.goodProbes = 0;
    }
    log.warn(
        "node {} steered away from: {} (bound {} µs); probing its latency every {} ms",
        host,
        why,
        boundNanos / 1_000,
        QUICK_PROBE_INTERVAL.toMillis());
    schedule(host, n, QUICK_PROBE_INTERVAL, () -> steerProbe(host, n));
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

  private Node node(Host host) {
    Node n = nodes.get(host);
    return n != null ? n : nodes.computeIfAbsent(host, h -> new Node());
  }

  /** With the node's lock held. */
  private static void takeOut(Node n) {
    n.up = false;
    n.steered = false; // out of rotation says more; the re-admission probes take over
    n.failedProbes = 0;
    n.goodProbes = 0;
  }

  private void tookOut(Host host, Node n, DynoConfig cfg) {
    metrics.nodeHealth(host, false);
    cancelProbe(n);
    schedule(host, n, cfg.healthCoolDown(), () -> readmissionProbe(host, n));
  }

  private static double decayed(Node n, long now, DynoConfig cfg) {
    if (n.score == 0) {
      return 0;
    }
    double halfLives = (double) (now - n.lastNanos) / cfg.healthHalfLife().toNanos();
    return n.score * Math.pow(0.5, Math.max(0, halfLives));
  }

  /** Runs {@code probe} on the I/O executor after {@code delay}. */
  private void schedule(Host host, Node n, Duration delay, Runnable probe) {
    if (closed) {
      return;
    }
    n.probeTask = scheduler.schedule(
        () -> {
          try {
            io.execute(probe);
          } catch (RejectedExecutionException e) {
            schedule(host, n, delay, probe);
          }
        },
        delay);
  }

  /** How long the prober took to get an answer from the node (ticker nanos), or -1 when it failed. */
  private long timedProbe(Host host) {
    long start = ticker.nanoTime();
    try {
      return prober.test(host) ? Math.max(0, ticker.nanoTime() - start) : -1;
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private void readmissionProbe(Host host, Node n) {
    if (closed || nodes.get(host) != n || n.up) {
      return;
    }
    DynoConfig cfg = config.get();
    long took = timedProbe(host);
    boolean good = took >= 0 && took < cfg.silentNodeAfter().toNanos();
    boolean back;
    int failed;
    synchronized (n) {
      if (good) {
        n.goodProbes++;
        n.failedProbes = 0;
      } else {
        n.goodProbes = 0;
        n.failedProbes++;
      }
      back = n.goodProbes >= GOOD_PROBES;
      if (back) {
        n.up = true;
        n.score = 0;
        n.goodProbes = 0;
      }
      failed = n.failedProbes;
    }
    if (back) {
      log.info(
          "node {} answered {} health probes in a row and takes traffic again", host, GOOD_PROBES);
      metrics.nodeHealth(host, true);
      return;
    }
    schedule(host, n, probeWait(cfg, failed), () -> readmissionProbe(host, n));
  }

  /** The wait before the next probe of a DOWN node after {@code failed} failed probes in a row
   * (0: the last one was good). */
  static Duration probeWait(DynoConfig cfg, int failed) {
    long base = cfg.healthCoolDown().toNanos();
    if (failed <= 0) {
      return Duration.ofNanos(Math.min(base, QUICK_PROBE_INTERVAL.toNanos()));
    }
    long ceiling = Math.max(base, cfg.healthMaxCoolDown().toNanos());
    long grown = base << Math.min(20, failed);
    return Duration.ofNanos(Math.min(ceiling, grown < 0 ? ceiling : grown));
  }

  private void steerProbe(Host host, Node n) {
    if (closed || nodes.get(host) != n || !n.up || !n.steered) {
      return;
    }
    long took = timedProbe(host);
    boolean back;
    int needed;
    synchronized (n) {
      if (!n.up || !n.steered) {
        return;
      }
      n.goodProbes = took >= 0 && took <= n.steerBoundNanos ? n.goodProbes + 1 : 0;
      needed = n.probesToReturn;
      back = n.goodProbes >= needed;
      if (back) {
        n.steered = false;
        n.goodProbes = 0;
      }
    }
    if (back) {
      log.info("node {} answered {} latency probes in time and is preferred again", host, needed);
      return;
    }
    schedule(host, n, QUICK_PROBE_INTERVAL, () -> steerProbe(host, n));
  }

  /** Forgets a node that left the topology. */
  public void remove(Host host) {
    Node n = nodes.remove(host);
    witness.remove(host);
    if (n != null) {
      cancelProbe(n);
    }
  }

  /** Nodes currently DOWN. */
  public int downCount() {
    return (int) nodes.values().stream().filter(n -> !n.up).count();
  }

  /** Nodes currently steered away from. */
  public int steeredCount() {
    return (int) nodes.values().stream().filter(n -> n.steered).count();
  }

  public void close() {
    closed = true;
    witness.close();
    for (Node n : nodes.values()) {
      cancelProbe(n);
    }
  }

  private static void cancelProbe(Node n) {
    Scheduler.Cancellable task = n.probeTask;
    if (task != null) {
      task.cancel();
    }
  }

  private static final class Node {
    volatile boolean up = true;
    volatile boolean steered;
    double score;
    long lastNanos;
    int failedProbes;
    int goodProbes; // probes in a row that answered in time (re-admission, or the end of steering)
    long steerBoundNanos;
    int probesToReturn; // good probes in a row that end the steering
    volatile Scheduler.Cancellable probeTask;
  }
}
