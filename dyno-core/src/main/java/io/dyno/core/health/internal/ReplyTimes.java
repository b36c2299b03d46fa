package io.dyno.core.health.internal;

import io.dyno.core.config.DynoConfig;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Supplier;

/**
 * When one node last answered, and last answered quickly: what {@link SilenceWitness} reads when a
 * reply wait runs out. A caller that records every reply keeps this record
 * ({@link HealthTracker#replyTimes}) rather than looking the node up again for each reply, and
 * takes a new one once this one is {@link #forgotten()} (the node left the topology).
 *
 * <p>A reply is two ordered (release) stores, not volatile ones: a reader on another thread sees
 * them at once in practice, in order, and a witness only compares them with times well past.
 */
public final class ReplyTimes {
  static final long NEVER = Long.MIN_VALUE;

  private static final VarHandle LAST;
  private static final VarHandle LAST_QUICK;
  private static final VarHandle LAST_SLOW;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      LAST = lookup.findVarHandle(ReplyTimes.class, "last", long.class);
      LAST_QUICK = lookup.findVarHandle(ReplyTimes.class, "lastQuick", long.class);
      LAST_SLOW = lookup.findVarHandle(ReplyTimes.class, "lastSlow", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Supplier<DynoConfig> config;
  private QuickBelow quickBelow = new QuickBelow(null, 0); // any thread may replace it
  volatile long last = NEVER;
  volatile long lastQuick = NEVER;
  /** When a reply last came that took {@code silentNodeAfter} or more (a stall shows in every node's). */
  volatile long lastSlow = NEVER;

  volatile boolean forgotten; // the witness dropped this record: replies no longer reach it
  boolean held; // an unwitnessed verdict awaits its second look (guarded by this)
  long heldSentAt;

  ReplyTimes(Supplier<DynoConfig> config) {
    this.config = config;
  }

  /**
   * A reply read at {@code now} (ticker nanos) took {@code tookNanos}; quick when under
   * {@code silentNodeAfter}. Hot path: a configuration read and one or two plain stores.
   */
  public void replied(long now, long tookNanos) {
    LAST.setRelease(this, now);
    if (tookNanos < quickBelowNanos()) {
      LAST_QUICK.setRelease(this, now);
    } else {
      LAST_SLOW.setRelease(this, now);
    }
  }

  /**
   * {@code silentNodeAfter} (live) in nanoseconds, worked out again only for another configuration
   * (remembered when its value differs: a supplier that builds a new one for every read with the
   * same value costs the working out, never an object).
   */
  private long quickBelowNanos() {
    DynoConfig cfg = config.get();
    QuickBelow q = quickBelow;
    if (q.cfg == cfg) {
      return q.nanos;
    }
    long nanos = cfg.silentNodeAfter().toNanos();
    if (q.cfg == null || q.nanos != nanos) {
      quickBelow = new QuickBelow(cfg, nanos);
    }
    return nanos;
  }

  private record QuickBelow(DynoConfig cfg, long nanos) {}

  /** Whether the node was forgotten since this record was handed out: ask for its new one. */
  public boolean forgotten() {
    return forgotten;
  }
}
