package io.dyno.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Registry;
import io.dyno.companion.Backend;
import io.dyno.companion.containers.ContainerAssumptions;
import io.dyno.companion.containers.ContainerCluster;
import io.dyno.companion.containers.ContainerCluster.Server;
import io.dyno.companion.containers.ContainerNode;
import io.dyno.companion.containers.ContainerProcess;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.routing.Topology;
import io.dyno.e2e.testing.LockChecks;
import io.dyno.jedis.ClusterScanIterator;
import io.dyno.jedis.DynoFailure;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.DynoPipeline;
import io.dyno.jedis.Transport;
import io.dyno.recipes.lock.QuorumLock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The client's end-to-end failure suite, one test code for both server kinds: each concrete
 * subclass names the server its nodes run (this project's companion, or real Dynomite), and gets
 * its own 3-rack x 2-node cluster in containers, every node with its own redis-server container.
 * The faults are real: {@code docker pause} (a hung process), {@code docker kill}, restarts.
 *
 * <p>Every scenario that goes through {@link DynoJedisClient} runs once per {@link Transport}
 * (pooled Jedis connections, then the multiplexed one) on the same cluster: the failure semantics
 * must not depend on the transport (issue #11), and the cluster start is the expensive part.
 *
 * <p>One cluster per class, shared by its tests: each test leaves every process running and
 * thawed, and the cluster replicating again ({@link ContainerCluster#awaitReplicating}), even when
 * it fails half-way. Every assertion message starts with the server kind and the transport.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS) // a safety net; each test takes seconds
abstract class ClientFailureSuite {
  private static final Duration READY = Duration.ofSeconds(30);
  private static final Duration REPLICATION_BOUND = Duration.ofSeconds(10);
  private static final int THREADS = 40;

  private final Server server;
  private final String serverKind;
  /** For messages: the server kind, then the transport of the running test's client ({@link #client}). */
  private String kind;

  private ContainerCluster cluster;
  private RuntimeException startFailure; // one failed start fails every test, fast
  private final List<AutoCloseable> perTest = new ArrayList<>();

  ClientFailureSuite(Server server) {
    this.server = server;
    this.serverKind = server.name().toLowerCase();
    this.kind = serverKind;
  }

  /**
   * Assumed per test (not in {@code @BeforeAll}) so every skipped test is reported with the reason;
   * the cluster starts once per class.
   */
  @BeforeEach
  void clusterRunning() {
    kind = serverKind;
    ContainerAssumptions.assumeImagesAvailable(server, Backend.REDIS);
    if (startFailure != null) throw startFailure;
    if (cluster == null) {
      long t0 = System.nanoTime();
      try {
        cluster = ContainerCluster.builder()
            .server(server)
            .racks(3)
            .nodesPerRack(2)
            .backend(Backend.REDIS)
            .startupTimeout(Duration.ofSeconds(60))
            .start();
      } catch (RuntimeException e) {
        startFailure = e;
        throw e;
      }
      System.out.printf(
          "[%s] 3x2 cluster started and replicating in %d ms%n", serverKind, LockChecks.ms(t0));
    }
  }

  /** Thaws and restarts whatever a test froze or killed, then waits until the cluster replicates again. */
  @AfterEach
  void healEveryProcess() throws Exception {
    for (AutoCloseable c : perTest) {
      c.close();
    }
    perTest.clear();
    if (cluster == null) return;
    for (ContainerNode n : cluster.nodes()) {
      ContainerProcess redis = n.redis();
      if (redis.isPaused()) redis.unpause();
      if (!redis.isRunning()) redis.restart();
      if (n.server().isPaused()) n.unpause();
      if (!n.isRunning()) n.restart();
    }
    cluster.awaitReplicating(READY);
  }

  @AfterAll
  void stopCluster() {
    if (cluster != null) cluster.close();
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * 40 threads, 80% GET / 20% SET of 1 KiB values over keys that rack1/0 (the client's local rack)
   * owns; that node's container is paused, unpaused, killed and restarted. No read fails (they fail
   * over to the other racks: real Dynomite does not, the client must); both fallback racks serve
   * reads while the owner is frozen and while it is dead; local traffic returns once it is back.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Transport.class)
  void readsNeverFailWhenTheLocalOwnerIsPausedThenKilledAndTrafficReturnsWhenItIsBack(
      Transport transport) throws Exception {
    Registry registry = new DefaultRegistry();
    DynoJedisClient client = client(transport, "e2e-local-owner-" + serverKind, registry);
    ContainerNode victim = cluster.node("rack1", 0);
    List<byte[]> keys = keysOwnedBy(client, victim, 200, "e2e:owner:" + UUID.randomUUID() + ":");
    for (byte[] k : keys) {
      client.set(k, MixedLoad.VALUE);
    }
    awaitInEveryRack(client, keys);

    MixedLoad load = new MixedLoad(THREADS, client, keys, registry);
    load.start();
    try {
      load.phase("normal", Duration.ofSeconds(3));
      assertThat(load.reads.get()).as("[%s] reads before the fault", kind).isPositive();
      victim.pause(); // frozen: requests to it time out
      load.phase("paused", Duration.ofSeconds(5));
      victim.unpause();
      load.phase("unpaused", Duration.ofSeconds(2));
      victim.kill(); // dead: connections refused
      load.phase("killed", Duration.ofSeconds(5));
      load.enter("restarted");
      victim.restart();
      awaitLocalTrafficBack(load, victim);
    } finally {
      load.stop();
      System.out.print(load.report("[" + kind + "] local owner paused then killed"));
    }
    assertNoFailedReads(load, "local owner paused then killed");
    assertThat(load.reads.get()).as("[%s] reads", kind).isGreaterThan(1000);
    assertThat(load.writes.get()).as("[%s] writes", kind).isPositive();
    for (String phase : List.of("paused", "killed")) {
      // Either other rack may take them: one steered away from for its latency (a busy machine
      // slows one replica more than another) leaves them all to the other, as it should.
      long elsewhere = 0;
      for (String rack : List.of("rack2", "rack3")) {
        elsewhere += load.delta(phase, "op.latency{command=GET,outcome=success,rack=" + rack + "}");
      }
      assertThat(elsewhere)
          .as("[%s] GETs served by rack2 and rack3 while the local owner was %s", kind, phase)
          .isPositive();
    }
    assertWriteFailuresAreClear(load);
  }

  /**
   * The same load while the local owner's own redis-server is killed: the node itself stays up and
   * answers every request with {@code Storage: Datastore refused connection}. That is a failover
   * (another rack has the data), not a failed read.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Transport.class)
  void readsNeverFailWhenTheLocalOwnersRedisIsKilledTheStorageErrorsFailOver(Transport transport)
      throws Exception {
    Registry registry = new DefaultRegistry();
    DynoJedisClient client = client(transport, "e2e-local-redis-" + serverKind, registry);
    ContainerNode victim = cluster.node("rack1", 0);
    List<byte[]> keys = keysOwnedBy(client, victim, 200, "e2e:storage:" + UUID.randomUUID() + ":");
    for (byte[] k : keys) {
      client.set(k, MixedLoad.VALUE);
    }
    awaitInEveryRack(client, keys);

    MixedLoad load = new MixedLoad(THREADS, client, keys, registry);
    load.start();
    String storageError;
    try {
      load.phase("normal", Duration.ofSeconds(2));
      victim.redis().kill();
      load.enter("redis killed");
      // What the node itself now answers, asked directly: the storage error, not a dead socket.
      try (Jedis direct = jedis(victim.clientPort())) {
        storageError =
            catchMessage(() -> direct.get(new String(keys.get(0), StandardCharsets.UTF_8)));
      }
      load.phase("redis killed", Duration.ofSeconds(4));
      load.enter("redis restarted");
      victim.redis().restart();
      awaitLocalTrafficBack(load, victim);
    } finally {
      load.stop();
      System.out.print(load.report("[" + kind + "] local owner's redis killed"));
    }
    assertThat(storageError)
        .as("[%s] what %s answers with its redis dead", kind, victim)
        .contains("Storage: Datastore refused connection");
    assertNoFailedReads(load, "local owner's redis killed");
    assertThat(load.delta("redis killed", "op.latency{command=GET,outcome=success,rack=rack2}")
            + load.delta("redis killed", "op.latency{command=GET,outcome=success,rack=rack3}"))
        .as("[%s] GETs served by the other racks while the local owner's redis was dead", kind)
        .isPositive();
    assertWriteFailuresAreClear(load);
  }

  /**
   * A pipeline and an MGET over 200 keys on every node of the local rack return every value, also
   * with one local-rack node killed (its share fails over to its replicas in other racks).
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Transport.class)
  void pipelinesAndMgetAcrossNodesReturnEveryValueAlsoWithALocalNodeKilled(Transport transport) {
    DynoJedisClient client = client(transport, "e2e-pipeline-" + serverKind, new DefaultRegistry());
    String prefix = "e2e:pipe:" + UUID.randomUUID() + ":";
    Map<String, String> expected = new LinkedHashMap<>();
    for (int i = 0; i < 200; i++) {
      expected.put(prefix + i, "v" + i);
    }
    List<Response<String>> acks = new ArrayList<>();
    try (DynoPipeline p = client.pipelined()) {
      expected.forEach((k, v) -> acks.add(p.set(k, v)));
      p.sync();
    }
    assertThat(acks)
        .as("[%s] pipelined SET replies", kind)
        .allSatisfy(r -> assertThat(r.get()).isEqualTo("OK"));
    Set<Host> localOwners = new HashSet<>();
    expected.keySet().forEach(k -> localOwners.add(client.topology().replicas(k).get(0)));
    assertThat(localOwners)
        .as("[%s] the keys' owners in rack1", kind)
        .containsExactlyInAnyOrderElementsOf(
            cluster.rack("rack1").stream().map(ContainerNode::host).toList());
    awaitInEveryRack(
        client,
        expected.keySet().stream().map(k -> k.getBytes(StandardCharsets.UTF_8)).toList());

    assertThat(readThroughPipelineAndMget(client, expected))
        .as("[%s] failed reads, every node up", kind)
        .isEmpty();
    ContainerNode down = cluster.node("rack1", 1);
    down.kill();
    assertThat(readThroughPipelineAndMget(client, expected))
        .as("[%s] failed reads with %s killed", kind, down)
        .isEmpty();
  }

  /** Wrong or failed values of a pipeline of GETs and of one MGET over every key, as "key: what". */
  private List<String> readThroughPipelineAndMget(
      DynoJedisClient client, Map<String, String> expected) {
    List<String> wrong = new ArrayList<>();
    List<String> keys = List.copyOf(expected.keySet());
    Map<String, Response<String>> gets = new LinkedHashMap<>();
    try (DynoPipeline p = client.pipelined()) {
      keys.forEach(k -> gets.put(k, p.get(k)));
      p.sync();
    }
    gets.forEach((k, r) -> {
      String got = catchValue(r::get);
      if (!expected.get(k).equals(got)) wrong.add("pipelined GET " + k + ": " + got);
    });
    String[] all = keys.toArray(String[]::new);
    List<String> values;
    try {
      values = client.mget(all);
    } catch (RuntimeException e) {
      wrong.add("MGET of " + all.length + " keys: " + e);
      return wrong;
    }
    for (int i = 0; i < keys.size(); i++) {
      if (!expected.get(keys.get(i)).equals(values.get(i)))
        wrong.add("MGET " + keys.get(i) + ": " + values.get(i));
    }
    return wrong;
  }

  /**
   * The cluster-wide scan returns each of 3000 keys exactly once: with every node up, and when the
   * node whose range is being scanned is killed half-way (the range continues on a replica).
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Transport.class)
  void clusterScanReturnsEachKeyExactlyOnceAlsoWhenTheScannedNodeIsKilledHalfway(
      Transport transport) {
    DynoJedisClient client = client(transport, "e2e-scan-" + serverKind, new DefaultRegistry());
    String prefix = "e2e:scan:" + UUID.randomUUID() + ":";
    Set<String> written = new HashSet<>();
    // 100 pairs per MSET: real Dynomite refuses a multi-key request larger than one of its buffers
    // (mbuf_size, 16 KiB here) with "MSET/MGET/SCAN payload too large".
    for (int batch = 0; batch < 3000; batch += 100) {
      String[] kv = new String[200];
      for (int i = 0; i < 100; i++) {
        String k = prefix + (batch + i);
        written.add(k);
        kv[2 * i] = k;
        kv[2 * i + 1] = "v";
      }
      assertThat(client.mset(kv)).as("[%s] MSET", kind).isEqualTo("OK");
    }
    for (String rack : cluster.racks()) {
      await("[" + kind + "] the 3000 keys in the redis of " + rack)
          .atMost(REPLICATION_BOUND)
          .until(() -> countInRedis(rack, prefix + "*") == 3000);
    }

    List<String> all = client.scanAll(prefix + "*").toList();
    assertThat(all).as("[%s] scan with every node up", kind).hasSize(3000).doesNotHaveDuplicates();
    assertThat(new HashSet<>(all)).as("[%s] scanned keys", kind).isEqualTo(written);

    ClusterScanIterator scan =
        client.scanIterator((prefix + "*").getBytes(StandardCharsets.UTF_8), 100);
    Topology.TokenRange first = client.topology().tokenRanges().get(0);
    ContainerNode scanned = nodeOf(first.replicas().get(0));
    List<String> seen = new ArrayList<>();
    while (scan.hasNext()) {
      seen.add(new String(scan.next(), StandardCharsets.UTF_8));
      if (seen.size() == 500) {
        scanned.kill(); // killed while its range is being scanned
      }
    }
    assertThat(scanned.isRunning())
        .as("[%s] %s was killed mid-scan", kind, scanned)
        .isFalse();
    assertThat(scan.failovers()).as("[%s] ranges moved to a replica", kind).isEqualTo(1);
    assertThat(seen)
        .as("[%s] scan with %s killed half-way", kind, scanned)
        .hasSize(3000)
        .doesNotHaveDuplicates();
    assertThat(new HashSet<>(seen))
        .as("[%s] keys scanned with a node killed", kind)
        .isEqualTo(written);
  }

  /**
   * DC_QUORUM chosen per call on a DC_ONE client: a quorum write is in a majority of racks when it
   * returns; with one rack dead, quorum reads and writes still succeed; with two dead, a quorum call
   * fails with a clear error while DC_ONE calls on the same client keep working.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Transport.class)
  void dcQuorumPerCallIsInAMajorityOnReturnSurvivesOneDeadRackAndFailsClearlyWithTwo(
      Transport transport) {
    DynoJedisClient client = client(transport, "e2e-quorum-" + serverKind, new DefaultRegistry());
    DynoJedisClient quorum =
        client.withOptions(CallOptions.defaults().withConsistency(ConsistencyLevel.DC_QUORUM));
    assertThat(client.callOptions().consistency())
        .as("the client's default")
        .isNotEqualTo(ConsistencyLevel.DC_QUORUM);
    String prefix = "e2e:quorum:" + UUID.randomUUID() + ":";
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      keys.add(prefix + i);
    }
    Map<String, Integer> racksHolding = new TreeMap<>();
    for (String k : keys) {
      assertThat(quorum.set(k, "q1")).isEqualTo("OK");
      racksHolding.put(
          k, racksHolding(client, k, "q1")); // read at once: no waiting for replication
    }
    assertThat(racksHolding)
        .as("[%s] racks holding each DC_QUORUM write when it returned", kind)
        .allSatisfy((k, racks) -> assertThat(racks).isGreaterThanOrEqualTo(2));

    cluster.rack("rack3").forEach(ContainerNode::kill);
    List<String> failed = new ArrayList<>();
    for (String k : keys) {
      String got = catchValue(() -> quorum.get(k));
      if (!"q1".equals(got)) failed.add("DC_QUORUM GET " + k + ": " + got);
      String ack = catchValue(() -> quorum.set(k, "q2"));
      if (!"OK".equals(ack)) failed.add("DC_QUORUM SET " + k + ": " + ack);
    }
    assertThat(failed).as("[%s] failed DC_QUORUM calls with rack3 dead", kind).isEmpty();

    cluster.rack("rack2").forEach(ContainerNode::kill);
    assertThatThrownBy(() -> quorum.get(keys.get(0)))
        .as("[%s] a DC_QUORUM read with two of three racks dead", kind)
        .isInstanceOf(JedisException.class)
        .isInstanceOf(DynoFailure.class)
        .hasMessageContaining("GET");
    for (String k : keys) {
      String got = catchValue(() -> client.get(k));
      if (!"q2".equals(got)) failed.add("DC_ONE GET " + k + ": " + got);
    }
    assertThat(failed)
        .as("[%s] failed DC_ONE reads on the same client with rack2 and rack3 dead", kind)
        .isEmpty();
  }

  /**
   * The quorum lock over the cluster's nodes (each voter is a node's own redis-server, reached
   * directly) with one voter's redis frozen: two clients still take turns and race, never hold it
   * together, and never wait for the frozen voter. Once, not per transport: the lock reaches its
   * voters with its own connections, not through a {@link DynoJedisClient}.
   */
  @Test
  void theQuorumLockWithAVoterPausedStillExcludesAndNeverWaitsForIt() {
    Duration ttl = Duration.ofSeconds(3);
    Duration voterTimeout = Duration.ofSeconds(6);
    List<Host> hosts = cluster.hosts();
    QuorumLock a = lock(hosts, voterTimeout);
    QuorumLock b = lock(hosts, voterTimeout);
    String resource = "ledger:" + kind + ":" + UUID.randomUUID();
    List<Host> voters = a.votersFor(resource);
    assertThat(voters)
        .as("[%s] voters, one per rack", kind)
        .hasSize(3)
        .extracting(Host::rack)
        .containsExactlyInAnyOrder("rack1", "rack2", "rack3");
    a.acquire(resource, ttl, Duration.ZERO).release(); // warm up: connections, class loading
    b.acquire(resource, ttl, Duration.ZERO).release();

    ContainerNode frozen = nodeOf(voters.get(1));
    frozen.redis().pause();
    long t0 = System.nanoTime();
    LockChecks checks = new LockChecks(ttl);
    checks.takeTurns(a, b, resource);
    int raced = checks.race(a, b, resource, 200);
    checks.assertClean("[" + kind + "] lock with the redis of " + frozen + " paused");
    assertThat(raced).as("[%s] acquisitions raced", kind).isGreaterThanOrEqualTo(200);
    assertThat(checks.maxAcquireMs())
        .as("[%s] slowest acquisition (ms), voter timeout %d ms", kind, voterTimeout.toMillis())
        .isLessThan(voterTimeout.toMillis() / 2);
    System.out.printf(
        "[%s] lock with the redis of %s paused: %d acquisitions in %d ms, slowest %d ms%n",
        kind, frozen, checks.accepted(), LockChecks.ms(t0), checks.maxAcquireMs());
  }

  // ---------------------------------------------------------------------------------------------

  /** The test's client, over {@code transport}; from here on messages name that transport too. */
  private DynoJedisClient client(Transport transport, String app, Registry registry) {
    kind = serverKind + "/" + transport.name().toLowerCase();
    DynoJedisClient c = DynoJedisClient.builder()
        .transport(transport)
        .config(DynoConfig.builder()
            .applicationName(app + "-" + transport.name().toLowerCase())
            // One connection per load thread: after a failover each fallback node takes about half
            // of them at once, and no caller should queue behind another for a connection.
            .maxConnsPerHost(THREADS)
            // Above the latency of healthy nodes on a loaded 2-core machine; the paused node
            // still times out, after 2 s.
            .socketTimeout(Duration.ofSeconds(2))
            .connectTimeout(Duration.ofMillis(500))
            .build())
        .registry(registry)
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .topologyRefreshPeriod(Duration.ofSeconds(1))
        .build();
    perTest.add(c);
    return c;
  }

  private QuorumLock lock(List<Host> hosts, Duration voterTimeout) {
    QuorumLock l = QuorumLock.builder()
        .hosts(() -> hosts)
        .voterTimeout(voterTimeout)
        .retryDelay(Duration.ofMillis(5))
        .build();
    perTest.add(l);
    return l;
  }

  /** {@code n} keys whose owner in its rack is {@code owner}. */
  private static List<byte[]> keysOwnedBy(
      DynoJedisClient client, ContainerNode owner, int n, String prefix) {
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; keys.size() < n; i++) {
      String k = prefix + i;
      if (client.topology().replicas(k).get(0).id().equals(owner.host().id())) {
        keys.add(k.getBytes(StandardCharsets.UTF_8));
      }
    }
    return keys;
  }

  private ContainerNode nodeOf(Host h) {
    return cluster.nodes().stream()
        .filter(n -> n.host().id().equals(h.id()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no node for " + h + " in " + cluster));
  }

  /** Waits until every key is in the redis of its owner in every rack (DC_ONE replicates asynchronously). */
  private void awaitInEveryRack(DynoJedisClient client, List<byte[]> keys) {
    Map<ContainerNode, List<byte[]>> byOwner = new LinkedHashMap<>();
    for (byte[] k : keys) {
      for (Host h : client.topology().replicas(k)) {
        byOwner.computeIfAbsent(nodeOf(h), x -> new ArrayList<>()).add(k);
      }
    }
    byOwner.forEach((node, ks) -> await(
            "[" + kind + "] " + ks.size() + " keys in the redis of " + node)
        .atMost(REPLICATION_BOUND)
        .until(() -> {
          try (Jedis j = jedis(node.redisPort())) {
            return j.exists(ks.toArray(byte[][]::new)) == ks.size();
          }
        }));
  }

  /** In how many racks the owner's redis holds {@code value} under {@code key} right now. */
  private int racksHolding(DynoJedisClient client, String key, String value) {
    int n = 0;
    for (Host h : client.topology().replicas(key)) {
      try (Jedis j = jedis(nodeOf(h).redisPort())) {
        if (value.equals(j.get(key))) n++;
      }
    }
    return n;
  }

  /** Keys matching {@code pattern} over the redis-servers of one rack. */
  private long countInRedis(String rack, String pattern) {
    long total = 0;
    for (ContainerNode n : cluster.rack(rack)) {
      try (Jedis j = jedis(n.redisPort())) {
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
          ScanResult<String> r = j.scan(cursor, new ScanParams().match(pattern).count(1000));
          total += r.getResult().size();
          cursor = r.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
      }
    }
    return total;
  }

  /** Waits until the client sends reads to {@code victim} again (its rack-1 GET successes grow by 500). */
  private void awaitLocalTrafficBack(MixedLoad load, ContainerNode victim) {
    String meter = "op.latency{command=GET,outcome=success,rack=" + victim.rack() + "}";
    long before = load.meter(meter);
    await("[" + kind + "] local-rack reads back on " + victim)
        .atMost(Duration.ofSeconds(15))
        .until(() -> load.meter(meter) > before + 500);
  }

  private void assertNoFailedReads(MixedLoad load, String scenario) {
    assertThat(load.readFailures)
        .as("[%s] %s: failed reads; first: %s", kind, scenario, load.firstReadFailures())
        .isEmpty();
  }

  private void assertWriteFailuresAreClear(MixedLoad load) {
    for (String failure : load.writeFailures.keySet()) {
      // Clear: a named exception with a message naming what failed.
      assertThat(failure).as("[%s] a write failure", kind).matches("[\\w.]+Exception: .+");
    }
  }

  private static Jedis jedis(int port) {
    // No HELLO and no CLIENT SETINFO: real Dynomite closes the connection on both.
    return new Jedis(
        new HostAndPort("127.0.0.1", port),
        DefaultJedisClientConfig.builder()
            .protocol(null)
            .autoNegotiateProtocol(false)
            .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
            .connectionTimeoutMillis(2_000)
            .socketTimeoutMillis(2_000)
            .build());
  }

  private interface Call {
    Object run();
  }

  /** The call's value as a string, or its exception as "Class: message". */
  private static String catchValue(Call call) {
    try {
      return String.valueOf(call.run());
    } catch (RuntimeException e) {
      return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
  }

  /** The message of the exception the call throws, or a description of what it returned instead. */
  private static String catchMessage(Call call) {
    try {
      return "no error: returned " + call.run();
    } catch (JedisDataException e) {
      return e.getMessage();
    } catch (RuntimeException e) {
      return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
  }
}
