package io.dyno.warmup;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.args.ClientPauseMode;

/**
 * One warm-up: brings a node's Redis level with a healthy replica of the same token range in
 * another rack (a <em>peer</em>) before the node serves again. The steps:
 * <ol>
 *   <li>the node goes to STANDBY (its admin port): it refuses clients, and drops what its Dynomite
 *       peers replicate to it, so nothing but the peer's data reaches its Redis;
 *   <li>the peer is chosen: of the given ones, a NORMAL node with the longest Dynomite uptime;
 *   <li>the node's Redis replicates from the peer's Redis ({@code REPLICAOF}): a full copy, which
 *       drops the keys deleted meanwhile and takes the peer's newer values; the writes the peer
 *       takes meanwhile follow on the replication stream;
 *   <li>the switch: the peer's Redis pauses writes ({@code CLIENT PAUSE WRITE}, at most
 *       {@code maxPause}), the node's Redis is made writable, the node goes NORMAL (from now on
 *       Dynomite's replication reaches it directly), its Redis has every byte of the stream
 *       ({@code slave_repl_offset == master_repl_offset}) and stops replicating
 *       ({@code REPLICAOF NO ONE}); then the peer's writes resume.
 * </ol>
 * Residual race: a write that Dynomite replicates to the node in the few milliseconds between the
 * peer's pause and the node's NORMAL is dropped by the node (it was still in STANDBY) while the
 * peer applies it only after the node stopped replicating: that one write is missing on the node.
 * A write the peer applied just before its pause and that reaches the node's Dynomite just after
 * NORMAL is applied twice there (an INCR counted twice). Both need the write to be in flight within
 * the switch (two loopback round trips on the sidecar's side).
 *
 * <p>On failure the node is left in STANDBY, replicating or not, so no client reads it; the
 * sidecar tries again.
 */
public final class WarmUp {
  private static final Logger log = LoggerFactory.getLogger(WarmUp.class);

  /** What a warm-up did. */
  public record Report(WarmUpNode peer, long keys, Duration took) {}

  private final WarmUpNode node;
  private final List<WarmUpNode> peers;
  private final Duration syncTimeout;
  private final Duration maxPause;
  private final Duration ioTimeout;

  /**
   * @param node the node to warm up
   * @param peers the nodes holding the same tokens in other racks (at least one)
   * @param syncTimeout how long the copy may take before the warm-up fails
   * @param maxPause the longest the peer's writes may be paused for the switch
   */
  public WarmUp(WarmUpNode node, List<WarmUpNode> peers, Duration syncTimeout, Duration maxPause) {
    this.node = Objects.requireNonNull(node, "node");
    this.peers = List.copyOf(peers);
    if (this.peers.isEmpty()) {
      throw new IllegalArgumentException("a warm-up of " + node + " needs at least one peer");
    }
    this.syncTimeout = positive(syncTimeout, "syncTimeout");
    this.maxPause = positive(maxPause, "maxPause");
    this.ioTimeout = Duration.ofSeconds(2);
  }

  /**
   * Runs the warm-up; blocks until the node is NORMAL again with the peer's data.
   *
   * @return what it did
   * @throws IOException when a step failed (the node is left in STANDBY)
   * @throws InterruptedException when interrupted while waiting for the copy
   */
  public Report run() throws IOException, InterruptedException {
    long start = System.nanoTime();
    DynomiteAdmin admin = admin(node);
    admin.setState("standby");
    WarmUpNode peer = choosePeer();
    log.info(
        "warming {} up from {}: node in STANDBY, its Redis replicating the peer's", node, peer);
    int timeoutMs = (int) ioTimeout.toMillis();
    try (Jedis mine = redis(node, timeoutMs);
        Jedis theirs = redis(peer, timeoutMs)) {
      mine.configSet("replica-read-only", "yes");
      mine.replicaof(peer.host(), peer.redisPort());
      awaitSynced(mine, syncTimeout);
      mine.configSet("replica-read-only", "no"); // the node's Dynomite writes to it from NORMAL on
      theirs.clientPause(maxPause.toMillis(), ClientPauseMode.WRITE);
      try {
        admin.setState("normal");
        awaitOffset(mine, offset(theirs, "master_repl_offset"), maxPause);
        mine.replicaofNoOne();
      } finally {
        theirs.clientUnpause();
        mine.configSet("replica-read-only", "yes");
      }
      long keys = mine.dbSize();
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      log.info("{} warmed up from {}: {} keys in {} ms; NORMAL", node, peer, keys, took.toMillis());
      return new Report(peer, keys, took);
    } catch (IOException | RuntimeException e) {
      // A Redis error (Jedis throws unchecked) or a step that ran out of time: keep the node out
      // of service, whichever step it reached (even after NORMAL, while it still replicates).
      try {
        admin.setState("standby");
      } catch (IOException again) {
        e.addSuppressed(again);
      }
      throw new IOException("warm-up of " + node + " from " + peer + " failed: " + e, e);
    }
  }

  /** A NORMAL peer with the longest uptime: the one least likely to be missing writes itself. */
  private WarmUpNode choosePeer() throws IOException {
    WarmUpNode best = null;
    long bestUptime = -1;
    StringBuilder why = new StringBuilder();
    for (WarmUpNode p : peers) {
      try {
        DynomiteAdmin a = admin(p);
        String state = a.state();
        long up = a.uptimeSeconds();
        if (!state.equals("NORMAL")) {
          why.append("; ").append(p).append(" is ").append(state);
        } else if (up > bestUptime) {
          best = p;
          bestUptime = up;
        }
      } catch (IOException e) {
        why.append("; ").append(p).append(": ").append(e.getMessage());
      }
    }
    if (best == null) {
      throw new IOException("no peer of " + node + " is NORMAL" + why);
    }
    return best;
  }

  /** A connection to {@code n}'s Redis (RESP2, as Dynomite speaks to it). */
  static Jedis redis(WarmUpNode n, int timeoutMs) {
    return new Jedis(
        new HostAndPort(n.host(), n.redisPort()),
        DefaultJedisClientConfig.builder()
            .timeoutMillis(timeoutMs)
            .protocol(RedisProtocol.RESP2)
            .autoNegotiateProtocol(false)
            .build());
  }

  private DynomiteAdmin admin(WarmUpNode n) {
    return new DynomiteAdmin(n.host(), n.adminPort(), ioTimeout);
  }

  /** Waits until the replica's link is up and its initial copy loaded. */
  private static void awaitSynced(Jedis replica, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Map<String, String> info = info(replica);
      if ("up".equals(info.get("master_link_status"))
          && "0".equals(info.get("master_sync_in_progress"))) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("the copy did not finish within " + timeout.toMillis() + " ms: "
            + info.get("master_link_status") + ", sync in progress "
            + info.get("master_sync_in_progress"));
      }
      Thread.sleep(20);
    }
  }

  /** Waits until the replica has the stream up to {@code target} (the paused master's offset). */
  private static void awaitOffset(Jedis replica, long target, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (offset(replica, "slave_repl_offset") < target) {
      if (System.nanoTime() > deadline) {
        throw new IOException("the replica did not reach offset " + target + " within "
            + timeout.toMillis() + " ms of the peer's pause");
      }
      Thread.sleep(1);
    }
  }

  private static long offset(Jedis redis, String field) throws IOException {
    String v = info(redis).get(field);
    if (v == null) {
      throw new IOException("INFO replication has no " + field);
    }
    return Long.parseLong(v);
  }

  private static Map<String, String> info(Jedis redis) {
    Map<String, String> m = new HashMap<>();
    for (String line : redis.info("replication").split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        m.put(line.substring(0, colon), line.substring(colon + 1).strip());
      }
    }
    return m;
  }

  private static Duration positive(Duration d, String name) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, not " + d);
    }
    return d;
  }
}
