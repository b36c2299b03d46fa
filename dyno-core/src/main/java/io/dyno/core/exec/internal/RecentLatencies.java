package io.dyno.core.exec.internal;

import com.netflix.spectator.api.histogram.PercentileBuckets;
import io.dyno.core.Host;
import io.dyno.core.time.Ticker;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Each node's recent reply latency, for hedging at a node's p99: counts in Spectator's percentile
 * buckets (fixed, about 4 % wide) over the current window and the one before it, so the figure
 * follows a node that slows down within seconds and forgets it as quickly. Recording is one atomic
 * add; the p99 is recomputed at most every {@link #CACHE_NANOS}.
 */
final class RecentLatencies {
  static final long WINDOW_NANOS = 5_000_000_000L;
  static final long CACHE_NANOS = 100_000_000L;
  /** Fewer samples than this over both windows: no p99 (the policy's floor applies). */
  static final int MIN_SAMPLES = 50;

  private final Ticker ticker;
  private final ConcurrentHashMap<Host, Node> nodes = new ConcurrentHashMap<>();

  RecentLatencies(Ticker ticker) {
    this.ticker = ticker;
  }

  void record(Host host, long nanos) {
    node(host).record(Math.max(0, nanos), ticker.nanoTime());
  }

  /** The node's recent p99 in nanoseconds, or 0 while it has too few samples. */
  long p99(Host host) {
    return node(host).p99(ticker.nanoTime());
  }

  /** Forgets nodes that left the topology. */
  void retain(Collection<Host> current) {
    nodes.keySet().retainAll(current);
  }

  private Node node(Host host) {
    Node n = nodes.get(host);
    return n != null ? n : nodes.computeIfAbsent(host, h -> new Node(ticker.nanoTime()));
  }

  private static final class Node {
    private volatile AtomicLongArray current = new AtomicLongArray(PercentileBuckets.length());
    private volatile AtomicLongArray previous = new AtomicLongArray(PercentileBuckets.length());
    private volatile long windowStart;
    private volatile long p99;
    private volatile long computedAt;

    Node(long now) {
      this.windowStart = now;
      this.computedAt = now - CACHE_NANOS;
    }

    void record(long nanos, long now) {
      if (now - windowStart >= WINDOW_NANOS) {
        rotate(now);
      }
      current.incrementAndGet(PercentileBuckets.indexOf(nanos));
    }

    private synchronized void rotate(long now) {
      if (now - windowStart < WINDOW_NANOS) {
        return; // another thread rotated
      }
      // Two windows or more since the last sample: the old counts say nothing about now.
      previous = now - windowStart >= 2 * WINDOW_NANOS
          ? new AtomicLongArray(PercentileBuckets.length())
          : current;
      current = new AtomicLongArray(PercentileBuckets.length());
      windowStart = now;
    }

    long p99(long now) {
      if (now - computedAt < CACHE_NANOS) {
        return p99;
      }
      if (now - windowStart >= WINDOW_NANOS) {
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
      long value = total < MIN_SAMPLES ? 0 : (long) PercentileBuckets.percentile(counts, 99.0);
      p99 = value;
      computedAt = now;
      return value;
    }
  }
}
