package io.dyno.e2e.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.containers.ContainerAssumptions;
import io.dyno.companion.containers.ContainerProcess;
import io.dyno.core.Host;
import io.dyno.e2e.testing.LockChecks;
import io.dyno.recipes.lock.LockLease;
import io.dyno.recipes.lock.QuorumLock;
import io.dyno.recipes.lock.QuorumUnavailableException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * The quorum lock over three voters, each a redis-server in its own container in its own rack, with
 * the voters' faults made by Docker: a frozen voter ({@code docker pause}: connections stay open,
 * nothing is answered) and a killed one. Exclusion is checked by a fenced resource, the way a real
 * protected resource would check it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS) // a safety net; each test takes a few seconds
class QuorumLockContainerTest {
  /** Long on purpose: if an acquisition waited for the frozen voter, it would show plainly. */
  private static final Duration VOTER_TIMEOUT = Duration.ofSeconds(6);

  private static final long WELL_UNDER_VOTER_TIMEOUT_MS = VOTER_TIMEOUT.toMillis() / 2;
  private static final Duration TTL = Duration.ofSeconds(3);

  private final List<ContainerProcess> voters = new ArrayList<>();
  private final List<QuorumLock> locks = new ArrayList<>();
  private List<Host> hosts;

  @BeforeEach
  void startThreeVotersInThreeRacks() {
    ContainerAssumptions.assumeRedisImageAvailable();
    long t0 = System.nanoTime();
    List<CompletableFuture<ContainerProcess>> starting = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      starting.add(CompletableFuture.supplyAsync(ContainerProcess::startRedis));
    }
    RuntimeException failure = null;
    for (CompletableFuture<ContainerProcess> f : starting) {
      try {
        voters.add(f.join()); // collect every started one, so @AfterEach removes them all
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
    System.out.printf("3 voter containers started in %d ms%n", ms(t0));
    hosts = new ArrayList<>();
    for (int i = 0; i < voters.size(); i++) {
      int port = voters.get(i).port();
      hosts.add(Host.builder("127.0.0.1", port)
          .datastorePort(port)
          .rack("rack" + (i + 1))
          .datacenter("dc1")
          .build());
    }
  }

  /** Removes the containers even when a test failed half-way (a paused one is thawed first). */
  @AfterEach
  void removeEverything() {
    locks.forEach(QuorumLock::close);
    for (ContainerProcess p : voters) {
      try {
        if (p.isRunning() && p.isPaused()) {
          p.unpause();
        }
      } catch (RuntimeException e) {
        // close() below still removes it
      }
      p.close();
    }
  }

  private QuorumLock lock(Duration voterTimeout) {
    QuorumLock l = QuorumLock.builder()
        .hosts(() -> hosts)
        .voterTimeout(voterTimeout)
        .retryDelay(Duration.ofMillis(5))
        .build();
    locks.add(l);
    return l;
  }

  @Test
  void
      withOneVoterContainerPausedTwoClientsStillTakeTurnsNeverTogetherAndThePausedVoterRejoinsAfterUnpause() {
    QuorumLock a = lock(VOTER_TIMEOUT);
    QuorumLock b = lock(VOTER_TIMEOUT);
    String resource = "ledger:paused";
    assertThat(a.votersFor(resource))
        .as("one voter per rack, all three")
        .containsExactlyInAnyOrderElementsOf(hosts);
    a.acquire(resource, TTL, Duration.ZERO).release(); // warm up: connections, class loading
    b.acquire(resource, TTL, Duration.ZERO).release();

    ContainerProcess frozen = voters.get(1);
    frozen.pause();
    assertThat(frozen.isPaused()).isTrue();
    assertThatThrownBy(() -> ping(frozen))
        .as("the frozen voter does not answer a PING within 1 s")
        .hasRootCauseInstanceOf(SocketTimeoutException.class);
    long t0 = System.nanoTime();
    LockChecks checks = new LockChecks(TTL);
    // Each acquisition decided by the two live voters.
    checks.takeTurns(a, b, resource);
    // Then a free-for-all: two threads racing, no pause between attempts.
    int raced = checks.race(a, b, resource, 200);
    long pausedMs = ms(t0);
    checks.assertClean("voters in bare redis containers");
    assertThat(raced).isGreaterThanOrEqualTo(200);
    assertThat(checks.maxAcquireMs())
        .as("slowest acquisition (ms), voter timeout %d ms", VOTER_TIMEOUT.toMillis())
        .isLessThan(WELL_UNDER_VOTER_TIMEOUT_MS);
    System.out.printf(
        "lock with voter %s paused: %d acquisitions in %d ms, slowest %d ms, last token %d%n",
        frozen.port(), checks.accepted(), pausedMs, checks.maxAcquireMs(), checks.lastToken());

    // Thaw it. The requests it buffered while frozen now run and may leave a stale lock key, which
    // expires by its TTL; then freeze another voter, so that every acquisition needs the thawed
    // one.
    frozen.unpause();
    long t1 = System.nanoTime();
    await("the thawed voter's stale lock key expired")
        .atMost(TTL.plusSeconds(5))
        .until(() -> !exists(frozen, "dyno:lock:{" + resource + "}"));
    voters.get(0).pause();
    LockLease needsThawed = checks.timedAcquire(a, resource);
    checks.enter(needsThawed, "after unpause");
    assertThat(b.tryAcquire(resource, TTL, Duration.ZERO)).isEmpty();
    // With voter 0 frozen, the majority is {thawed, voter 2}: both granted and both had their fence
    // raised.
    assertThat(get(frozen, "dyno:lock:{" + resource + "}:fence"))
        .as("fence on the thawed voter")
        .isEqualTo(Long.toString(needsThawed.fencingToken()));
    checks.leave();
    needsThawed.release();
    LockLease next = checks.timedAcquire(b, resource);
    checks.enter(next, "after unpause, b");
    checks.leave();
    next.release();
    checks.assertClean("voters in bare redis containers");
    System.out.printf(
        "voter %s thawed: back in the quorum after %d ms, token %d%n",
        frozen.port(), ms(t1), next.fencingToken());
  }

  @Test
  void withTwoOfThreeVoterContainersPausedAcquireFailsFastNamingBothAndWorksAgainOnceThawed() {
    Duration timeout = Duration.ofMillis(500);
    QuorumLock lock = lock(timeout);
    String resource = "ledger:majority-paused";
    Duration ttl = Duration.ofSeconds(1); // short: keys the frozen voters apply late expire soon
    lock.acquire(resource, ttl, Duration.ZERO)
        .release(); // warm: the failure below is not a cold connect
    voters.get(0).pause();
    voters.get(2).pause();
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> lock.tryAcquire(resource, ttl, Duration.ofSeconds(30)))
        .isInstanceOf(QuorumUnavailableException.class)
        .hasMessageContaining("'" + resource + "'")
        .hasMessageContaining("only 1 of 3 voters reachable, 2 needed")
        .hasMessageContaining("127.0.0.1:" + voters.get(0).port() + " [rack1]")
        .hasMessageContaining("127.0.0.1:" + voters.get(2).port() + " [rack3]")
        .hasMessageNotContaining("127.0.0.1:" + voters.get(1).port())
        .hasMessageContaining("hung or slow")
        .satisfies(e ->
            assertThat(((QuorumUnavailableException) e).unreachableVoters()).hasSize(2));
    long failMs = ms(t0);
    // Fast = about two voter timeouts (the attempt, then its release waiting for a majority of
    // answers), not the 30 s wait bound; the slack is for a loaded CI machine.
    assertThat(failMs).as("ms to fail, wait bound 30 s").isLessThan(5_000);
    System.out.printf(
        "lock with 2 of 3 voters paused: QuorumUnavailableException after %d ms (voter timeout %d ms)%n",
        failMs, timeout.toMillis());

    voters.get(0).unpause();
    voters.get(2).unpause();
    // Buffered requests may have left a stale key; the wait bound covers its TTL.
    LockLease lease = lock.acquire(resource, ttl, Duration.ofSeconds(5));
    assertThat(lease.isHeld()).isTrue();
    lease.release();
  }

  @Test
  void withOneVoterContainerKilledTwoClientsStillTakeTurnsNeverTogether() {
    QuorumLock a = lock(VOTER_TIMEOUT);
    QuorumLock b = lock(VOTER_TIMEOUT);
    String resource = "ledger:killed";
    a.acquire(resource, TTL, Duration.ZERO).release();
    voters.get(2).kill();
    await("the killed voter's container stopped")
        .atMost(Duration.ofSeconds(10))
        .until(() -> !voters.get(2).isRunning());
    assertThatThrownBy(() -> ping(voters.get(2)))
        .as("the killed voter refuses connections")
        .isInstanceOf(RuntimeException.class);
    long t0 = System.nanoTime();
    LockChecks checks = new LockChecks(TTL);
    checks.takeTurns(b, a, resource);
    int raced = checks.race(a, b, resource, 200);
    checks.assertClean("voters in bare redis containers");
    assertThat(raced).isGreaterThanOrEqualTo(200);
    assertThat(checks.maxAcquireMs()).isLessThan(WELL_UNDER_VOTER_TIMEOUT_MS);
    System.out.printf(
        "lock with voter %s killed: %d acquisitions in %d ms, slowest %d ms%n",
        voters.get(2).port(), checks.accepted(), ms(t0), checks.maxAcquireMs());
  }

  private static Jedis jedis(ContainerProcess p) {
    return new Jedis(
        new HostAndPort("127.0.0.1", p.port()),
        DefaultJedisClientConfig.builder()
            .resp2()
            .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
            .connectionTimeoutMillis(1_000)
            .socketTimeoutMillis(1_000)
            .build());
  }

  private static boolean exists(ContainerProcess p, String key) {
    try (Jedis j = jedis(p)) {
      return j.exists(key);
    }
  }

  private static String get(ContainerProcess p, String key) {
    try (Jedis j = jedis(p)) {
      return j.get(key);
    }
  }

  private static String ping(ContainerProcess p) {
    try (Jedis j = jedis(p)) {
      return j.ping();
    }
  }

  private static long ms(long startNanos) {
    return LockChecks.ms(startNanos);
  }
}
