package io.dyno.e2e.faults;

import static org.awaitility.Awaitility.await;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.Transport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One fault, run under load from three clients at once (pooled, multiplexed, and multiplexed with
 * hedged reads), all told the same {@link ClusterView}: warm-up, healthy, the fault, and after it
 * until each client's traffic is back on the faulted node (bounded). Yields each client's {@link
 * Figures}. Closes its clients and watches. Timings come from {@link FaultTimings}.
 */
final class FaultRun implements AutoCloseable {
  static final Duration DEADLINE = Duration.ofMillis(500);
  static final Duration HEDGE_AFTER = Duration.ofMillis(10);

  /** The client kinds, each run at once against the same fault. */
  enum ClientKind {
    POOLED("pooled", Transport.POOLED, false),
    MULTIPLEXED("multiplexed", Transport.MULTIPLEXED, false),
    HEDGED("mux+hedge", Transport.MULTIPLEXED, true);

    final String label;
    final Transport transport;
    final boolean hedged;

    ClientKind(String label, Transport transport, boolean hedged) {
      this.label = label;
      this.transport = transport;
      this.hedged = hedged;
    }
  }

  /** What a run does to the faulted node: start it, hold it for its length, end it. */
  interface Fault {
    void begin() throws Exception;

    /** Holds the fault; by default for {@code length} under load. */
    default void hold(Duration length) throws Exception {
      Thread.sleep(length.toMillis()); // the fault's length under load, not synchronisation
    }

    void end() throws Exception;
  }

  final long originNanos = System.nanoTime();
  final MachineStalls stalls = new MachineStalls(originNanos);
  final ClusterView view;
  final NodeStalls nodeStalls;
  final FaultTimings timings;
  final List<DynoJedisClient> clients = new ArrayList<>();
  final List<FaultLoad> loads = new ArrayList<>();
  private final List<RotationWatch> watches = new ArrayList<>();
  private final List<CounterCheck> counters = new ArrayList<>();
  private Figures.Marks marks;
  /** When the fault began, by the wall clock: to line the seconds up with the machine's own records. */
  Instant faultBegan;

  FaultRun(String app, ClusterView view, List<byte[]> keys, FaultTimings timings) {
    this.view = view;
    this.nodeStalls = new NodeStalls(view.healthyNodes(), originNanos);
    this.timings = timings;
    for (ClientKind kind : ClientKind.values()) {
      CallTrace.Recorder traces = new CallTrace.Recorder(view.faulted());
      DynoJedisClient c = client(app, kind, traces);
      clients.add(c);
      loads.add(new FaultLoad(
          kind.label, c, traces, keys, timings.threads(), timings.rate(), originNanos, nodeStalls));
    }
  }

  private DynoJedisClient client(String app, ClientKind kind, CallTrace.Recorder traces) {
    return DynoJedisClient.builder()
        .transport(kind.transport)
        .config(DynoConfig.builder()
            .applicationName(app + "-" + kind.name().toLowerCase())
            // A connection per thread on the pooled transport: no caller queues behind another.
            .maxConnsPerHost(timings.threads() + timings.counterThreads())
            .requestDeadline(DEADLINE)
            .hedgeReads(kind.hedged ? HedgePolicy.after(HEDGE_AFTER) : HedgePolicy.off())
            .build())
        .registry(new DefaultRegistry())
        .hostSupplier(view.hostSupplier())
        .tokenMapSupplier(view.tokenMapSupplier())
        .localRack(view.faulted().rack())
        .topologyRefreshPeriod(Duration.ofSeconds(1))
        .eventListener(traces)
        .build();
  }

  /**
   * Adds an INCR counter check per client, on {@code key}, run from the fault's start until traffic
   * is back on the faulted node (or the after phase ran out).
   */
  List<CounterCheck> withCounters(String key) {
    for (int i = 0; i < clients.size(); i++) {
      String name = loads.get(i).name;
      counters.add(new CounterCheck(
          name, clients.get(i), key + ":" + name, timings.counterThreads(), timings.counterRate()));
    }
    return counters;
  }

  /** Runs the timeline with {@code fault} held for {@code length}; each client's figures. */
  List<Figures> run(Fault fault, Duration length) throws Exception {
    for (int i = 0; i < clients.size(); i++) {
      watches.add(new RotationWatch(loads.get(i).name, clients.get(i), originNanos));
      loads.get(i).start();
    }
    Thread.sleep(timings.warmUp().toMillis()); // connections, JIT: not measured
    awaitEveryClientHealthy();
    awaitSteadyLoad();
    long healthyMs = nowMs();
    Thread.sleep(timings.healthy().toMillis()); // the healthy phase under load
    long faultMs = nowMs();
    faultBegan = Instant.now();
    long afterMs;
    loads.forEach(l -> l.away(true));
    try {
      fault.begin();
      counters.forEach(CounterCheck::start);
      fault.hold(length);
    } finally {
      fault.end();
      afterMs = nowMs();
    }
    awaitTrafficBack();
    // The counters run on through the node's return: their check then covers the return as well,
    // and never rests on no INCR acknowledged (a node flapping every few seconds may rightly stay
    // out of rotation for the whole fault, refusing every INCR for its key).
    for (CounterCheck c : counters) c.stop();
    long endMs = nowMs();
    for (FaultLoad l : loads) l.stop();
    marks = new Figures.Marks(healthyMs, faultMs, afterMs, endMs);
    List<Figures> figures = new ArrayList<>();
    for (FaultLoad l : loads)
      figures.add(new Figures(l.name, l.records(), marks, stalls, nodeStalls));
    return figures;
  }

  /**
   * The fault starts from a healthy state: every client holds every node in rotation and gets
   * answers from the faulted node (at most 15 s; if not, the run goes on and its figures show it).
   */
  private void awaitEveryClientHealthy() {
    long[] before = loads.stream().mapToLong(l -> l.servedByFaulted.get()).toArray();
    try {
      await("every client healthy before the fault")
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> {
            for (int i = 0; i < loads.size(); i++) {
              if (loads.get(i).servedByFaulted.get() < before[i] + 200) return false;
              DynoJedisClient c = clients.get(i);
              if (!c.topology().hosts().stream().allMatch(c::isNodeUp)) return false;
            }
            return true;
          });
    } catch (ConditionTimeoutException stillUnhealthy) {
      System.out.println(
          "not every client was healthy after the warm-up: starting the fault anyway");
    }
  }

  /** Share of its paced rate each client must keep for {@link #STEADY_SECONDS} before measuring. */
  static final double STEADY_SHARE = 0.9;

  static final int STEADY_SECONDS = 2;
  static final Duration STEADY_AT_MOST = Duration.ofSeconds(15);

  /** A client the machine cannot carry at its rate is paced at this share of what it did carry. */
  static final double LOWERED_SHARE = 0.8;

  /**
   * The healthy phase is the reference of every relative check, so it starts warm: once each paced
   * client has done at least {@link #STEADY_SHARE} of its rate for {@link #STEADY_SECONDS} whole
   * seconds in a row (the JIT of this JVM and, on a class's first test, of the servers' has done
   * its work). A machine too busy to carry the rate within {@link #STEADY_AT_MOST} (a parallel
   * build) has each such client paced at {@link #LOWERED_SHARE} of what it did in its last second,
   * so that a second below half of healthy again means a client held its callers, not a saturated
   * machine; the run prints it. Still not steady after as long again: the run goes on, and its
   * figures show it.
   */
  private void awaitSteadyLoad() throws InterruptedException {
    if (loads.stream().allMatch(l -> l.rate() == 0)) return;
    long start = System.nanoTime();
    double[] carried = steadyWithin(STEADY_AT_MOST);
    if (carried != null) {
      List<String> lowered = new ArrayList<>();
      for (int i = 0; i < loads.size(); i++) {
        FaultLoad l = loads.get(i);
        int rate = (int) Math.max(50, LOWERED_SHARE * carried[i]);
        if (l.rate() > 0 && carried[i] < STEADY_SHARE * l.rate() && rate < l.rate()) {
          lowered.add(String.format(
              Locale.ROOT,
              "%s %d -> %d ops/s (it carried %.0f)",
              l.name,
              l.rate(),
              rate,
              carried[i]));
          l.repace(rate);
        }
      }
      System.out.println("the machine did not carry the paced load within "
          + STEADY_AT_MOST.toSeconds() + " s; paced lower: " + String.join(", ", lowered));
      if (steadyWithin(STEADY_AT_MOST) != null) {
        System.out.println("still not steady: measuring anyway");
        return;
      }
    }
    System.out.printf(
        "load steady (every client at %.0f %% of its rate or more for %d s) after %.1f s more%n",
        STEADY_SHARE * 100, STEADY_SECONDS, (System.nanoTime() - start) / 1e9);
  }

  /**
   * Null once every paced client kept {@link #STEADY_SHARE} of its rate for {@link
   * #STEADY_SECONDS} seconds in a row within {@code atMost}; else what each did in the last second.
   */
  private double[] steadyWithin(Duration atMost) throws InterruptedException {
    long start = System.nanoTime();
    int steady = 0;
    double[] perSecond = new double[loads.size()];
    long[] before = loads.stream().mapToLong(l -> l.completed.get()).toArray();
    long from = System.nanoTime();
    while (steady < STEADY_SECONDS) {
      if (System.nanoTime() - start > atMost.toNanos()) return perSecond;
      Thread.sleep(1_000); // one second of load, whose operations are then counted
      long now = System.nanoTime();
      boolean all = true;
      for (int i = 0; i < loads.size(); i++) {
        FaultLoad l = loads.get(i);
        long done = l.completed.get();
        perSecond[i] = (done - before[i]) * 1e9 / (now - from);
        all &= l.rate() == 0 || perSecond[i] >= STEADY_SHARE * l.rate();
        before[i] = done;
      }
      from = now;
      steady = all ? steady + 1 : 0;
    }
    return null;
  }

  /**
   * After the fault: until every client has had a few hundred answers from the faulted node again
   * and holds it in rotation, then 3 s more to measure the return; at most {@code timings.after()}.
   */
  private void awaitTrafficBack() throws InterruptedException {
    long start = System.nanoTime();
    long[] before = loads.stream().mapToLong(l -> l.servedByFaulted.get()).toArray();
    try {
      await("traffic back on " + view.faulted())
          .atMost(timings.after())
          .pollInterval(Duration.ofMillis(100))
          .until(() -> {
            clearAwayOnceBack();
            for (int i = 0; i < loads.size(); i++) {
              if (loads.get(i).servedByFaulted.get() < before[i] + 300) return false;
              if (!clients.get(i).isNodeUp(view.faulted())) return false;
            }
            return true;
          });
    } catch (ConditionTimeoutException notBack) {
      return; // the figures say how long it took (or that it never came back)
    }
    long left =
        Math.min(3_000, timings.after().toMillis() - (System.nanoTime() - start) / 1_000_000);
    for (long end = System.nanoTime() + left * 1_000_000; System.nanoTime() - end < 0; ) {
      clearAwayOnceBack();
      Thread.sleep(50); // load after the return, to measure it; polls the clients' rotation
    }
  }

  /** Each client that holds the faulted node in rotation again no longer has it away. */
  private void clearAwayOnceBack() {
    for (int i = 0; i < loads.size(); i++) {
      if (loads.get(i).isAway() && clients.get(i).isNodeUp(view.faulted())) {
        loads.get(i).away(false);
      }
    }
  }

  /** The rotation watch of client {@code i}. */
  RotationWatch watch(int i) {
    return watches.get(i);
  }

  private long nowMs() {
    return (System.nanoTime() - originNanos) / 1_000_000;
  }

  @Override
  public void close() throws Exception {
    for (FaultLoad l : loads) l.stop();
    for (CounterCheck c : counters) c.stop();
    watches.forEach(RotationWatch::close);
    for (DynoJedisClient c : clients) c.close();
    stalls.close();
    nodeStalls.close();
  }
}
