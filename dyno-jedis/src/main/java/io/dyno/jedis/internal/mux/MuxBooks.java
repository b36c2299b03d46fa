package io.dyno.jedis.internal.mux;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The books a connection's parts keep together: its in-flight permits (a request holds one from
 * submit until it leaves), the requests on the channel no caller waits on (which a caller socket
 * must not overtake), and whether and why the connection closed. Any thread.
 */
final class MuxBooks {
  private final String node;
  private final int maxInFlight;
  private final Semaphore permits;
  /**
   * Channel requests no caller waits on ({@link MuxRequest#detached}): one may be an earlier command
   * of the thread now calling, which must then follow it on the channel. Waited requests' threads are
   * blocked, so a caller socket overtakes nothing they ordered.
   */
  private final AtomicInteger detached = new AtomicInteger();

  private final AtomicBoolean closing = new AtomicBoolean();
  /** Why the connection closed; set once, on the event loop. */
  private volatile JedisConnectionException failure;

  MuxBooks(String node, int maxInFlight) {
    this.node = node;
    this.maxInFlight = maxInFlight;
    this.permits = new Semaphore(maxInFlight);
  }

  /** A permit if one is free now. */
  boolean tryTakePermit() {
    return permits.tryAcquire();
  }

  /** A permit within {@code nanos}. */
  boolean takePermit(long nanos) throws InterruptedException {
    return permits.tryAcquire(nanos, TimeUnit.NANOSECONDS);
  }

  void givePermit() {
    permits.release();
  }

  /** Permits held: requests queued or unanswered (a pipeline counts once). */
  int permitsTaken() {
    return maxInFlight - permits.availablePermits();
  }

  int maxInFlight() {
    return maxInFlight;
  }

  /** A request no caller waits on entered the books (or its caller stopped waiting). */
  void detachedEntered() {
    detached.incrementAndGet();
  }

  /** It left them. */
  void detachedLeft() {
    detached.decrementAndGet();
  }

  /** Requests no caller waits on, still in the books: while any is, callers use the channel. */
  int detached() {
    return detached.get();
  }

  /** Closed or closing: it takes no more requests. */
  boolean closing() {
    return closing.get();
  }

  /** Marks it closing; false when it already was. */
  boolean startClosing() {
    return closing.compareAndSet(false, true);
  }

  /** Marks it closing (whoever fails it next says why). */
  void markClosing() {
    closing.set(true);
  }

  /** Records why it closed (before the sweep: whoever sees it broken can read why). */
  void failed(JedisConnectionException e) {
    failure = e;
    closing.set(true);
  }

  /** Why it closed, or null while open. */
  JedisConnectionException failure() {
    return failure;
  }

  /** The error for a request that finds it closed. */
  JedisConnectionException closedError() {
    JedisConnectionException f = failure;
    return f != null ? f : new JedisConnectionException("connection to " + node + " is closed");
  }
}
