package io.dyno.core.exec.internal;

import com.netflix.spectator.api.histogram.PercentileBuckets;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.health.internal.ReplyTimes;
import io.dyno.core.time.Ticker;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;

/**
 * Each node's recent reply latency, fed by every attempt that got a reply on either carrier: counts
 * in Spectator's percentile buckets (fixed, about 4 % wide) over a current window and the one
 * before it, so the figures follow a node that slows down and forget it as quickly. Two such
 * pairs: 5 s windows for the p99 that hedging may follow, and 500 ms windows for the median that
 * latency-outlier steering compares, so that a node that turns slow is steered away from within a
 * second. Recording is one map lookup and two atomic adds; the p99 is recomputed at most every
 * {@link #CACHE_NANOS}. Each reply is also written to the node's {@link ReplyTimes} (kept with its
 * windows, so no second lookup), which tells a silent node from a client that stalled.
 *
 * <p>Steering ({@code steerOutliers}): at most every {@link #CHECK_NANOS}, on the thread that
 * recorded, each preferred node is compared with its peers (the other preferred nodes with enough
 * samples), twice:
 * <ul>
 *   <li>its share of late replies (at least {@code silentNodeAfter}: a lost packet's
 *       retransmission, a stalled connection) against the median of its peers' shares. A node with
 *       at least {@link #MIN_LATE} late replies, at least {@link #LATE_SHARE} of its recent ones,
 *       and {@link #LATE_SHARE_FACTOR} times its peers' share is handed to {@link
 *       HealthTracker#steerLagging}: a node that loses packets answers most calls in time, so its
 *       median does not move, and most probes too, so it must answer many in a row to come back.
 *       A stall of this client delays every node's replies alike and singles none out;
 *   <li>its recent median against the median of its peers'. A node above both {@code
 *       outlierFactor} times that and that plus {@code outlierMinExtra} is handed to {@link
 *       HealthTracker#steer} with that bound, whose background probe decides when it is preferred
 *       again.
 * </ul>
 * A node not preferred has its recent samples dropped, so that what it did before is not held
 * against it once it is back.
 */
final class RecentLatencies {
  static final long WINDOW_NANOS = 5_000_000_000L;
  static final long CACHE_NANOS = 100_000_000L;
  /** Fewer samples than this over both windows: no p99 (the policy's floor applies). */
  static final int MIN_SAMPLES = 50;

  static final long MEDIAN_WINDOW_NANOS = 500_000_000L;
  /** Fewer samples than this over both median windows: the node is not compared. */
  static final int MIN_MEDIAN_SAMPLES = 20;
  /** How often nodes are compared for steering. */
  static final long CHECK_NANOS = 100_000_000L;

  /** Late replies (at least {@code silentNodeAfter}) a node needs before it can be called lagging. */
  static final int MIN_LATE = 3;
  /** The share of a node's recent replies that must be late for it to be lagging. */
  static final double LATE_SHARE = 0.02;
  /** How many times its peers' (median) late share a lagging node's must be. */
  static final double LATE_SHARE_FACTOR = 4.0;

  private final Ticker ticker;
  private final HealthTracker health; // null: no steering
  private final Supplier<DynoConfig> config;
  private final ConcurrentHashMap<Host, Node> nodes = new ConcurrentHashMap<>();
  private final AtomicLong nextCheck;

  /** Latencies for hedging only, no steering. */
  RecentLatencies(Ticker ticker) {
    this(ticker, null, null);
  }

  RecentLatencies(Ticker ticker, HealthTracker health, Supplier<DynoConfig> config) {
    this.ticker = ticker;
    this.health = health;
    this.config = config;
    this.nextCheck = new AtomicLong(ticker.nanoTime() + CHECK_NANOS);
  }

  void record(Host host, long nanos) {
    record(host, nanos, ticker.nanoTime());
  }

  /** As {@link #record(Host, long)}, the reply having come at {@code now} (saves a clock read). */
  void record(Host host, long nanos, long now) {
    Node n = node(host, now);
    n.record(PercentileBuckets.indexOf(Math.max(0, nanos)), now);
    if (health == null) {
      return;
    }
    ReplyTimes replies = n.replies;
    if (replies.forgotten()) {
      replies = n.replies = health.replyTimes(host);
    }
    replies.replied(now, nanos); // so a timeout can tell a silent node from a stalled client
    long due = nextCheck.get();
    if (now - due >= 0 && nextCheck.compareAndSet(due, now + CHECK_NANOS)) {
      steerOutliers(now);
    }
  }

  /** The node's recent p99 in nanoseconds, or 0 while it has too few samples. */
  long p99(Host host) {
    return node(host, ticker.nanoTime()).p99(ticker.nanoTime());
  }

  /** The node's recent median in nanoseconds, or -1 while it has too few samples. */
  long median(Host host) {
    long now = ticker.nanoTime();
    return node(host, now).recent.percentile(50.0, now, MIN_MEDIAN_SAMPLES);
  }

  /** Forgets nodes that left the topology. */
  void retain(Collection<Host> current) {
    nodes.keySet().retainAll(current);
  }

  private Node node(Host host, long now) {
    Node n = nodes.get(host);
    return n != null
        ? n
        : nodes.computeIfAbsent(
            host, h -> new Node(now, health == null ? null : health.replyTimes(h)));
  }

  /** Compares the preferred nodes' late replies and recent medians; steers away from an outlier. */
  void steerOutliers(long now) {
    DynoConfig cfg = config.get();
    if (!cfg.steerOutliers()) {
      return;
    }
    int lateBucket = PercentileBuckets.indexOf(cfg.silentNodeAfter().toNanos());
    int size = nodes.size() + 4;
    Host[] hosts = new Host[size];
    long[] medians = new long[size];
    double[] lateShares = new double[size];
    long[] late = new long[size];
    int count = 0;
    for (Map.Entry<Host, Node> e : nodes.entrySet()) {
      Host h = e.getKey();
      if (!health.isPreferred(h)) {
        e.getValue().recent.clear(now);
        continue;
      }
      Windows w = e.getValue().recent;
      long total = w.countFrom(0, now);
      if (total >= MIN_MEDIAN_SAMPLES && count < size) {
        hosts[count] = h;
        medians[count] = w.percentile(50.0, now, MIN_MEDIAN_SAMPLES);
        late[count] = w.countFrom(lateBucket, now);
        lateShares[count] = late[count] / (double) total;
        count++;
      }
    }
    if (count < 2) {
      return; // no peer to compare with
    }
    long[] others = new long[count - 1];
    double[] otherShares = new double[count - 1];
    for (int i = 0; i < count; i++) {
      for (int j = 0, k = 0; j < count; j++) {
        if (j != i) {
          otherShares[k] = lateShares[j];
          others[k++] = medians[j];
        }
      }
      if (late[i] >= MIN_LATE
          && lateShares[i] >= LATE_SHARE
          && lateShares[i] >= LATE_SHARE_FACTOR * medianOf(otherShares)) {
        health.steerLagging(hosts[i]);
        continue;
      }
      long bound = outlierBound(medianOf(others), cfg);
      if (medians[i] > bound) {
        health.steer(hosts[i], bound);
      }
    }
  }

  /** Above this a node's median makes it an outlier: both factor x and minExtra + the peers'. */
  static long outlierBound(long peersMedian, DynoConfig cfg) {
    long scaled = (long) Math.min(Long.MAX_VALUE / 2, peersMedian * cfg.outlierFactor());
    return Math.max(scaled, peersMedian + cfg.outlierMinExtra().toNanos());
  }

  private static long medianOf(long[] values) {
    Arrays.sort(values);
    int n = values.length;
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }

  private static double medianOf(double[] values) {
    Arrays.sort(values);
    int n = values.length;
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }

  private static final class Node {
    private final Windows longer;
    final Windows recent;
    private volatile long p99;
    private volatile long computedAt;
    ReplyTimes replies; // null without health; replaced once forgotten (any thread may)

    Node(long now, ReplyTimes replies) {
      this.replies = replies;
      this.longer = new Windows(WINDOW_NANOS, now);
      this.recent = new Windows(MEDIAN_WINDOW_NANOS, now);
      this.computedAt = now - CACHE_NANOS;
    }

    void record(int bucket, long now) {
      longer.record(bucket, now);
      recent.record(bucket, now);
    }

    long p99(long now) {
      if (now - computedAt < CACHE_NANOS) {
        return p99;
      }
      long value = Math.max(0, longer.percentile(99.0, now, MIN_SAMPLES));
      p99 = value;
      computedAt = now;
      return value;
    }
  }

  /** Bucket counts over a current window and the one before it. */
  private static final class Windows {
    private final long length;
    private volatile AtomicLongArray current = new AtomicLongArray(PercentileBuckets.length());
    private volatile AtomicLongArray previous = new AtomicLongArray(PercentileBuckets.length());
    private volatile long windowStart;
    private volatile boolean empty = true; // nothing recorded since the last clear

    Windows(long length, long now) {
      this.length = length;
      this.windowStart = now;
    }

    void record(int bucket, long now) {
      if (now - windowStart >= length) {
        rotate(now);
      }
      current.incrementAndGet(bucket);
      if (empty) {
        empty = false;
      }
    }

    private synchronized void rotate(long now) {
      if (now - windowStart < length) {
        return; // another thread rotated
      }
      // Two windows or more since the last sample: the old counts say nothing about now.
      previous = now - windowStart >= 2 * length
          ? new AtomicLongArray(PercentileBuckets.length())
          : current;
      current = new AtomicLongArray(PercentileBuckets.length());
      windowStart = now;
    }

    synchronized void clear(long now) {
      if (empty) {
        return;
      }
      empty = true;
      previous = new AtomicLongArray(PercentileBuckets.length());
      current = new AtomicLongArray(PercentileBuckets.length());
      windowStart = now;
    }

    /** Samples over both windows in bucket {@code from} or above (0: all of them). */
    long countFrom(int from, long now) {
      if (now - windowStart >= length) {
        rotate(now);
      }
      AtomicLongArray a = current;
      AtomicLongArray b = previous;
      long total = 0;
      for (int i = from; i < a.length(); i++) {
        total += a.get(i) + b.get(i);
      }
      return total;
    }

    /** The {@code p}th percentile (ns) over both windows, or -1 with fewer than {@code min} samples. */
    long percentile(double p, long now, int min) {
      if (now - windowStart >= length) {
        rotate(now);
      }
      AtomicLongArray a = current;
      AtomicLongArray b = previous;
      long[] counts = new long[a.length()];
      long total = 0;
      for (int i = 0; i < counts.length; i++) {
        counts[i] = a.get(i) + b.get(i);
        total += counts[i];
      }
      return total < min ? -1 : (long) PercentileBuckets.percentile(counts, p);
    }
  }
}
