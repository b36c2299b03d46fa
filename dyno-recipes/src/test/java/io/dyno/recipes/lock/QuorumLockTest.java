package io.dyno.recipes.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.Host;
import io.dyno.core.testing.ManualScheduler;
import io.dyno.recipes.testing.FencedResource;
import io.dyno.recipes.testing.Voters;
import io.dyno.testsupport.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

class QuorumLockTest {
  private final List<RedisServer> servers = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private List<Host> hosts;

  @BeforeEach
  void startVoters() {
    for (int i = 0; i < 3; i++) {
      servers.add(RedisServer.start());
    }
    hosts = Voters.oneRackEach(servers);
  }

  @AfterEach
  void stopAll() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    for (RedisServer r : servers) {
      r.close();
    }
  }

  private QuorumLock lock(QuorumLock.Builder b) {
    QuorumLock l = b.build();
    closeables.add(l);
    return l;
  }

  private QuorumLock lock() {
    return lock(QuorumLock.builder().hosts(() -> hosts).retryDelay(Duration.ofMillis(2)));
  }

  @Test
  void twoClientsRacingForAThousandAcquisitionsNeverHoldTheLockAtOnce() throws Exception {
    FencedResource resource = new FencedResource();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger total = new AtomicInteger();
    AtomicLong lastToken = new AtomicLong();
    List<String> violations = new CopyOnWriteArrayList<>();
    int[] perClient = new int[2];
    List<Thread> clients = new ArrayList<>();
    for (int c = 0; c < 2; c++) {
      int id = c;
      // No pause between attempts: both clients hammer the voters, the harshest race.
      QuorumLock lock = lock(QuorumLock.builder().hosts(() -> hosts).retryDelay(Duration.ZERO));
      clients.add(new Thread(
          () -> {
            while (total.get() < 1000) {
              Optional<LockLease> got =
                  lock.tryAcquire("account:7", Duration.ofSeconds(5), Duration.ofSeconds(5));
              if (got.isEmpty()) {
                violations.add("client " + id + " waited 5 s in vain");
                return;
              }
              try (LockLease lease = got.get()) {
                if (inside.incrementAndGet() != 1) {
                  violations.add("two holders at once, token " + lease.fencingToken());
                }
                if (lease.fencingToken() <= lastToken.get()) {
                  violations.add(
                      "token " + lease.fencingToken() + " not above previous " + lastToken.get());
                }
                lastToken.set(lease.fencingToken());
                if (!resource.write(lease.fencingToken(), "client" + id)) {
                  violations.add("fenced write rejected for the current holder, token "
                      + lease.fencingToken());
                }
                perClient[id]++;
                total.incrementAndGet();
                inside.decrementAndGet();
              }
            }
          },
          "racer-" + c));
    }
    long t0 = System.nanoTime();
    clients.forEach(Thread::start);
    for (Thread t : clients) {
      t.join(120_000);
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    System.out.printf(
        "lock race: %d acquisitions in %d ms (client0=%d, client1=%d)%n",
        total.get(), ms, perClient[0], perClient[1]);
    assertThat(violations).isEmpty();
    assertThat(total.get()).isGreaterThanOrEqualTo(1000);
    assertThat(resource.accepted()).hasSize(total.get());
    assertThat(resource.rejected()).isEmpty();
    assertThat(perClient[0]).as("client 0 won some").isPositive();
    assertThat(perClient[1]).as("client 1 won some").isPositive();
  }

  @Test
  void withOneVoterPausedLockingStillWorksAndStillExcludes() throws Exception {
    // A long voter timeout, so that waiting for the hung voter would show plainly even on a loaded
    // machine.
    QuorumLock a =
        lock(QuorumLock.builder().hosts(() -> hosts).voterTimeout(Duration.ofSeconds(5)));
    QuorumLock b =
        lock(QuorumLock.builder().hosts(() -> hosts).voterTimeout(Duration.ofSeconds(5)));
    a.acquire("report", Duration.ofSeconds(5), Duration.ZERO)
        .release(); // warm up: connections, class loading
    b.acquire("report", Duration.ofSeconds(5), Duration.ZERO).release();
    servers.get(1).pause();
    try {
      long lastToken = 0;
      for (int i = 0; i < 10; i++) {
        long t0 = System.nanoTime();
        LockLease lease = a.acquire("report", Duration.ofSeconds(5), Duration.ZERO);
        long acquireMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(acquireMs)
            .as("the hung voter (5 s timeout) is not waited for")
            .isLessThan(2500);
        assertThat(b.tryAcquire("report", Duration.ofSeconds(5), Duration.ZERO)).isEmpty();
        assertThat(lease.fencingToken()).isGreaterThan(lastToken);
        lastToken = lease.fencingToken();
        lease.release();
        try (LockLease other = b.acquire("report", Duration.ofSeconds(5), Duration.ofSeconds(2))) {
          assertThat(other.fencingToken()).isGreaterThan(lastToken);
          lastToken = other.fencingToken();
        }
      }
    } finally {
      servers.get(1).resume();
    }
  }

  @Test
  void holderStalledPastItsTtlLosesToAnotherClientAndItsLateWritesAreFencedOff() {
    FencedResource resource = new FencedResource();
    QuorumLock a = lock();
    QuorumLock b = lock();
    LockLease stalled = a.acquire("invoice:9", Duration.ofMillis(300), Duration.ZERO);
    assertThat(resource.write(stalled.fencingToken(), "a-before-stall")).isTrue();
    // A stalls (GC pause, swapped out...): it does nothing while B keeps trying.
    LockLease taker = b.acquire("invoice:9", Duration.ofSeconds(5), Duration.ofSeconds(5));
    assertThat(taker.fencingToken()).isGreaterThan(stalled.fencingToken());
    assertThat(resource.write(taker.fencingToken(), "b")).isTrue();
    // A wakes up and writes with its old token: the resource refuses.
    assertThat(resource.write(stalled.fencingToken(), "a-late")).isFalse();
    assertThat(resource.rejected()).containsExactly(stalled.fencingToken() + ":a-late");
    assertThat(stalled.state()).isEqualTo(LockState.EXPIRED);
    assertThat(stalled.extend()).isFalse();
    assertThat(stalled.state()).isEqualTo(LockState.LOST);
    // Only the holder can release: A's release leaves B's lock in place.
    stalled.release();
    assertThat(b.tryAcquire("invoice:9", Duration.ofSeconds(5), Duration.ZERO)).isEmpty();
    assertThat(taker.isHeld()).isTrue();
    taker.release();
    assertThat(a.tryAcquire("invoice:9", Duration.ofSeconds(5), Duration.ZERO)).isPresent();
  }

  @Test
  void withAMajorityOfVotersDownAcquireFailsFastNamingTheUnreachableOnes() {
    QuorumLock lock = lock();
    servers.get(0).close();
    servers.get(2).close();
    long t0 = System.nanoTime();
    assertThatThrownBy(
            () -> lock.tryAcquire("batch", Duration.ofSeconds(5), Duration.ofSeconds(30)))
        .isInstanceOf(QuorumUnavailableException.class)
        .hasMessageContaining("'batch'")
        .hasMessageContaining("only 1 of 3 voters reachable, 2 needed")
        .hasMessageContaining("127.0.0.1:" + servers.get(0).port())
        .hasMessageContaining("127.0.0.1:" + servers.get(2).port())
        .hasMessageNotContaining("127.0.0.1:" + servers.get(1).port())
        .satisfies(e ->
            assertThat(((QuorumUnavailableException) e).unreachableVoters()).hasSize(2));
    assertThat((System.nanoTime() - t0) / 1_000_000).as("ms to fail").isLessThan(1000);
  }

  @Test
  void withAMajorityOfVotersHungAcquireFailsWithinTheVoterTimeout() {
    QuorumLock lock =
        lock(QuorumLock.builder().hosts(() -> hosts).voterTimeout(Duration.ofMillis(200)));
    servers.get(0).pause();
    servers.get(1).pause();
    try {
      long t0 = System.nanoTime();
      assertThatThrownBy(
              () -> lock.tryAcquire("batch", Duration.ofSeconds(5), Duration.ofSeconds(30)))
          .isInstanceOf(QuorumUnavailableException.class)
          .hasMessageContaining("hung or slow");
      assertThat((System.nanoTime() - t0) / 1_000_000).as("ms to fail").isLessThan(1500);
    } finally {
      servers.get(0).resume();
      servers.get(1).resume();
    }
  }

  @Test
  void validityIsTtlMinusElapsedMinusClockDrift() {
    ManualScheduler clock = new ManualScheduler();
    QuorumLock lock = lock(QuorumLock.builder()
        .hosts(() -> hosts)
        .ticker(clock)
        .scheduler(clock)
        .clockDriftFactor(0.01));
    LockLease lease = lock.acquire("cfg", Duration.ofSeconds(10), Duration.ZERO);
    // 10 s - 1% drift (100 ms) - 2 ms fixed allowance; no time passed during the (manual-clock)
    // acquisition.
    assertThat(lease.remainingValidity()).isEqualTo(Duration.ofMillis(9898));
    clock.advance(Duration.ofMillis(9897));
    assertThat(lease.state()).isEqualTo(LockState.HELD);
    clock.advance(Duration.ofMillis(1));
    assertThat(lease.state()).isEqualTo(LockState.EXPIRED);
    assertThat(lease.remainingValidity()).isEqualTo(Duration.ZERO);
  }

  @Test
  void watchdogExtendsAHeldLockAndTellsTheHolderWhenItIsLost() {
    ManualScheduler clock = new ManualScheduler();
    QuorumLock lock = lock(QuorumLock.builder().hosts(() -> hosts).ticker(clock).scheduler(clock));
    LockLease lease = lock.acquire("leader", Duration.ofSeconds(3), Duration.ZERO);
    AtomicReference<String> lost = new AtomicReference<>();
    lease.keepAlive(Thread.currentThread(), (l, reason) -> lost.set(reason));
    for (int i = 0; i < 10; i++) {
      clock.advance(Duration.ofSeconds(1)); // every TTL/3 the watchdog extends on the voters
    }
    assertThat(lease.state()).isEqualTo(LockState.HELD);
    assertThat(lease.remainingValidity()).isGreaterThan(Duration.ofSeconds(2));
    for (RedisServer r : servers) {
      try (Jedis j = Voters.jedis(r)) {
        assertThat(j.pttl("dyno:lock:{leader}")).isBetween(1L, 3000L);
        j.del("dyno:lock:{leader}"); // the keys vanish (e.g. voters lost their data)
      }
    }
    clock.advance(Duration.ofSeconds(1));
    assertThat(lost.get()).contains("majority of voters no longer hold this lease");
    assertThat(lease.state()).isEqualTo(LockState.LOST);
    assertThat(clock.pendingTasks()).isZero();
  }

  @Test
  void watchdogKeepsTryingThroughAnOutageAndReportsLossWhenValidityRunsOut() {
    ManualScheduler clock = new ManualScheduler();
    QuorumLock lock = lock(QuorumLock.builder().hosts(() -> hosts).ticker(clock).scheduler(clock));
    LockLease lease = lock.acquire("leader", Duration.ofSeconds(3), Duration.ZERO);
    AtomicReference<String> lost = new AtomicReference<>();
    lease.keepAlive(Thread.currentThread(), (l, reason) -> lost.set(reason));
    servers.get(0).close();
    servers.get(1).close();
    clock.advance(Duration.ofSeconds(2)); // two failed extensions, still valid
    assertThat(lost.get()).isNull();
    assertThat(lease.isHeld()).isTrue();
    clock.advance(Duration.ofSeconds(1)); // validity (2.968 s) ran out
    assertThat(lost.get()).contains("ran out");
    assertThat(lease.state()).isEqualTo(LockState.LOST);
  }

  @Test
  void watchdogReleasesTheLockWhenTheHolderThreadEnds() throws Exception {
    ManualScheduler clock = new ManualScheduler();
    QuorumLock lock = lock(QuorumLock.builder().hosts(() -> hosts).ticker(clock).scheduler(clock));
    AtomicReference<LockLease> held = new AtomicReference<>();
    Thread holder =
        new Thread(() -> held.set(lock.acquire("job", Duration.ofSeconds(30), Duration.ZERO)
            .keepAlive(Thread.currentThread(), (l, r) -> {})));
    holder.start();
    holder.join(10_000);
    clock.advance(Duration.ofSeconds(10));
    assertThat(held.get().state()).isEqualTo(LockState.RELEASED);
    assertThat(lock.tryAcquire("job", Duration.ofSeconds(30), Duration.ZERO)).isPresent();
  }

  @Test
  void votingSetFollowsTopologyChanges() {
    AtomicReference<List<Host>> current = new AtomicReference<>(hosts);
    QuorumLock lock = lock(QuorumLock.builder().hosts(current::get));
    LockLease first = lock.acquire("shard-map", Duration.ofSeconds(5), Duration.ZERO);
    first.release();
    List<RedisServer> fresh =
        List.of(RedisServer.start(), RedisServer.start(), RedisServer.start());
    servers.addAll(fresh);
    current.set(Voters.oneRackEach(fresh));
    assertThat(lock.votersFor("shard-map")).containsExactlyInAnyOrderElementsOf(current.get());
    LockLease second = lock.acquire("shard-map", Duration.ofSeconds(5), Duration.ZERO);
    assertThat(second.voters()).containsExactlyInAnyOrderElementsOf(current.get());
    int holding =
        0; // a majority granted before acquire returned; the third grant may still be on its way
    for (RedisServer r : fresh) {
      try (Jedis j = Voters.jedis(r)) {
        holding += j.exists("dyno:lock:{shard-map}") ? 1 : 0;
      }
    }
    assertThat(holding).isGreaterThanOrEqualTo(2);
    for (RedisServer r : servers.subList(0, 3)) {
      try (Jedis j = Voters.jedis(r)) {
        assertThat(j.exists("dyno:lock:{shard-map}")).as("old voter untouched").isFalse();
      }
    }
  }

  @Test
  void badArgumentsNameTheResourceAndTheSetting() {
    QuorumLock lock = lock();
    assertThatThrownBy(() -> lock.tryAcquire("r1", Duration.ZERO, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'r1'")
        .hasMessageContaining("ttl");
    assertThatThrownBy(() -> lock.tryAcquire("r1", Duration.ofSeconds(1), Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wait");
    assertThatThrownBy(() -> lock.tryAcquire("", Duration.ofSeconds(1), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("resource");
    lock.close();
    lock.close();
    assertThatThrownBy(() -> lock.tryAcquire("r1", Duration.ofSeconds(1), Duration.ZERO))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }
}
