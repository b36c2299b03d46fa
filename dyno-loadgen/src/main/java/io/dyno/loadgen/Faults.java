package io.dyno.loadgen;

import io.dyno.companion.CompanionNode;
import io.dyno.companion.dynomite.DynomiteNode;
import io.dyno.loadgen.bench.SettingValues;
import io.dyno.loadgen.target.DynomiteTarget;
import io.dyno.loadgen.target.EmbeddedTarget;
import io.dyno.loadgen.target.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;

/**
 * Faults injected into a cluster the load generator started, at times of the measured run:
 * {@code kind:rack:index@from-to}, e.g. {@code kill:rack1:1@120s-180s}. Kinds, per server:
 * <ul>
 *   <li>{@code kill}: real Dynomite SIGKILL then start on the same ports; the companion node stops listening, then starts;
 *   <li>{@code pause}: real Dynomite SIGSTOP / SIGCONT (a hung node); the companion node hangs, then answers again;
 *   <li>{@code peers}: the node's peer links cut and restored. The companion cuts exactly its peer connections.
 *       Real Dynomite has no switch for that, so the node is SIGSTOPped (its peers' connections to it stall and its
 *       own clients get nothing), which cuts every link of the node, the peer links included;
 *   <li>{@code redis}: the node's datastore gone and back (real Dynomite: its redis-server killed and restarted;
 *       companion: backend down / up).
 * </ul>
 * Each start and end is an event on the run's time line (the report's failure window).
 */
final class Faults implements AutoCloseable {
  record Fault(String kind, String rack, int index, double from, double to, String spec) {}

  private final List<Fault> faults;
  private final Target target;
  private ScheduledExecutorService timer;

  private Faults(List<Fault> faults, Target target) {
    this.faults = faults;
    this.target = target;
  }

  static Faults parse(String spec, Target target) {
    List<Fault> list = new ArrayList<>();
    if (spec != null && !spec.isBlank()) {
      for (String one : spec.split(",")) {
        String s = one.trim();
        try {
          int at = s.indexOf('@');
          String[] parts = s.substring(0, at).split(":");
          String[] window = s.substring(at + 1).split("-");
          String kind = parts[0];
          if (!List.of("kill", "pause", "peers", "redis").contains(kind))
            throw new IllegalArgumentException("kind " + kind);
          double from = SettingValues.parseDuration("fault", window[0]).toMillis() / 1000.0;
          double to = SettingValues.parseDuration("fault", window[1]).toMillis() / 1000.0;
          if (to <= from) throw new IllegalArgumentException("end before start");
          list.add(new Fault(kind, parts[1], Integer.parseInt(parts[2]), from, to, s));
        } catch (RuntimeException e) {
          throw new IllegalArgumentException("--fault \"" + s
              + "\": expected kind:rack:index@from-to with kind kill, pause, peers "
              + "or redis, e.g. kill:rack1:1@120s-180s (" + e.getMessage() + ")");
        }
      }
      if (!(target instanceof DynomiteTarget) && !(target instanceof EmbeddedTarget)) {
        throw new IllegalArgumentException(
            "--fault needs a cluster this tool started (--target dynomite or companion), not "
                + target.describe());
      }
    }
    Faults faults = new Faults(list, target);
    for (Fault f : list) faults.node(f); // fails now, naming the node, when it does not exist
    return faults;
  }

  boolean any() {
    return !faults.isEmpty();
  }

  List<String> describe() {
    return faults.stream()
        .map(f -> f.spec() + " (" + f.kind() + " " + f.rack() + "[" + f.index() + "] from "
            + f.from() + " s to " + f.to() + " s)")
        .toList();
  }

  private Object node(Fault f) {
    if (target instanceof DynomiteTarget d) return d.cluster().node(f.rack(), f.index());
    return ((EmbeddedTarget) target).cluster().node(f.rack(), f.index());
  }

  /** Starts a timer that applies each fault when {@code clock} (seconds into the run) reaches its window. */
  void schedule(DoubleSupplier clock, BiConsumer<String, String> event, Consumer<String> out) {
    if (faults.isEmpty()) return;
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "bench-faults");
      t.setDaemon(true);
      return t;
    });
    boolean[] started = new boolean[faults.size()];
    boolean[] ended = new boolean[faults.size()];
    timer.scheduleWithFixedDelay(
        () -> {
          double now = clock.getAsDouble();
          for (int i = 0; i < faults.size(); i++) {
            Fault f = faults.get(i);
            try {
              if (!started[i] && now >= f.from() && now > 0) {
                started[i] = true;
                apply(f, true);
                String text = "fault on: " + f.kind() + " " + f.rack() + "[" + f.index() + "]";
                event.accept("fault", text);
                out.accept("[faults] t=" + Math.round(now) + "s " + text);
              }
              if (started[i] && !ended[i] && now >= f.to()) {
                ended[i] = true;
                apply(f, false);
                String text = "fault off: " + f.kind() + " " + f.rack() + "[" + f.index() + "]";
                event.accept("fault", text);
                out.accept("[faults] t=" + Math.round(now) + "s " + text);
              }
            } catch (RuntimeException e) {
              event.accept("fault", "fault " + f.spec() + " failed: " + e.getMessage());
              out.accept("[faults] " + f.spec() + " failed: " + e);
            }
          }
        },
        100,
        100,
        TimeUnit.MILLISECONDS);
  }

  private void apply(Fault f, boolean on) {
    Object n = node(f);
    if (n instanceof DynomiteNode d) {
      switch (f.kind()) {
        case "kill" -> {
          if (on) d.kill();
          else d.start();
        }
        case "pause", "peers" -> {
          if (on) d.pause();
          else d.resume();
        }
        default -> {
          if (on) d.killRedis();
          else d.startRedis();
        }
      }
    } else {
      CompanionNode c = (CompanionNode) n;
      switch (f.kind()) {
        case "kill" -> {
          if (on) c.stop();
          else c.start();
        }
        case "pause" -> {
          if (on) c.hang();
          else c.unhang();
        }
        case "peers" -> {
          if (on) c.cutPeerLinks();
          else c.restorePeerLinks();
        }
        default -> {
          if (on) c.backendDown();
          else c.backendUp();
        }
      }
    }
  }

  /** Stops the timer and ends every fault still on (a run stopped inside a window leaves the cluster whole). */
  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
      try {
        timer.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    // Faults whose window had begun are undone; the timer state is gone, so undo every fault
    // defensively where safe.
    for (Fault f : faults) {
      try {
        apply(f, false);
      } catch (RuntimeException ignored) {
        // already off (a node started twice complains): nothing to undo
      }
    }
  }
}
