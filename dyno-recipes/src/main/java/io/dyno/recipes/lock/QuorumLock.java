package io.dyno.recipes.lock;

import io.dyno.core.Host;
import io.dyno.core.routing.Topology;
import io.dyno.core.time.Scheduler;
import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A distributed lock decided by a majority of voting nodes, each voter being one Dynomite node's own
 * Redis reached directly (datastore mode): Dynomite replicates asynchronously, so a lock written
 * through it could be granted twice before replication catches up.
 *
 * <h2>Algorithm</h2>
 * <ol>
 *   <li>Voters: an odd number of nodes (default 3) spread over racks, chosen deterministically from
 *       the current host list (see {@link #votersFor(String)}), so the voting set follows topology.</li>
 *   <li>Round 1, in parallel on every voter: {@code SET lock owner NX PX ttl} and, if granted,
 *       {@code INCR fence}. A majority of grants is needed.</li>
 *   <li>Round 2, on the granting voters: raise the fence counter to {@code T = max(returned values)}
 *       (only while still the owner). A majority of acknowledgements is needed. {@code T} is the
 *       lease's fencing token.</li>
 *   <li>Validity = {@code ttl - elapsed - drift}, with {@code drift = ttl * driftFactor + 2 ms},
 *       measured with the {@link Ticker} from just before round 1. If not positive, the attempt failed.</li>
 *   <li>A failed attempt releases whatever it was granted and retries after a random delay until the
 *       wait bound; if a majority of voters cannot be reached at all it fails at once with
 *       {@link QuorumUnavailableException}.</li>
 * </ol>
 *
 * <h2>Why the fencing token is monotonic</h2>
 * Let lease A be handed to its holder, and lease B be granted later by majority M_B, after A was
 * released or expired. A's round 2 was acknowledged by a majority W_A of voters, each of which set its
 * counter to at least T_A while A's key was still there (A's validity was still positive at the end
 * of round 2, so no key of A had expired yet). W_A and M_B intersect in some voter v; v granted B only
 * after A's key on v was gone, hence after A's round-2 write, so B's INCR on v returned at least
 * T_A + 1, and T_B, the max over B's grants, is greater than T_A. This holds as long as voters keep
 * their counters (persistence on, or a restarted voter keeps out for one TTL and has its data) and
 * clocks drift less than the drift factor allows; a change of voting set (topology change) while
 * leases are held voids it, since the old and new majorities need not intersect.
 */
public final class QuorumLock implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(QuorumLock.class);

  private final Supplier<List<Host>> hosts;
  private final int votingNodes;
  private final double driftFactor;
  private final Duration retryDelay;
  private final String keyPrefix;
  private final Ticker ticker;
  private final Scheduler scheduler;
  private final boolean ownsScheduler;
  private final VoterPool pool;
  private final String clientId = UUID.randomUUID().toString();
  private final AtomicLong attempts = new AtomicLong();
  private volatile boolean closed;

  private QuorumLock(Builder b) {
    this.hosts = b.hosts;
    this.votingNodes = b.votingNodes;
    this.driftFactor = b.driftFactor;
    this.retryDelay = b.retryDelay;
    this.keyPrefix = b.keyPrefix;
    this.ticker = b.ticker;
    this.ownsScheduler = b.scheduler == null;
    this.scheduler = b.scheduler != null ? b.scheduler : Scheduler.daemon("dyno-lock-watchdog");
    this.pool = new VoterPool(b.voterTimeout, b.maxConnectionsPerVoter, ticker);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The voting nodes for {@code resource} under the current host list. */
  public List<Host> votersFor(String resource) {
    checkResource(resource);
    return VoterSelection.select(currentHosts(), resource, votingNodes);
  }

  /**
   * Acquires the lock on {@code resource} for {@code ttl}, retrying while someone else holds it for
   * at most {@code wait} (zero: one attempt).
   *
   * @return the lease, or empty if the lock stayed taken for the whole wait
   * @throws QuorumUnavailableException if a majority of voters cannot be reached (fails at once)
   */
  public Optional<LockLease> tryAcquire(String resource, Duration ttl, Duration wait) {
    checkResource(resource);
    if (ttl == null || ttl.toMillis() < 1) {
      throw new IllegalArgumentException(
          "lock on '" + resource + "': ttl must be at least 1 ms, was " + ttl);
    }
    if (wait == null || wait.isNegative()) {
      throw new IllegalArgumentException(
          "lock on '" + resource + "': wait must be zero or positive, was " + wait);
    }
    if (closed) {
      throw new IllegalStateException("lock on '" + resource + "': QuorumLock is closed");
    }
    long waitDeadline = ticker.nanoTime() + wait.toNanos();
    while (true) {
      LockLease lease = attempt(resource, ttl);
      if (lease != null) {
        return Optional.of(lease);
      }
      long left = waitDeadline - ticker.nanoTime();
      if (left <= 0) {
        return Optional.empty();
      }
      long base = retryDelay.toNanos();
      long pause = Math.min(left, base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1));
      try {
        // Random pause so that racing clients do not split the votes again and again.
        TimeUnit.NANOSECONDS.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
  }

  /** Like {@link #tryAcquire} but throws {@link LockTimeoutException} when the wait bound passes. */
  public LockLease acquire(String resource, Duration ttl, Duration wait) {
    return tryAcquire(resource, ttl, wait)
        .orElseThrow(() -> new LockTimeoutException("lock on '" + resource
            + "' still held by another client after waiting " + wait.toMillis() + " ms"));
  }

  private LockLease attempt(String resource, Duration ttl) {
    List<Host> voters = VoterSelection.select(currentHosts(), resource, votingNodes);
    int quorum = voters.size() / 2 + 1;
    String owner = clientId + ":" + attempts.incrementAndGet();
    String ttlMs = Long.toString(ttl.toMillis());
    List<String> keys = List.of(lockKey(resource), fenceKey(resource));
    long start = ticker.nanoTime();

    VoterPool.Round grants = pool.run(
        voters,
        c -> c.eval(Scripts.ACQUIRE, keys, List.of(owner, ttlMs)),
        quorum,
        v -> v instanceof Long l && l > 0);
    List<VoterPool.Reply> granted = grants.matching(v -> v instanceof Long l && l > 0);
    if (log.isDebugEnabled()) {
      log.debug("acquire '{}' as {}: {}", resource, owner, grants.replies());
    }
    if (granted.size() < quorum) {
      releaseQuietly(voters, keys, owner, grants);
      List<VoterPool.Reply> failed = grants.failed();
      if (voters.size() - failed.size() < quorum) {
        throw unavailable(resource, voters, quorum, failed);
      }
      return null; // held by someone else (or split vote): retry
    }
    long token = granted.stream().mapToLong(r -> (Long) r.value()).max().orElseThrow();
    List<Host> grantedHosts = granted.stream().map(VoterPool.Reply::host).toList();
    VoterPool.Round raised = pool.run(
        grantedHosts,
        c -> c.eval(Scripts.RAISE_FENCE, keys, List.of(owner, Long.toString(token))),
        quorum,
        v -> Long.valueOf(1).equals(v));
    long validUntil = start + ttl.toNanos() - drift(ttl);
    if (raised.matching(v -> Long.valueOf(1).equals(v)).size() < quorum
        || ticker.nanoTime() >= validUntil) {
      releaseQuietly(voters, keys, owner, grants);
      return null;
    }
    return new LockLease(this, resource, owner, token, ttl, voters, validUntil, grants);
  }

  long drift(Duration ttl) {
    return (long) (ttl.toNanos() * driftFactor) + Duration.ofMillis(2).toNanos();
  }

  /** Extends on the lease's voters; returns the new valid-until, -1 if a majority said "not yours". */
  long extend(LockLease lease, Duration ttl) {
    List<String> keys = List.of(lockKey(lease.resource()), fenceKey(lease.resource()));
    int quorum = lease.voters().size() / 2 + 1;
    long start = ticker.nanoTime();
    VoterPool.Round r = pool.run(
        lease.voters(),
        c -> c.eval(Scripts.EXTEND, keys, List.of(lease.owner(), Long.toString(ttl.toMillis()))),
        quorum,
        v -> Long.valueOf(1).equals(v));
    if (r.matching(v -> Long.valueOf(1).equals(v)).size() >= quorum) {
      return start + ttl.toNanos() - drift(ttl);
    }
    List<VoterPool.Reply> failed = r.failed();
    if (lease.voters().size() - failed.size() < quorum) {
      throw unavailable(lease.resource(), lease.voters(), quorum, failed);
    }
    return -1;
  }

  void release(LockLease lease) {
    releaseQuietly(
        lease.voters(),
        List.of(lockKey(lease.resource()), fenceKey(lease.resource())),
        lease.owner(),
        lease.acquireRound());
  }

  private void releaseQuietly(
      List<Host> voters, List<String> keys, String owner, VoterPool.Round acquired) {
    // Waits for a majority of answers: then no other client can be refused for lack of a majority
    // because of this owner; a hung voter's key expires by its TTL.
    VoterPool.Round r = pool.run(
        voters,
        c -> c.eval(Scripts.RELEASE, keys, List.of(owner)),
        voters.size() / 2 + 1,
        v -> true,
        acquired);
    if (log.isDebugEnabled()) {
      for (VoterPool.Reply f : r.failed()) {
        log.debug(
            "release of {} on {} failed (the key expires by its TTL): {}",
            keys.get(0),
            f.host(),
            f.error());
      }
    }
  }

  private QuorumUnavailableException unavailable(
      String resource, List<Host> voters, int quorum, List<VoterPool.Reply> failed) {
    List<String> names = failed.stream()
        .map(f ->
            VoterSelection.endpoint(f.host()) + " [" + f.host().rack() + "] (" + f.error() + ")")
        .toList();
    return new QuorumUnavailableException(
        "lock on '" + resource + "': only " + (voters.size() - failed.size()) + " of "
            + voters.size() + " voters reachable, " + quorum + " needed; unreachable: "
            + String.join(", ", names),
        names);
  }

  Ticker ticker() {
    return ticker;
  }

  Scheduler scheduler() {
    return scheduler;
  }

  String lockKey(String resource) {
    return keyPrefix + "{" + resource + "}";
  }

  String fenceKey(String resource) {
    return keyPrefix + "{" + resource + "}:fence";
  }

  private List<Host> currentHosts() {
    List<Host> list = hosts.get();
    if (list == null || list.isEmpty()) {
      throw new IllegalStateException("QuorumLock: the host supplier returned no hosts");
    }
    return list;
  }

  private static void checkResource(String resource) {
    if (resource == null || resource.isEmpty()) {
      throw new IllegalArgumentException("lock resource name must not be empty");
    }
  }

  /** Closes connections and, if this lock created it, the watchdog scheduler. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (ownsScheduler) {
      scheduler.close();
    }
    pool.close();
  }

  /** Builds a {@link QuorumLock}; only the voters are required. */
  public static final class Builder {
    private Supplier<List<Host>> hosts;
    private int votingNodes = 3;
    private double driftFactor = 0.01;
    private Duration voterTimeout = Duration.ofMillis(200);
    private Duration retryDelay = Duration.ofMillis(20);
    private int maxConnectionsPerVoter = 8;
    private String keyPrefix = "dyno:lock:";
    private Ticker ticker = Ticker.system();
    private Scheduler scheduler;

    private Builder() {}

    /** Where the voting nodes come from; read on every acquisition. Hosts need a datastorePort. */
    public Builder hosts(Supplier<List<Host>> hosts) {
      this.hosts = Objects.requireNonNull(hosts, "hosts");
      return this;
    }

    /** Voting nodes from the client's current topology snapshot. */
    public Builder topology(Supplier<Topology> topology) {
      Objects.requireNonNull(topology, "topology");
      this.hosts = () -> topology.get().hosts();
      return this;
    }

    /** Odd number of voters (default 3); fewer hosts means the largest odd number available. */
    public Builder votingNodes(int n) {
      if (n < 1 || n % 2 == 0) {
        throw new IllegalArgumentException("votingNodes must be odd and at least 1, was " + n);
      }
      this.votingNodes = n;
      return this;
    }

    /** Fraction of the TTL assumed lost to clock drift between client and voters (default 0.01). */
    public Builder clockDriftFactor(double f) {
      if (!(f >= 0 && f < 0.5)) {
        throw new IllegalArgumentException("clockDriftFactor must be in [0, 0.5), was " + f);
      }
      this.driftFactor = f;
      return this;
    }

    /** Connect and read timeout for one voter (default 200 ms); keep it well below the TTLs used. */
    public Builder voterTimeout(Duration d) {
      if (d == null || d.toMillis() < 1) {
        throw new IllegalArgumentException("voterTimeout must be at least 1 ms, was " + d);
      }
      this.voterTimeout = d;
      return this;
    }

    /** Mean pause between attempts while the lock is taken (default 20 ms, randomised in [d/2, d]). */
    public Builder retryDelay(Duration d) {
      if (d == null || d.isNegative()) {
        throw new IllegalArgumentException("retryDelay must be zero or positive, was " + d);
      }
      this.retryDelay = d;
      return this;
    }

    public Builder maxConnectionsPerVoter(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxConnectionsPerVoter must be at least 1, was " + n);
      }
      this.maxConnectionsPerVoter = n;
      return this;
    }

    /** Prefix of the lock and fence keys on the voters (default {@code dyno:lock:}). */
    public Builder keyPrefix(String p) {
      this.keyPrefix = Objects.requireNonNull(p, "keyPrefix");
      return this;
    }

    /**
     * Clock for validity and for how long a voting round waits for replies; inject a manual one in
     * tests. The waiting itself, and each voter's connect and read timeouts, are real.
     */
    public Builder ticker(Ticker t) {
      this.ticker = Objects.requireNonNull(t, "ticker");
      return this;
    }

    /** Runs watchdogs; default: a daemon scheduler owned (and closed) by the lock. */
    public Builder scheduler(Scheduler s) {
      this.scheduler = Objects.requireNonNull(s, "scheduler");
      return this;
    }

    public QuorumLock build() {
      if (hosts == null) {
        throw new IllegalStateException("QuorumLock: hosts(...) or topology(...) is required");
      }
      return new QuorumLock(this);
    }
  }
}
