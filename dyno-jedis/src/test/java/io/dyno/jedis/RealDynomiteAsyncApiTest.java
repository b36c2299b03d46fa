package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.companion.dynomite.DynomiteAssumptions;
import io.dyno.companion.dynomite.DynomiteCluster;
import io.dyno.companion.dynomite.DynomiteNode;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.metrics.DynoMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The asynchronous API on the multiplexed transport against real Dynomite (3 racks x 2 nodes):
 * thousands of requests in flight from one thread, each with its own reply; split commands; error
 * replies and refused commands as failed futures; chaining from a callback; a blocking call in a
 * callback refused by name; and a frozen node's reads answered by hedging well within the deadline.
 */
class RealDynomiteAsyncApiTest {
  static DynomiteCluster cluster;
  static DefaultRegistry registry = new DefaultRegistry();
  static DynoJedisClient client;
  static DynoJedisAsync async;

  @BeforeAll
  static void start() {
    DynomiteAssumptions.assumeBinary();
    cluster = DynomiteCluster.builder().racks(3).nodesPerRack(2).start();
    client = DynoJedisClient.builder()
        .applicationName("async-e2e")
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .transport(Transport.MULTIPLEXED)
        .registry(registry)
        .config(DynoConfig.builder()
            .socketTimeout(Duration.ofMillis(1500))
            .requestDeadline(Duration.ofMillis(1200))
            .build())
        .build();
    async = client.async();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void twoThousandRequestsInFlightFromOneThreadEachGetTheirOwnReply() {
    List<CompletableFuture<String>> writes = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      writes.add(async.set("async:" + i, "v" + i));
    }
    CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
        .orTimeout(30, TimeUnit.SECONDS)
        .join();
    assertThat(writes).allSatisfy(w -> assertThat(w.join()).isEqualTo("OK"));
    List<CompletableFuture<String>> reads = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      reads.add(async.get("async:" + i));
    }
    for (int i = 0; i < 2000; i++) {
      assertThat(reads.get(i).orTimeout(30, TimeUnit.SECONDS).join()).isEqualTo("v" + i);
    }
  }

  @Test
  void splitCommandsAndAnyJedisCommandObject() {
    async.mset("asm:1", "a", "asm:2", "b", "asm:3", "c").join();
    assertThat(async.mget("asm:1", "asm:2", "asm:3", "asm:none").join())
        .containsExactly("a", "b", "c", null);
    assertThat(async.del("asm:1", "asm:2").join()).isEqualTo(2L);
    async.hset("ash", "f", "1").join();
    assertThat(async.execute(async.commands().hincrByFloat("ash", "f", 0.5)).join())
        .isEqualTo(1.5);
    assertThat(async.hgetAll("ash").join()).containsEntry("f", "1.5");
  }

  @Test
  void errorRepliesAndRefusedCommandsFailTheFutureAndLeaveTheClientUsable() {
    async.set("aserr", "text").join();
    assertThat(failure(async.incr("aserr")))
        .isInstanceOf(JedisDataException.class)
        .hasMessageContaining("not an integer");
    assertThat(failure(async.execute(async.commands().getDel("aserr"))))
        .isInstanceOf(UnsupportedCommandException.class)
        .hasMessageContaining("GETDEL");
    String[] spread = new String[12]; // fixed keys on the cluster's fixed ring: not all on one node
    for (int i = 0; i < spread.length; i++) {
      spread[i] = "asx:" + i;
    }
    assertThat(failure(async.execute(async.commands().sinter(spread))))
        .isInstanceOf(CrossNodeKeysException.class);
    assertThat(async.get("aserr").join()).isEqualTo("text");
  }

  @Test
  void callbacksChainAsynchronousCallsAndABlockingCallInOneIsRefusedByName() {
    async.set("aschain:1", "aschain:2").join();
    async.set("aschain:2", "end").join();
    assertThat(async
            .get("aschain:1")
            .thenCompose(async::get)
            .orTimeout(10, TimeUnit.SECONDS)
            .join())
        .isEqualTo("end");
    // A callback runs on the I/O thread when it was attached before the reply came (else on the
    // attaching thread).
    Thread test = Thread.currentThread();
    List<CompletableFuture<Boolean>> onIoThread = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      onIoThread.add(async.get("aschain:1").thenApply(v -> {
        if (Thread.currentThread() == test) {
          return false;
        }
        client.get(v);
        throw new AssertionError("a blocking call ran on the I/O thread");
      }));
    }
    int refused = 0;
    for (CompletableFuture<Boolean> f : onIoThread) {
      try {
        assertThat(f.orTimeout(10, TimeUnit.SECONDS).join()).isFalse();
      } catch (CompletionException e) {
        assertThat(e.getCause())
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("GET: a blocking call on the client's I/O thread");
        refused++;
      }
    }
    assertThat(refused).as("callbacks that ran on the I/O thread").isPositive();
  }

  @Test
  void aFrozenNodesReadsAreAnsweredByTheHedgeLongBeforeTheDeadline() throws Exception {
    for (int i = 0; i < 100; i++) {
      async.set("ashedge:" + i, "h" + i).join();
    }
    DynoJedisAsync hedged = async.withOptions(
        CallOptions.defaults().withHedging(HedgePolicy.after(Duration.ofMillis(20))));
    DynomiteNode frozen = cluster.node("rack1", 0);
    double sentBefore = hedges("sent");
    frozen.pause();
    try {
      List<CompletableFuture<Long>> reads = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        String expected = "h" + i;
        long start = System.nanoTime();
        reads.add(hedged.get("ashedge:" + i).thenApply(v -> {
          assertThat(v).isEqualTo(expected);
          return System.nanoTime() - start;
        }));
      }
      long slowest = 0;
      for (CompletableFuture<Long> r : reads) {
        slowest = Math.max(slowest, r.get(10, TimeUnit.SECONDS));
      }
      assertThat(hedges("sent") - sentBefore)
          .as("reads of the frozen node's keys were hedged")
          .isPositive();
      assertThat(hedges("won")).as("and the hedges answered").isPositive();
      // Without the hedge a read of the frozen node waits its read timeout (half the 1200 ms
      // deadline) then fails over.
      assertThat(Duration.ofNanos(slowest)).isLessThan(Duration.ofMillis(600));
    } finally {
      frozen.resume();
    }
  }

  static double hedges(String result) {
    return registry
        .counter(registry
            .createId(DynoMetrics.HEDGES)
            .withTag("app", "async-e2e")
            .withTag("command", "GET")
            .withTag("result", result))
        .count();
  }

  static Throwable failure(CompletableFuture<?> f) {
    try {
      f.orTimeout(10, TimeUnit.SECONDS).join();
      throw new AssertionError("the future did not fail");
    } catch (CompletionException e) {
      return e.getCause();
    }
  }
}
