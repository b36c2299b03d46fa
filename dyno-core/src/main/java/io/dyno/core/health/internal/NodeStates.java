package io.dyno.core.health.internal;

import io.dyno.core.Host;
import io.dyno.core.time.Scheduler;
import io.dyno.core.topology.NodeState;
import io.dyno.core.topology.NodeStateSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Learns every node's Dynomite state from the cluster (a {@link NodeStateSource}, usually each
 * node's admin port) and tells the {@link HealthTracker}, which keeps calls off a node that does not
 * serve. One ask per node per {@code every}, on the I/O executor, never on a call's path; a node
 * whose last ask is still out is skipped. {@link #start} asks every node once and waits for the
 * answers (at most {@code firstWait}), so that a client's first calls already avoid a node in
 * STANDBY. A state that cannot be read is kept through {@link #FORGET_AFTER} failed asks in a row
 * (a busy admin port does not let calls onto a node in STANDBY), then forgotten: the node is judged
 * by its connections alone until an answer comes.
 */
public final class NodeStates implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodeStates.class);

  /** Failed asks in a row after which a node's last state is forgotten. */
  public static final int FORGET_AFTER = 5;

  private final NodeStateSource source;
  private final Supplier<Collection<Host>> hosts;
  private final HealthTracker health;
  private final Scheduler scheduler;
  private final Executor io;
  private final Set<Host> asking = ConcurrentHashMap.newKeySet();
  private final Map<Host, Integer> failures = new ConcurrentHashMap<>();
  private volatile Scheduler.Cancellable task;
  private volatile boolean closed;

  /**
   * @param hosts the nodes to ask (the current topology's); may throw when there is none yet
   */
  public NodeStates(
      NodeStateSource source,
      Supplier<Collection<Host>> hosts,
      HealthTracker health,
      Scheduler scheduler,
      Executor io) {
    this.source = source;
    this.hosts = hosts;
    this.health = health;
    this.scheduler = scheduler;
    this.io = io;
  }

  /** Asks every node now and waits at most {@code firstWait} for the answers, then every {@code every}. */
  public void start(Duration every, Duration firstWait) {
    CompletableFuture<?> first =
        CompletableFuture.allOf(askAll().toArray(CompletableFuture[]::new));
    try {
      first.get(firstWait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // slow or failed answers: the nodes are judged by their connections until they come
    }
    if (!closed) {
      task = scheduler.scheduleAtFixedRate(this::askAll, every, every);
    }
  }

  /** One ask per node not already being asked; the futures complete when each answer is in. */
  List<CompletableFuture<Void>> askAll() {
    List<CompletableFuture<Void>> out = new ArrayList<>();
    Collection<Host> now;
    try {
      now = hosts.get();
    } catch (RuntimeException noTopologyYet) {
      return out;
    }
    for (Host h : now) {
      if (closed || !asking.add(h)) {
        continue;
      }
      CompletableFuture<Void> done = new CompletableFuture<>();
      out.add(done);
      try {
        io.execute(() -> {
          try {
            ask(h);
          } finally {
            asking.remove(h);
            done.complete(null);
          }
        });
      } catch (RejectedExecutionException e) {
        asking.remove(h);
        done.complete(null);
      }
    }
    return out;
  }

  /** Asks {@code h}'s state now, on the calling thread (a health probe's), and records the answer. */
  public void askNow(Host h) {
    if (!closed) {
      ask(h);
    }
  }

  private void ask(Host h) {
    NodeState s;
    try {
      s = source.stateOf(h);
    } catch (Exception e) {
      int inARow = failures.merge(h, 1, Integer::sum);
      if (inARow == 1) {
        log.debug("cannot read the Dynomite state of {}: {}", h, e.toString());
      }
      if (inARow >= FORGET_AFTER) {
        health.nodeState(h, null);
      }
      return;
    }
    failures.remove(h);
    health.nodeState(h, s);
  }

  /** Stops asking. Idempotent. */
  @Override
  public void close() {
    closed = true;
    Scheduler.Cancellable t = task;
    if (t != null) {
      t.cancel();
    }
  }
}
