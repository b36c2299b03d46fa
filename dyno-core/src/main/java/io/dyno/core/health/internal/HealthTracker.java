package io.dyno.core.health.internal;

import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.time.Scheduler;
import io.dyno.core.time.Ticker;
import io.dyno.core.topology.NodeState;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
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
 *       against it. The calls still waiting on a node found silent are failed then (its driver
 *       abandons their connections), so each moves to a replica at once rather than each at its own
 *       timeout;
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
 * <p>Not serving: a node whose Dynomite state, learnt from its admin port ({@link NodeStates}), is
 * not {@link NodeState#NORMAL} (STANDBY while it is warmed up, WRITES_ONLY, ...) is treated as out
 * of rotation, whatever its connections say, until its state is NORMAL again: it refuses reads, and
 * drops or holds writes. A node whose state cannot be learnt is judged by its connections alone.
 *
 * <p>Data errors and Dynomite replica errors never count. Each node's standing and its transitions
 * are a {@link NodeHealth}; this class decides when they happen, and logs, counts and probes.
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

  private final Map<Host, NodeHealth> nodes = new ConcurrentHashMap<>();
  private final SilenceWitness witness;
  private final Supplier<DynoConfig> config;
  private final Ticker ticker;
  private final Scheduler scheduler;
  private final Executor io;
  private final ToLongFunction<Host> prober;
  private final Consumer<Host> abandonCalls;
  private final Meters metrics;
  private volatile boolean closed;

  /**
   * @param prober blocking check of a node (run on {@code io}): the round trip of one request on a
   *     connection it opened (ticker nanos; the connect is not counted), or -1 when it got no answer
   * @param abandonCalls run once a node is found silent and taken out of rotation: fails the calls
   *     still waiting on it, so that each moves to a replica now instead of at its own timeout
   */
  public HealthTracker(
      Supplier<DynoConfig> config,
      Ticker ticker,
      Scheduler scheduler,
      Executor io,
      ToLongFunction<Host> prober,
      Consumer<Host> abandonCalls,
      Meters metrics) {
    this.config = config;
    this.abandonCalls = abandonCalls;
    this.ticker = ticker;
    this.scheduler = scheduler;
    this.io = io;
    this.prober = prober;
    this.metrics = metrics;
    this.witness = new SilenceWitness(config, scheduler);
  }

  /**
   * Whether the node takes traffic: in rotation and serving by its Dynomite state. Unknown nodes do.
   * Hot path: one map lookup and two volatile reads.
   */
  public boolean isUp(Host host) {
    NodeHealth n = nodes.get(host);
    return n == null || (n.up && n.state.serves());
  }

  /** Whether calls should go to the node first: it takes traffic and is not steered away from. */
  public boolean isPreferred(Host host) {
    NodeHealth n = nodes.get(host);
    return n == null || (n.up && !n.steered && n.state.serves());
  }

  /**
   * Why the node takes no traffic now, for errors and logs, or null when it does: "is out of
   * rotation" (its connections failed), or the Dynomite state that keeps calls off it.
   */
  public String whyOut(Host host) {
    NodeHealth n = nodes.get(host);
    if (n == null || (n.up && n.state.serves())) {
      return null;
    }
    if (!n.up) {
      return "is out of rotation";
    }
    return "is in Dynomite state " + n.state + " (it serves no reads, and drops or holds writes)";
  }

  /** The node's Dynomite state as last learnt ({@link NodeState#NORMAL} until one is). */
  public NodeState state(Host host) {
    NodeHealth n = nodes.get(host);
    return n == null ? NodeState.NORMAL : n.state;
  }

  /**
   * The node's Dynomite state was learnt: {@code state}, or null when it could not be (the node is
   * then judged by its connections alone, as if NORMAL). Logs a change.
   */
  public void nodeState(Host host, NodeState state) {
    if (closed) {
      return;
    }
    NodeState now = state == null ? NodeState.NORMAL : state;
    NodeHealth n = now == NodeState.NORMAL ? nodes.get(host) : node(host);
    if (n == null) {
      return;
    }
    NodeState was = n.state;
    n.state = now;
    if (was == now) {
      return;
    }
    if (!now.serves()) {
      log.warn("node {} is in Dynomite state {}: calls go to other replicas", host, now);
    } else if (state != null) {
      log.info("node {} is in Dynomite state NORMAL again and takes traffic", host);
    } else {
      log.info(
          "node {} was in Dynomite state {}; its state cannot be read now: judged by its"
              + " connections alone",
          host,
          was);
    }
  }

  /** Whether the node is steered away from for its latency (it still takes traffic). */
  public boolean isSteered(Host host) {
    NodeHealth n = nodes.get(host);
    return n != null && n.steered;
  }

  /** A connection failure on {@code host}: adds to its error score. */
  public void failure(Host host) {
    NodeHealth n = node(host);
    DynoConfig cfg = config.get();
    if (n.failed(ticker.nanoTime(), cfg)) {
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
    NodeHealth n = node(host);
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

  private void takeOutSilent(Host host, NodeHealth n, long silentSince) {
    if (!closed && nodes.get(host) == n && n.takeOutIfUp()) {
      DynoConfig cfg = config.get();
      log.warn(
          "node {} taken out of rotation: no reply for {} ms while other nodes answered"
              + " (silentNodeAfter {} ms); probing every {} ms",
          host,
          (ticker.nanoTime() - silentSince) / 1_000_000,
          cfg.silentNodeAfter().toMillis(),
          cfg.healthCoolDown().toMillis());
      tookOut(host, n, cfg);
      try {
        abandonCalls.accept(host);
      } catch (RuntimeException e) {
        log.warn("could not fail the calls waiting on silent node {}", host, e);
      }
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
    NodeHealth n = node(host);
    if (closed || !n.steer(boundNanos, probesToReturn)) {
      return;
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
    NodeHealth n = nodes.get(host);
    if (n == null) {
      return 0;
    }
    return n.score(ticker.nanoTime(), config.get());
  }

  private NodeHealth node(Host host) {
    NodeHealth n = nodes.get(host);
    return n != null ? n : nodes.computeIfAbsent(host, h -> new NodeHealth());
  }

  private void tookOut(Host host, NodeHealth n, DynoConfig cfg) {
    metrics.nodeHealth(host, false);
    cancelProbe(n);
    schedule(host, n, cfg.healthCoolDown(), () -> readmissionProbe(host, n));
  }

  /** Runs {@code probe} on the I/O executor after {@code delay}. */
  private void schedule(Host host, NodeHealth n, Duration delay, Runnable probe) {
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

  /** The probe's ping round trip (ticker nanos), or -1 when the node did not answer. */
  private long timedProbe(Host host) {
    try {
      return Math.max(-1, prober.applyAsLong(host));
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private void readmissionProbe(Host host, NodeHealth n) {
    if (closed || nodes.get(host) != n || n.up) {
      return;
    }
    DynoConfig cfg = config.get();
    // The whole probe, connect and handshake too, within silentNodeAfter: a node losing packets
    // holds one of them for a retransmission far more often than the one ping alone.
    long start = ticker.nanoTime();
    boolean answered = timedProbe(host) >= 0;
    long whole = ticker.nanoTime() - start;
    if (n.readmissionProbed(answered && whole < cfg.silentNodeAfter().toNanos(), GOOD_PROBES)) {
      log.info(
          "node {} answered {} health probes in a row and takes traffic again", host, GOOD_PROBES);
      metrics.nodeHealth(host, true);
      return;
    }
    schedule(host, n, probeWait(cfg, n.failedProbes()), () -> readmissionProbe(host, n));
  }

  /**
   * The wait before the next probe of a DOWN node after {@code failed} failed probes in a row (0:
   * the last one was good).
   */
  static Duration probeWait(DynoConfig cfg, int failed) {
    long base = cfg.healthCoolDown().toNanos();
    if (failed <= 0) {
      return Duration.ofNanos(Math.min(base, QUICK_PROBE_INTERVAL.toNanos()));
    }
    long ceiling = Math.max(base, cfg.healthMaxCoolDown().toNanos());
    long grown = base << Math.min(20, failed);
    return Duration.ofNanos(Math.min(ceiling, grown < 0 ? ceiling : grown));
  }

  private void steerProbe(Host host, NodeHealth n) {
    if (closed || nodes.get(host) != n || !n.up || !n.steered) {
      return;
    }
    long took = timedProbe(host);
    if (took < 0) {
      // No answer at all: the node is not slow but gone (killed while steered away from, so no call
      // found out). Out of rotation, it comes back on re-admission probes, each within
      // silentNodeAfter, not within the tight latency bound a cold restarted node cannot meet.
      if (n.takeOutIfUp()) {
        DynoConfig cfg = config.get();
        log.warn(
            "node {} taken out of rotation: a latency probe got no answer while it was steered"
                + " away from; probing every {} ms",
            host,
            cfg.healthCoolDown().toMillis());
        tookOut(host, n, cfg);
      }
      return;
    }
    NodeHealth.SteerProbe verdict = n.steerProbed(took);
    if (verdict == NodeHealth.SteerProbe.GONE) {
      return;
    }
    if (verdict == NodeHealth.SteerProbe.BACK) {
      log.info(
          "node {} answered {} latency probes in time and is preferred again",
          host,
          n.probesToReturn());
      return;
    }
    schedule(host, n, QUICK_PROBE_INTERVAL, () -> steerProbe(host, n));
  }

  /** Forgets a node that left the topology. */
  public void remove(Host host) {
    NodeHealth n = nodes.remove(host);
    witness.remove(host);
    if (n != null) {
      cancelProbe(n);
    }
  }

  /** Nodes currently DOWN, or not serving by their Dynomite state. */
  public int downCount() {
    return (int) nodes.values().stream().filter(n -> !n.up || !n.state.serves()).count();
  }

  /** Nodes currently steered away from. */
  public int steeredCount() {
    return (int) nodes.values().stream().filter(n -> n.steered).count();
  }

  public void close() {
    closed = true;
    witness.close();
    for (NodeHealth n : nodes.values()) {
      cancelProbe(n);
    }
  }

  private static void cancelProbe(NodeHealth n) {
    Scheduler.Cancellable task = n.probeTask;
    if (task != null) {
      task.cancel();
    }
  }
}
