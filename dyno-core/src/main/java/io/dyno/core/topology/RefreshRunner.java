package io.dyno.core.topology;

import io.dyno.core.routing.TokenRingTopology;
import io.dyno.core.routing.Topology;
import io.dyno.core.routing.TopologyListener;
import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * One refresh at a time: read the sources, swap the new snapshot in if it routes differently, tell
 * the listeners, and record the outcome in a {@link RefreshStatus}.
 *
 * <p>A failing source is reported once when refreshes start failing and once when they recover, not
 * on every period while it lasts, so an outage does not flood the log; the same holds for a
 * snapshot's warnings, reported again only when they change.
 */
final class RefreshRunner {
  private final TopologyReader reader;
  private final Ticker ticker;
  private final Duration period;
  private final TopologyRefresher.Report report;
  private final List<TopologyListener> listeners;
  private final BooleanSupplier closed;
  private final AtomicReference<Topology> current;
  private final Object refreshLock = new Object();
  private volatile RefreshStatus status = RefreshStatus.NEVER;
  private volatile Throwable lastFailure;
  // guarded by refreshLock
  private List<String> reportedWarnings = List.of();
  private boolean failing;

  /**
   * @param listeners told of every swap; read at each swap, so later additions are seen
   * @param closed true once the refresher is closed: refreshes then do nothing
   */
  RefreshRunner(
      TopologyReader reader,
      Ticker ticker,
      Duration period,
      TopologyRefresher.Report report,
      List<TopologyListener> listeners,
      BooleanSupplier closed) {
    this.reader = reader;
    this.ticker = ticker;
    this.period = period;
    this.report = report;
    this.listeners = listeners;
    this.closed = closed;
    this.current = new AtomicReference<>(reader.empty());
  }

  Topology current() {
    return current.get();
  }

  RefreshStatus status() {
    return status;
  }

  Throwable lastFailure() {
    return lastFailure;
  }

  /** Refreshes on the calling thread; refreshes never overlap. */
  RefreshStatus refresh() {
    synchronized (refreshLock) {
      if (closed.getAsBoolean()) {
        return status;
      }
      long now = ticker.nanoTime();
      Topology previous = current.get();
      TokenRingTopology next;
      try {
        next = reader.read(previous);
      } catch (Exception | LinkageError e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        return failed(previous, e, now);
      }
      return succeeded(previous, next, now);
    }
  }

  private RefreshStatus failed(Topology previous, Throwable e, long now) {
    RefreshStatus before = status;
    String reason = describe(e);
    lastFailure = e;
    status = new RefreshStatus(
        false,
        previous.version(),
        now,
        before.lastSuccessNanos(),
        before.consecutiveFailures() + 1,
        before.attempts() + 1,
        before.failures() + 1,
        before.swaps(),
        reason);
    if (!failing) {
      failing = true;
      report.warn(
          "topology refresh failed, keeping "
              + (previous.version() == 0
                  ? "no topology (none read yet)"
                  : "topology v" + previous.version() + " (" + previous.hosts().size() + " nodes)")
              + "; will retry every " + period.toSeconds()
              + " s and report again when it recovers. Reason: "
              + reason,
          e);
    } else {
      report.debug("topology refresh still failing: " + reason);
    }
    return status;
  }

  private RefreshStatus succeeded(Topology previous, TokenRingTopology next, long now) {
    RefreshStatus before = status;
    boolean swap = !(previous instanceof TokenRingTopology ring) || !ring.sameLayout(next);
    Topology inUse = swap ? next : previous;
    if (swap) {
      current.set(next);
    }
    if (failing) {
      failing = false;
      report.info("topology refresh recovered after " + before.consecutiveFailures()
          + " failed attempt(s)" + " (last reason: " + before.lastError() + ")");
    }
    if (!next.warnings().equals(reportedWarnings)) {
      reportedWarnings = next.warnings();
      for (String w : next.warnings()) {
        report.warn("topology: " + w, null);
      }
    }
    lastFailure = null;
    status = new RefreshStatus(
        true,
        inUse.version(),
        now,
        now,
        0,
        before.attempts() + 1,
        before.failures(),
        before.swaps() + (swap ? 1 : 0),
        null);
    if (swap) {
      report.info("topology v" + next.version() + " in use: " + next);
      tellListeners(previous, next);
    }
    return status;
  }

  private void tellListeners(Topology previous, TokenRingTopology next) {
    for (TopologyListener l : listeners) {
      try {
        l.onTopologyChanged(previous, next);
      } catch (RuntimeException e) {
        report.warn(
            "topology listener " + l + " failed on v" + next.version() + ": " + describe(e), e);
      }
    }
  }

  /** The exception's message with its type, which often says more than the message. */
  static String describe(Throwable e) {
    String m = e.getMessage();
    return m == null || m.isBlank()
        ? e.getClass().getName()
        : e.getClass().getSimpleName() + ": " + m;
  }
}
