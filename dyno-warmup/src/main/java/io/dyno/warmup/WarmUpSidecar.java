package io.dyno.warmup;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;

/**
 * Runs beside one Dynomite node and warms it up ({@link WarmUp}) whenever it returns: once when the
 * sidecar starts (a new node, or one just restarted), and again after each return it sees: its
 * admin port answered nothing for a while (the node was down), its Dynomite {@code /info} uptime
 * went back (Dynomite restarted), or its Redis's {@code run_id} changed (Redis restarted, empty or
 * not). A failed warm-up leaves the node in STANDBY and is tried again on the next look.
 *
 * <p>Not seen: a node that stayed up but lost its peers (a network partition); its Redis missed the
 * other racks' writes meanwhile, and nothing here notices.
 */
public final class WarmUpSidecar implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WarmUpSidecar.class);

  private final WarmUpNode node;
  private final WarmUp warmUp;
  private final Duration every;
  private final DynomiteAdmin admin;
  private final AtomicInteger warmUps = new AtomicInteger();
  private final Thread thread;
  private volatile boolean closed;
  private volatile WarmUp.Report last;
  private volatile String lastFailure;

  /**
   * @param node the node this sidecar looks after
   * @param peers the nodes with the same token in other racks
   * @param every how often the node is looked at (its admin port and Redis)
   * @param syncTimeout how long one copy may take
   * @param maxPause the longest a peer's writes are paused for the switch
   */
  public WarmUpSidecar(
      WarmUpNode node,
      List<WarmUpNode> peers,
      Duration every,
      Duration syncTimeout,
      Duration maxPause) {
    this.node = Objects.requireNonNull(node, "node");
    this.warmUp = new WarmUp(node, peers, syncTimeout, maxPause);
    this.every = Objects.requireNonNull(every, "every");
    this.admin = new DynomiteAdmin(node.host(), node.adminPort(), Duration.ofSeconds(1));
    this.thread = new Thread(this::watch, "dyno-warmup-" + node);
    this.thread.setDaemon(true);
  }

  /** Starts looking after the node, on a daemon thread of its own. */
  public WarmUpSidecar start() {
    thread.start();
    return this;
  }

  /** {@return the warm-ups that finished} */
  public int warmUps() {
    return warmUps.get();
  }

  /** {@return the last warm-up's report, or null before the first} */
  public WarmUp.Report lastReport() {
    return last;
  }

  /** {@return why the last warm-up failed, or null} */
  public String lastFailure() {
    return lastFailure;
  }

  private void watch() {
    boolean due = true; // a node whose history is unknown is warmed once
    long lastUptime = -1;
    String lastRunId = null;
    while (!closed) {
      try {
        long uptime = admin.uptimeSeconds();
        String runId = runId();
        if (lastUptime >= 0 && uptime < lastUptime) {
          log.info("{}: Dynomite restarted (uptime {} s, was {} s)", node, uptime, lastUptime);
          due = true;
        }
        if (lastRunId != null && !lastRunId.equals(runId)) {
          log.info("{}: its Redis restarted (run_id changed)", node);
          due = true;
        }
        lastUptime = uptime;
        lastRunId = runId;
        if (due) {
          last = warmUp.run();
          lastFailure = null;
          warmUps.incrementAndGet();
          due = false;
        }
      } catch (IOException | RuntimeException e) {
        if (!due) {
          log.info("{} does not answer ({}): it is warmed up when it returns", node, e.toString());
        }
        lastFailure = e.toString();
        due = true; // down, unreachable, or a failed warm-up: warm it when it answers
      } catch (InterruptedException e) {
        return;
      }
      try {
        Thread.sleep(every.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private String runId() {
    try (Jedis redis = WarmUp.redis(node, 1000)) {
      for (String line : redis.info("server").split("\r?\n")) {
        if (line.startsWith("run_id:")) {
          return line.substring("run_id:".length()).strip();
        }
      }
    }
    throw new IllegalStateException(node + ": INFO server has no run_id");
  }

  /** Stops looking after the node (a warm-up under way is interrupted while it waits). Idempotent. */
  @Override
  public void close() {
    closed = true;
    thread.interrupt();
  }
}
