package io.dyno.recipes.lock;

import io.dyno.core.Host;
import io.dyno.core.time.Scheduler;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition of a {@link QuorumLock}. Pass {@link #fencingToken()} with every write to the
 * protected resource and have the resource refuse tokens lower than the highest it has seen: that,
 * not the lock alone, is what keeps a paused or partitioned former holder from doing damage.
 *
 * <p>Thread-safe. {@link #close()} releases; both are idempotent.
 */
public final class LockLease implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LockLease.class);

  private final QuorumLock lock;
  private final String resource;
  private final String owner;
  private final long fencingToken;
  private final Duration ttl;
  private final List<Host> voters;
  private long validUntil; // ticker nanos
  private LockState state = LockState.HELD;
  private Scheduler.Cancellable watchdog;
  private Thread watchedThread;
  private LockListener listener;
  private final VoterPool.Round acquireRound;

  LockLease(
      QuorumLock lock,
      String resource,
      String owner,
      long fencingToken,
      Duration ttl,
      List<Host> voters,
      long validUntil,
      VoterPool.Round acquireRound) {
    this.acquireRound = acquireRound;
    this.lock = lock;
    this.resource = resource;
    this.owner = owner;
    this.fencingToken = fencingToken;
    this.ttl = ttl;
    this.voters = voters;
    this.validUntil = validUntil;
  }

  public String resource() {
    return resource;
  }

  /** Greater than the token of every lease on this resource handed out before this one. */
  public long fencingToken() {
    return fencingToken;
  }

  /** The voters that granted or were asked; release and extend go to them. */
  public List<Host> voters() {
    return voters;
  }

  String owner() {
    return owner;
  }

  VoterPool.Round acquireRound() {
    return acquireRound;
  }

  /** HELD, or why not. An expired lease is reported as such even before anyone else took the lock. */
  public synchronized LockState state() {
    if (state == LockState.HELD && lock.ticker().nanoTime() >= validUntil) {
      return LockState.EXPIRED;
    }
    return state;
  }

  public boolean isHeld() {
    return state() == LockState.HELD;
  }

  /** Time left before the lease must be considered lost (zero when not held). */
  public synchronized Duration remainingValidity() {
    if (state != LockState.HELD) {
      return Duration.ZERO;
    }
    return Duration.ofNanos(Math.max(0, validUntil - lock.ticker().nanoTime()));
  }

  /**
   * Extends the lease by its TTL from now, on a majority of its voters, only if it is still this
   * holder's. Returns false (and the lease becomes LOST) if a majority says it is not.
   *
   * @throws QuorumUnavailableException if a majority of the voters cannot be reached (state unchanged)
   * @throws IllegalStateException if the lease was released or lost
   */
  public boolean extend() {
    synchronized (this) {
      if (state != LockState.HELD) {
        throw new IllegalStateException("lock on '" + resource + "' (token " + fencingToken
            + ") is " + state + ", cannot extend");
      }
    }
    long until = lock.extend(this, ttl);
    synchronized (this) {
      if (state != LockState.HELD) {
        return false;
      }
      if (until < 0) {
        state = LockState.LOST;
        return false;
      }
      validUntil = Math.max(validUntil, until);
      return true;
    }
  }

  /**
   * Starts a watchdog that extends this lease every TTL/3 while {@code holder} is alive (pass
   * {@code Thread.currentThread()}), and calls {@code onLost} once if it cannot: a majority said the
   * lock is someone else's, or the validity ran out before an extension got through. When
   * {@code holder} dies the lease is released.
   */
  public LockLease keepAlive(Thread holder, LockListener onLost) {
    long periodNanos = Math.max(1_000_000L, ttl.toNanos() / 3);
    synchronized (this) {
      if (state != LockState.HELD) {
        throw new IllegalStateException(
            "lock on '" + resource + "' is " + state + ", cannot keep it alive");
      }
      if (watchdog != null) {
        throw new IllegalStateException("lock on '" + resource + "' already has a watchdog");
      }
      this.watchedThread = holder;
      this.listener = onLost;
      Duration period = Duration.ofNanos(periodNanos);
      watchdog = lock.scheduler().scheduleAtFixedRate(this::watch, period, period);
    }
    return this;
  }

  private void watch() {
    synchronized (this) {
      if (state != LockState.HELD) {
        stopWatchdog();
        return;
      }
    }
    if (watchedThread != null && !watchedThread.isAlive()) {
      log.debug("holder thread of lock on '{}' ended: releasing", resource);
      release();
      return;
    }
    String reason;
    try {
      if (lock.ticker().nanoTime() < validUntilNow() && extend()) {
        return;
      }
      reason = state == LockState.LOST
          ? "a majority of voters no longer hold this lease (it expired and may be held by another client)"
          : "the lease's validity ran out before it could be extended";
    } catch (QuorumUnavailableException e) {
      if (lock.ticker().nanoTime() < validUntilNow()) {
        log.warn(
            "could not extend lock on '{}', will retry while still valid: {}",
            resource,
            e.getMessage());
        return;
      }
      reason = "validity ran out while voters were unreachable: " + e.getMessage();
    } catch (RuntimeException e) {
      reason = "extension failed: " + e;
    }
    LockListener l;
    synchronized (this) {
      if (state == LockState.RELEASED) {
        return;
      }
      state = LockState.LOST;
      stopWatchdog();
      l = listener;
    }
    if (l != null) {
      l.onLost(this, reason);
    }
  }

  private synchronized long validUntilNow() {
    return validUntil;
  }

  private void stopWatchdog() {
    if (watchdog != null) {
      watchdog.cancel();
      watchdog = null;
    }
  }

  /** Releases the lock on its voters (only if still this holder's there) and stops any watchdog. Idempotent. */
  public void release() {
    synchronized (this) {
      stopWatchdog();
      if (state == LockState.RELEASED) {
        return;
      }
      state = LockState.RELEASED;
    }
    lock.release(this);
  }

  @Override
  public void close() {
    release();
  }

  @Override
  public String toString() {
    return "LockLease{" + resource + ", token=" + fencingToken + ", " + state() + "}";
  }
}
