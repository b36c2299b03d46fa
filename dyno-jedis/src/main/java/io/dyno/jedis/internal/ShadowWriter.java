package io.dyno.jedis.internal;

import io.dyno.core.routing.DynomiteHash;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;

/**
 * Mirrors writes to a shadow cluster for a fixed share of keys. The share is chosen by the key's
 * murmur hash (so a key is always mirrored or never), and writes go through a bounded queue
 * drained by one daemon thread: when the queue is full the write is dropped and counted, so the
 * primary path never waits on the shadow.
 */
public final class ShadowWriter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ShadowWriter.class);

  private final BlockingQueue<CommandArguments> queue;
  private final long basisPoints; // of 10_000
  private final Consumer<CommandArguments> sender;
  private final AtomicLong offered = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final Thread worker;
  private volatile boolean closed;

  public ShadowWriter(double percent, int capacity, Consumer<CommandArguments> sender) {
    if (percent < 0 || percent > 100) {
      throw new IllegalArgumentException("shadow percent must be within 0..100, was " + percent);
    }
    if (capacity < 1) {
      throw new IllegalArgumentException("shadow queue capacity must be >= 1, was " + capacity);
    }
    this.basisPoints = Math.round(percent * 100);
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.sender = sender;
    this.worker = new Thread(this::drain, "dyno-shadow-writer");
    worker.setDaemon(true);
    worker.start();
  }

  /** Whether writes of this key are mirrored: a pure function of the key's bytes. */
  public boolean selects(Object key) {
    long h = key instanceof byte[] b
        ? DynomiteHash.hash(b)
        : DynomiteHash.hash(String.valueOf(key).getBytes(StandardCharsets.UTF_8));
    return (h % 10_000) < basisPoints;
  }

  /** Queues a write for the shadow; never blocks. */
  public void offer(CommandArguments write) {
    if (closed) {
      return;
    }
    offered.incrementAndGet();
    if (!queue.offer(write)) {
      dropped.incrementAndGet();
    }
  }

  private void drain() {
    while (!closed || !queue.isEmpty()) {
      CommandArguments next;
      try {
        next = queue.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
      if (next == null) {
        continue;
      }
      try {
        sender.accept(next);
        sent.incrementAndGet();
      } catch (RuntimeException e) {
        if (failed.incrementAndGet() % 1000 == 1) {
          log.warn("shadow write failed ({} so far): {}", failed.get(), e.toString());
        }
      }
    }
  }

  public long offered() {
    return offered.get();
  }

  public long dropped() {
    return dropped.get();
  }

  public long sent() {
    return sent.get();
  }

  public long failed() {
    return failed.get();
  }

  public int queued() {
    return queue.size();
  }

  @Override
  public void close() {
    closed = true;
    worker.interrupt();
  }
}
