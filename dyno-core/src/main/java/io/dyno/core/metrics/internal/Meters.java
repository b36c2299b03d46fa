package io.dyno.core.metrics.internal;

import static io.dyno.core.metrics.DynoMetrics.*;

import com.netflix.spectator.api.Counter;
import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.DistributionSummary;
import com.netflix.spectator.api.Id;
import com.netflix.spectator.api.Registry;
import com.netflix.spectator.api.Timer;
import com.netflix.spectator.api.histogram.PercentileTimer;
import com.netflix.spectator.api.patterns.PolledMeter;
import io.dyno.core.Host;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * Records Dyno's meters ({@link io.dyno.core.metrics.DynoMetrics} names them) to one registry with
 * the {@code app} tag. One per engine; the pools, the request path, health and the topology
 * refresher (through the client) record here, so every part of one client shares one set of ids.
 */
public final class Meters {
  private final Registry registry;
  private final String app;
  private final Map<String, Timer> opTimers = new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final List<Id> polled = new ArrayList<>();

  /** @param registry the user's registry, or null for a private {@link DefaultRegistry} */
  public Meters(Registry registry, String app) {
    this.registry = registry != null ? registry : new DefaultRegistry();
    this.app = app;
  }

  public Registry registry() {
    return registry;
  }

  public Id id(String name, String... tags) {
    return registry.createId(name).withTag("app", app).withTags(tags);
  }

  /**
   * The borrow-delay recorder of one node's pool (one per pool).
   *
   * @param immediateBorrows the pool's running total of borrows that found a connection at once
   */
  public BorrowDelay borrowDelay(Host host, LongSupplier immediateBorrows) {
    return new BorrowDelay(
        registry, id(POOL_BORROW, "node", host.id(), "rack", host.rack()), immediateBorrows);
  }

  /**
   * The multiplexed transport's queue delay of one node ({@code MUX_QUEUE_DELAY}): a PercentileTimer
   * with the range of {@link BorrowDelay}, so both delays read on the same buckets.
   */
  public Timer muxQueueDelay(Host host) {
    return PercentileTimer.builder(registry)
        .withId(id(MUX_QUEUE_DELAY, nodeTags(host)))
        .withRange(BorrowDelay.MIN, BorrowDelay.MAX)
        .build();
  }

  /** The multiplexed transport's commands per write to one node ({@code MUX_WRITE_COMMANDS}). */
  public DistributionSummary muxWriteCommands(Host host) {
    return registry.distributionSummary(id(MUX_WRITE_COMMANDS, nodeTags(host)));
  }

  /** The multiplexed transport's in-flight-limit timeouts of one node ({@code MUX_IN_FLIGHT_LIMIT_TIMEOUTS}). */
  public Counter muxInFlightLimitTimeouts(Host host) {
    return registry.counter(id(MUX_IN_FLIGHT_LIMIT_TIMEOUTS, nodeTags(host)));
  }

  /** The tags of a node's pool meters: node (its id) and rack. */
  public static String[] nodeTags(Host host) {
    return new String[] {"node", host.id(), "rack", host.rack()};
  }

  public void borrowTimeout(Host host) {
    counter(POOL_BORROW_TIMEOUTS, "node", host.id(), "rack", host.rack()).increment();
  }

  public void connectionCreated(Host host) {
    counter(CONNECTIONS_CREATED, "node", host.id()).increment();
  }

  public void connectionFailed(Host host) {
    counter(CONNECTIONS_FAILED, "node", host.id()).increment();
  }

  public void connectionClosed(Host host, String reason) {
    counter(CONNECTIONS_CLOSED, "node", host.id(), "reason", reason).increment();
  }

  /** The timer of one executor call's {@code dyno.op} samples (callers keep it: see OpTimers). */
  public Timer opTimer(String command, String outcome, String rack) {
    String key = command + '\u0000' + outcome + '\u0000' + rack;
    Timer t = opTimers.get(key);
    if (t == null) {
      t = opTimers.computeIfAbsent(
          key,
          k ->
              registry.timer(id(OP_LATENCY, "command", command, "outcome", outcome, "rack", rack)));
    }
    return t;
  }

  public void retry(String command) {
    counter(OP_RETRIES, "command", command).increment();
  }

  public void failover(String command, String toRack) {
    counter(OP_FAILOVERS, "command", command, "rack", toRack).increment();
  }

  /** A hedged read: {@code result} is sent, won or discarded (see {@link io.dyno.core.metrics.DynoMetrics#HEDGES}). */
  public void hedge(String command, String result) {
    counter(HEDGES, "command", command, "result", result).increment();
  }

  public void consistencySet(String level) {
    counter(CONSISTENCY_SET, "level", level).increment();
  }

  public void nodeHealth(Host host, boolean up) {
    counter(NODE_HEALTH, "node", host.id(), "state", up ? "up" : "down").increment();
  }

  /** For the topology refresher: one refresh finished, successfully or not. */
  public void topologyRefresh(boolean success) {
    counter(TOPOLOGY_REFRESH, "result", success ? "success" : "failure").increment();
  }

  /** Registers a polled gauge; removed by {@link #close()}. */
  public synchronized <T> void gauge(Id id, T obj, ToDoubleFunction<T> fn) {
    PolledMeter.using(registry).withId(id).monitorValue(obj, fn);
    polled.add(id);
  }

  public synchronized void removeGauge(Id id) {
    PolledMeter.remove(registry, id);
    polled.remove(id);
  }

  private Counter counter(String name, String... tags) {
    StringBuilder k = new StringBuilder(name);
    for (String t : tags) {
      k.append('\u0000').append(t);
    }
    String key = k.toString();
    Counter c = counters.get(key);
    if (c == null) {
      c = counters.computeIfAbsent(key, x -> registry.counter(id(name, tags)));
    }
    return c;
  }

  /** Removes the gauges this instance registered. Idempotent. */
  public synchronized void close() {
    for (Id id : polled) {
      PolledMeter.remove(registry, id);
    }
    polled.clear();
  }
}
