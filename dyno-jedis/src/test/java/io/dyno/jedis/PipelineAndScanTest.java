package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** Pipelines over keys on every node, and the cluster-wide scan, through the companion with real Redis. */
class PipelineAndScanTest {
  private CompanionCluster cluster;
  private DynoJedisClient client;

  @BeforeEach
  void start() {
    cluster = CompanionCluster.builder()
        .racks(3)
        .nodesPerRack(2)
        .backend(Backend.REDIS)
        .start();
    client = DynoJedisClient.builder()
        .config(DynoConfig.builder()
            .applicationName("pipeline-scan")
            .socketTimeout(Duration.ofMillis(500))
            .build())
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .build();
  }

  @AfterEach
  void stop() {
    client.close();
    cluster.close();
  }

  /** The same mixed commands over 100 keys, as command objects both paths can run. */
  private static List<CommandObject<?>> mixedCommands() {
    CommandObjects co = new CommandObjects(RedisProtocol.RESP2);
    List<CommandObject<?>> cmds = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      String k = "p:" + i;
      cmds.add(co.set(k, "v" + i));
      cmds.add(co.get(k));
      cmds.add(co.incr("pc:" + i));
      cmds.add(co.hset("ph:" + i, "f", "x" + i));
      cmds.add(co.hget("ph:" + i, "f"));
      cmds.add(co.rpush("pl:" + i, "a", "b"));
      cmds.add(co.lrange("pl:" + i, 0, -1));
      cmds.add(co.sadd("ps:" + i, "m"));
      cmds.add(co.get("p:none:" + i));
      cmds.add(co.hget("p:" + i, "f")); // WRONGTYPE: an error reply in its own slot
    }
    cmds.add(co.mget("p:1", "p:2", "p:3", "p:50", "p:99", "p:none"));
    cmds.add(co.del("p:1", "p:2", "p:3", "p:50"));
    cmds.add(co.exists("p:1", "p:2", "p:4", "p:99"));
    return cmds;
  }

  private static Object outcome(ThrowingSupplier s) {
    try {
      return s.get();
    } catch (RuntimeException e) {
      return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
  }

  interface ThrowingSupplier {
    Object get();
  }

  @Test
  void aPipelineOver100KeysOnEveryNodeReturnsWhatTheSameCommandsReturnUnpipelined() {
    List<CommandObject<?>> cmds = mixedCommands();
    List<Object> expected = new ArrayList<>();
    for (CommandObject<?> c : cmds) {
      expected.add(outcome(() -> client.executeCommand(c)));
    }
    cluster.flushAll();
    cluster.nodes().forEach(CompanionNode::resetStats);

    List<Response<?>> responses = new ArrayList<>();
    try (DynoPipeline p = client.pipelined()) {
      for (CommandObject<?> c : cmds) {
        responses.add(p.executeCommand(c));
      }
      p.sync();
    }
    List<Object> actual = new ArrayList<>();
    for (Response<?> r : responses) {
      actual.add(outcome(r::get));
    }
    assertThat(actual).isEqualTo(expected);
    assertThat(expected).anySatisfy(o -> assertThat(String.valueOf(o)).contains("WRONGTYPE"));
    for (CompanionNode n : cluster.nodes("rack1")) {
      assertThat(n.stats().requests()).as("requests on " + n.host()).isPositive();
      assertThat(n.stats().forwarded()).as("forwarded by " + n.host()).isZero();
    }
  }

  @Test
  void syncAndReturnAllGivesResultsInCallOrder() {
    DynoPipeline p = client.pipelined();
    p.set("a:1", "1");
    p.set("a:2", "2");
    p.get("a:1");
    p.mget("a:1", "a:2", "a:3");
    assertThat(p.syncAndReturnAll())
        .containsExactly("OK", "OK", "1", Arrays.asList("1", "2", null));

    // close() without sync() sends what is queued: PipelineCloseTest.
  }

  @Test
  void aHungOwnerFailsOnlyItsNonIdempotentGroupWithOwnErrorsAndIdempotentGroupsMoveToAReplica() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      keys.add("h:" + i);
      client.set("h:" + i, "v" + i);
    }
    awaitReplicated(keys);
    CompanionNode hung = cluster.ownerOf("rack1", "h:0");
    hung.hang();
    // Reads only: the hung node's group is retried on a replica in another rack.
    List<Response<String>> reads = new ArrayList<>();
    try (DynoPipeline p = client.pipelined()) {
      for (String k : keys) {
        reads.add(p.get(k));
      }
      p.sync();
    }
    for (int i = 0; i < keys.size(); i++) {
      assertThat(reads.get(i).get()).isEqualTo("v" + i);
    }
    hung.unhang();
    DynoJedisClient fresh = freshClient();
    try {
      hung.hang();
      List<Response<Long>> incrs = new ArrayList<>();
      try (DynoPipeline p = fresh.pipelined()) {
        for (String k : keys) {
          incrs.add(p.incr("c" + k));
        }
        p.sync();
      }
      int failed = 0;
      for (int i = 0; i < keys.size(); i++) {
        boolean ownedByHung = cluster.ownerOf("rack1", "c" + keys.get(i)).equals(hung);
        if (ownedByHung) {
          failed++;
          int at = i;
          assertThatThrownBy(() -> incrs.get(at).get())
              .isInstanceOf(JedisConnectionException.class)
              .isInstanceOf(DynoFailure.class)
              .hasMessageContaining("INCR")
              .hasMessageContaining("not retried");
        } else {
          assertThat(incrs.get(i).get()).isEqualTo(1L);
        }
      }
      assertThat(failed).isPositive();
    } finally {
      hung.unhang();
      fresh.close();
    }
  }

  private DynoJedisClient freshClient() {
    return DynoJedisClient.builder()
        .config(DynoConfig.builder()
            .applicationName("pipeline-fresh")
            .socketTimeout(Duration.ofMillis(300))
            .build())
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .build();
  }

  @Test
  void scanOver10000KeysReturnsEachKeyExactlyOnceAlsoWhenANodeIsKilledHalfway() {
    Set<String> written = writeKeys(10_000);
    List<String> all = client.scanAll(null).toList();
    assertThat(all).hasSize(10_000);
    assertThat(new HashSet<>(all)).isEqualTo(written);

    awaitReplicated(List.copyOf(written));
    ClusterScanIterator scan = client.scanIterator(null, 200);
    Host firstRangeNode = client.topology().tokenRanges().get(0).replicas().get(0);
    List<String> seen = new ArrayList<>();
    while (scan.hasNext()) {
      seen.add(new String(scan.next(), StandardCharsets.UTF_8));
      if (seen.size() == 2_000) {
        nodeOf(firstRangeNode).stop(); // killed while its range is being scanned
      }
    }
    assertThat(scan.failovers()).isEqualTo(1);
    assertThat(seen).hasSize(10_000).doesNotHaveDuplicates();
    assertThat(new HashSet<>(seen)).isEqualTo(written);
  }

  private Set<String> writeKeys(int n) {
    Set<String> keys = new HashSet<>();
    for (int batch = 0; batch < n; batch += 500) {
      String[] kv = new String[1000];
      for (int i = 0; i < 500; i++) {
        String k = "scan:" + (batch + i);
        keys.add(k);
        kv[2 * i] = k;
        kv[2 * i + 1] = "v";
      }
      client.mset(kv);
    }
    return keys;
  }

  private CompanionNode nodeOf(Host h) {
    return cluster.nodes().stream().filter(n -> n.host().equals(h)).findFirst().orElseThrow();
  }

  /** Waits (bounded) until every rack's Redis holds all the keys (DC_ONE replicates asynchronously). */
  private void awaitReplicated(List<String> keys) {
    for (String rack : cluster.racks()) {
      awaitTrue(
          () -> {
            long total = 0;
            for (CompanionNode n : cluster.nodes(rack)) {
              try (Jedis j = new Jedis("127.0.0.1", n.redisPort())) {
                total += j.exists(keys.toArray(new String[0]));
              }
            }
            return total == keys.size();
          },
          "keys replicated to " + rack);
    }
  }

  private static void awaitTrue(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.onSpinWait();
    }
  }
}
