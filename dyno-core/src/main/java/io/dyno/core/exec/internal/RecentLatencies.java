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
import java.util.Objects;
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
 * recorded, each preferred node is compared with its peers (the other preferred nodes of its own
 * datacenter with enough samples: each region is its own baseline, so a remote node's tens of
 * milliseconds make neither it nor a local node an outlier). A node whose recent median is above
 * both {@code outlierFactor} times its peers' median and that median plus {@code outlierMinExtra}
 * is handed to {@link HealthTracker#steer} with that bound, whose background probe decides when it
 * is preferred again. A node not preferred has its recent samples dropped, so that what it did before is not held
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

  /** Compares the preferred nodes' recent medians; steers away from an outlier. */
  void steerOutliers(long now) {
    DynoConfig cfg = config.get();
    if (!cfg.steerOutliers()) {
      return;
    }
    int size = nodes.size() + 4;
    Host[] hosts = new Host[size];
    long[] medians = new long[size];
    int count = 0;
    for (Map.Entry<Host, Node> e : nodes.entrySet()) {
      Host h = e.getKey();
      if (!health.isPreferred(h)) {
        e.getValue().recent.clear(now);
        continue;
      }
      long m = e.getValue().recent.percentile(50.0, now, MIN_MEDIAN_SAMPLES);
      if (m >= 0 && count < size) {
        hosts[count] = h;
        medians[count++] = m;
      }
    }
    if (count < 2) {
      return; // no peer to compare with
    }
    long[] others = new long[count - 1];
    for (int i = 0; i < count; i++) {
      // A node's peers are the preferred nodes of its own datacenter: another region's round trip
      // is no baseline for this one's, nor this one's for a remote node's.
      int peers = 0;
      for (int j = 0; j < count; j++) {
        if (j != i && sameDatacenter(hosts[i], hosts[j])) {
          others[peers++] = medians[j];
        }
      }
      if (peers == 0) {
        continue;
      }
      long bound = outlierBound(medianOf(others, peers), cfg);
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

  private static boolean sameDatacenter(Host a, Host b) {
    return Objects.equals(a.datacenter(), b.datacenter());
  }

  /** The median of the first {@code n} values (reordered). */
  private static long medianOf(long[] values, int n) {
    Arrays.sort(values, 0, n);
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }

  /** The median of the first {@code n} values (reordered). */
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
