package io.dyno.core.health.internal;

import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.time.Scheduler;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a silent node from a client that stalled (a GC pause, a starved CPU), when a reply wait ran
 * out: after a stall every node's replies are late together and none of them is silent. A node is
 * silent only while it has not answered since the unanswered request was sent, and another node
 * answered quickly (its round trip shorter than {@code silentNodeAfter}, so begun after any stall
 * that long) at least {@code silentNodeAfter} after that request was sent: the client was running,
 * and the node's reply would have been read.
 *
 * <p>Without that witness the verdict is held and looked at once more, {@link #GRACE} later on the
 * scheduler (never a caller's thread); still not witnessed, it is dropped, or found lagging (see
 * {@link #timedOut}). Recording a reply is
 * one or two ordered stores into the node's {@link ReplyTimes} (after a map lookup unless the caller
 * kept it); the check, made only on a timeout, reads every node.
 */
final class SilenceWitness {
  private static final Logger log = LoggerFactory.getLogger(SilenceWitness.class);

  /** How long an unwitnessed verdict is held before it is looked at again. */
  static final Duration GRACE = Duration.ofMillis(50);

  private static final long NEVER = ReplyTimes.NEVER;

  private final Map<Host, ReplyTimes> nodes = new ConcurrentHashMap<>();
  private final Supplier<DynoConfig> config;
  private final Scheduler scheduler;
  private volatile boolean closed;

  SilenceWitness(Supplier<DynoConfig> config, Scheduler scheduler) {
    this.config = config;
    this.scheduler = scheduler;
  }

  /**
   * A request to {@code host} sent at {@code sentAt} (ticker nanos) got no reply in time: runs
   * {@code silent} with the time of sending now when the node's silence is witnessed, else holds
   * the verdict and runs it after {@link #GRACE} only if witnessed then.
   *
   * <p>Runs {@code lagging} instead, at once, when the node did answer other requests since but
   * not this one, while some node (this one too) answered quickly at least {@code silentNodeAfter}
   * after it was sent: the client was running, and this node's reply, not every node's, was late
   * (a lost packet waiting for its retransmission, a stalled connection). On the second look only
   * when no other node's reply since was late as well: replies that flow again after a stall of
   * the client look just so, but the stall made the other nodes' replies in flight late too. (A
   * multiplexed client whose every caller waits behind a lost packet on one node's connection has
   * no other call to witness it at first; its retries, answered quickly elsewhere, do by then.)
   */
  void timedOut(Host host, long sentAt, LongConsumer silent, Runnable lagging) {
    if (witnessed(host, sentAt)) {
      silent.accept(sentAt);
      return;
    }
    if (lagging(host, sentAt)) {
      lagging.run();
      return;
    }
    ReplyTimes t = times(host);
    boolean first;
    synchronized (t) {
      first = !t.held;
      // the latest such request: after a stall, the node's replies to later ones clear it
      if (first || sentAt - t.heldSentAt > 0) {
        t.heldSentAt = sentAt;
      }
      t.held = true;
    }
    if (first && !closed) {
      scheduler.schedule(() -> lookAgain(host, t, silent, lagging), GRACE);
    }
  }

  private void lookAgain(Host host, ReplyTimes t, LongConsumer silent, Runnable lagging) {
    long sentAt;
    synchronized (t) {
      t.held = false;
      sentAt = t.heldSentAt;
    }
    if (closed) {
      return;
    }
    if (witnessed(host, sentAt)) {
      silent.accept(sentAt);
    } else if (lagging(host, sentAt) && !otherSlowReplySince(host, sentAt)) {
      lagging.run();
    } else {
      log.debug("{} timed out, but replies from the other nodes were late too: not blamed", host);
    }
  }

  /**
   * Whether a node other than {@code host} had a reply of {@code silentNodeAfter} or more read since
   * {@code sentAt}: after a stall of the client every node's replies in flight are late together.
   */
  private boolean otherSlowReplySince(Host host, long sentAt) {
    for (Map.Entry<Host, ReplyTimes> e : nodes.entrySet()) {
      if (!e.getKey().equals(host) && since(e.getValue().lastSlow, sentAt)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code host} answered since {@code sentAt} and some node answered quickly well after. */
  private boolean lagging(Host host, long sentAt) {
    return answeredSince(host, sentAt) && quickReplyAfter(sentAt, null);
  }

  /** Whether {@code host} has not answered since {@code sentAt} while another node did, quickly. */
  private boolean witnessed(Host host, long sentAt) {
    return !answeredSince(host, sentAt) && quickReplyAfter(sentAt, host);
  }

  private boolean answeredSince(Host host, long sentAt) {
    ReplyTimes own = nodes.get(host);
    return own != null && since(own.last, sentAt);
  }

  /**
   * Whether a node other than {@code except} (null: any) answered quickly at least {@code
   * silentNodeAfter} after {@code sentAt}: the client was running then.
   */
  private boolean quickReplyAfter(long sentAt, Host except) {
    long by = sentAt + config.get().silentNodeAfter().toNanos();
    for (Map.Entry<Host, ReplyTimes> e : nodes.entrySet()) {
      if (!e.getKey().equals(except) && since(e.getValue().lastQuick, by)) {
        return true;
      }
    }
    return false;
  }

  void remove(Host host) {
    ReplyTimes t = nodes.remove(host);
    if (t != null) {
      t.forgotten = true;
    }
  }

  void close() {
    closed = true;
  }

  /** The record of {@code host}'s replies (made on first use). */
  ReplyTimes times(Host host) {
    ReplyTimes t = nodes.get(host);
    return t != null ? t : nodes.computeIfAbsent(host, h -> new ReplyTimes(config));
  }

  private static boolean since(long at, long from) {
    return at != NEVER && at - from >= 0; // ticker nanos may wrap: compare by difference
  }
}
