package io.dyno.core.exec.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.PoolTimeoutException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.pool.internal.Pooled;
import io.dyno.core.spi.FailureKind;
import io.dyno.core.spi.NodeConnection;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decisions and messages a blocking {@link Call} and an {@link AsyncCall} share, in one place
 * so that the two cannot drift: the read-timeout cap, the consistency switch, returning a
 * connection, and how a call that gives up explains itself.
 */
final class CallRules {
  private static final Logger log = LoggerFactory.getLogger(CallRules.class);

  private CallRules() {}

  /**
   * The read timeout (ms) that bounds a run by the time left: half of it while an untried replica
   * could still take the call, so a hung node cannot eat the whole deadline; 0 without a deadline;
   * -1 past it.
   */
  static long readTimeoutCapMillis(long deadlineAt, long now, boolean rerunUnknown, int runs, RetryPolicy policy,
      ReplicaChooser replicas, DynoConfig cfg) {
    if (deadlineAt == Long.MAX_VALUE) {
      return 0;
    }
    long left = deadlineAt - now;
    if (left <= 0) {
      return -1;
    }
    boolean canMoveOn = rerunUnknown && runs + 1 < policy.maxAttempts()
        && replicas.failovers() < cfg.maxFailoverCount() && replicas.hasUntried();
    long budget = canMoveOn ? left / 2 : left;
    return (budget + 999_999) / 1_000_000;
  }

  /** Stage 3: the switch is sent only when the connection's level differs from the wanted one. */
  static <C extends NodeConnection> void setConsistency(RequestPath<C> path, ConsistencyLevel level, C conn)
      throws Exception {
    ConsistencyLevel now = conn.consistency();
    // A connection moved off the server default by an earlier call goes back to DC_ONE (Dynomite's default).
    ConsistencyLevel target = level != null ? level : (now != null ? ConsistencyLevel.DC_ONE : null);
    if (target != null && target != now) {
      conn.setConsistency(target);
      path.metrics.consistencySet(target.name());
    }
  }

  /**
   * A connection whose run ended without an I/O failure goes back to the pool, first with the
   * socket timeout the call may have capped. One that cannot be reset is discarded instead.
   */
  static <C extends NodeConnection> void keep(NodePool<C> pool, Pooled<C> conn) {
    try {
      conn.restoreReadTimeout();
    } catch (Throwable t) {
      log.debug("could not restore the socket timeout of a connection to {}: {}", pool.host(), t.toString());
      pool.discard(conn, "broken");
      return;
    }
    pool.release(conn);
  }

  /** Whether the failures before sending have used up what a call may spend on them. */
  static boolean unsentBudgetSpent(int unsent, ReplicaChooser replicas, RetryPolicy policy) {
    return unsent > replicas.size() + policy.maxAttempts();
  }

  static DynoConnectionException failedOn(String command, Host host, FailureKind kind, boolean sent, Throwable t) {
    return new DynoConnectionException(command + " failed on " + host + " (" + kind
        + (sent ? "" : ", before the command was sent") + "): " + t, host, kind, t);
  }

  static DynoConnectionException notIdempotent(DynoConnectionException e, String command) {
    return new DynoConnectionException(e.getMessage() + "; not retried because " + command
        + " is not idempotent (allow with CallOptions.withRetryNonIdempotent)", e.host(), e.kind(), e.getCause());
  }

  /** Why the call gives up: the last failure, with how far it got. */
  static DynoException giveUp(String command, DynoException last, int runs, int failovers) {
    if (last == null) {
      return new NoAvailableHostsException(command + ": no node could take the command");
    }
    if (runs == 0 && last instanceof PoolTimeoutException) {
      return last; // the clearest message: which pool, how many waiters, how long
    }
    if (last instanceof DynoConnectionException c) {
      DynoConnectionException e = new DynoConnectionException(command + " failed after " + runs + " run(s) and "
          + failovers + " failover(s); last: " + c.getMessage(), c.host(), c.kind(), c.getCause());
      for (Throwable s : c.getSuppressed()) {
        e.addSuppressed(s);
      }
      return e;
    }
    return last;
  }

  static DeadlineExceededException deadlineExceeded(String command, Duration deadline, int runs, DynoException last) {
    return new DeadlineExceededException(command + ": deadline of "
        + (deadline == null ? "?" : deadline.toMillis() + " ms") + " passed after " + runs + " run(s)"
        + (last == null ? "" : "; last failure: " + last.getMessage()), runs, last);
  }

  /** {@code next}, with the failures before it attached. */
  static DynoException chain(DynoException last, DynoException next) {
    if (last != null && last != next) {
      next.addSuppressed(last);
    }
    return next;
  }
}
