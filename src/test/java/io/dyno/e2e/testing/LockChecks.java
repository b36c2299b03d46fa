package io.dyno.e2e.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.recipes.lock.LockLease;
import io.dyno.recipes.lock.QuorumLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every holder of a quorum lock checks inside its critical section (one holder at a time,
 * rising fencing tokens, a fenced resource that refuses stale tokens), and the two ways the lock
 * tests contend for it: strict turns and a free-for-all race.
 */
public final class LockChecks {
  private final Duration ttl;
  final FencedResource fenced = new FencedResource();
  final AtomicInteger inside = new AtomicInteger();
  final AtomicLong lastToken = new AtomicLong();
  final AtomicLong maxAcquireMs = new AtomicLong();
  final List<String> violations = new CopyOnWriteArrayList<>();

  public LockChecks(Duration ttl) {
    this.ttl = ttl;
  }

  /** The slowest acquisition seen, in ms. */
  public long maxAcquireMs() {
    return maxAcquireMs.get();
  }

  /** The last fencing token handed out. */
  public long lastToken() {
    return lastToken.get();
  }

  /** Writes the fenced resource accepted. */
  public int accepted() {
    return fenced.accepted();
  }

  /** Acquires (waiting up to 5 s), timing it. */
  public LockLease timedAcquire(QuorumLock lock, String resource) {
    long t0 = System.nanoTime();
    LockLease lease = lock.acquire(resource, ttl, Duration.ofSeconds(5));
    maxAcquireMs.accumulateAndGet(ms(t0), Math::max);
    return lease;
  }

  /** Entering the critical section with {@code lease}: records any violation. */
  public void enter(LockLease lease, String who) {
    long token = lease.fencingToken();
    if (inside.incrementAndGet() != 1) {
      violations.add(who + ": two holders at once (token " + token + ")");
    }
    long previous = lastToken.getAndSet(token);
    if (token <= previous) {
      violations.add(who + ": token " + token + " not above the previous " + previous);
    }
    if (!lease.isHeld()) {
      violations.add(who + ": lease not held right after acquiring: " + lease.state());
    }
    if (!fenced.write(token, who)) {
      violations.add(who + ": the fence rejected the current holder's token " + token);
    }
  }

  public void leave() {
    inside.decrementAndGet();
  }

  public void assertClean(String what) {
    assertThat(violations).as("%s: violations", what).isEmpty();
    assertThat(fenced.rejected()).as("%s: writes the fence rejected", what).isEmpty();
  }

  /**
   * Strict alternation over 10 rounds, {@code starter} first: while one holds, the other is
   * refused.
   */
  public void takeTurns(QuorumLock starter, QuorumLock other, String resource) {
    for (int round = 0; round < 10; round++) {
      QuorumLock first = round % 2 == 0 ? starter : other;
      QuorumLock second = round % 2 == 0 ? other : starter;
      LockLease lease = timedAcquire(first, resource);
      enter(lease, "round " + round);
      assertThat(second.tryAcquire(resource, ttl, Duration.ZERO))
          .as("round %d: the other client is refused", round)
          .isEmpty();
      leave();
      lease.release();
    }
  }

  /**
   * Two threads, one lock client each, race until {@code total} acquisitions happened between them
   * (each attempt failing with an exception is a violation). Returns the count.
   */
  public int race(QuorumLock a, QuorumLock b, String resource, int total) {
    AtomicInteger done = new AtomicInteger();
    int[] wins = new int[2];
    List<Thread> threads = new ArrayList<>();
    QuorumLock[] clients = {a, b};
    for (int c = 0; c < 2; c++) {
      int id = c;
      threads.add(new Thread(
          () -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (done.get() < total) {
              if (System.nanoTime() > deadline) {
                violations.add("client " + id + ": race did not finish within 20 s");
                return;
              }
              long t0 = System.nanoTime();
              Optional<LockLease> got;
              try {
                got = clients[id].tryAcquire(resource, ttl, Duration.ZERO);
              } catch (RuntimeException e) {
                violations.add("client " + id + ": " + e);
                return;
              }
              maxAcquireMs.accumulateAndGet(ms(t0), Math::max);
              if (got.isEmpty()) {
                continue; // the other one holds it
              }
              try (LockLease lease = got.get()) {
                enter(lease, "race client " + id);
                wins[id]++;
                done.incrementAndGet();
                leave();
              }
            }
          },
          "lock-racer-" + c));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      try {
        t.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while racing", e);
      }
      assertThat(t.isAlive()).as("%s finished", t.getName()).isFalse();
    }
    assertThat(wins[0]).as("client 0 won some").isPositive();
    assertThat(wins[1]).as("client 1 won some").isPositive();
    return done.get();
  }

  public static long ms(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  /** A protected resource that refuses a write with a fencing token lower than one it already accepted. */
  static final class FencedResource {
    private long highest = Long.MIN_VALUE;
    private int accepted;
    private final List<String> rejected = new ArrayList<>();

    synchronized boolean write(long token, String value) {
      if (token < highest) {
        rejected.add(token + ":" + value);
        return false;
      }
      highest = token;
      accepted++;
      return true;
    }

    synchronized int accepted() {
      return accepted;
    }

    synchronized List<String> rejected() {
      return List.copyOf(rejected);
    }
  }
}
