package io.dyno.recipes.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.DynoException;
import io.dyno.core.testing.ManualScheduler;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.recipes.testing.Clusters;
import io.dyno.recipes.testing.Threads;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Counters through DynoJedisClient on a 6-node companion cluster (3 racks x 2, redis-server backends). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CountersOnClusterTest {
  private CompanionCluster cluster;
  private DynoJedisClient client;

  @BeforeAll
  void start() {
    cluster = Clusters.sixNodes();
    client = Clusters.client(cluster, "counters", "rack1");
  }

  @AfterAll
  void stop() {
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @BeforeEach
  void clean() {
    cluster.flushAll();
    cluster.clearFaults();
  }

  private static void runThreads(int threads, Runnable body) throws InterruptedException {
    Threads.runTogether(Collections.nCopies(threads, body), Duration.ofSeconds(120));
  }

  @Test
  void shardedCounterPutsEachSubKeyOnADifferentNodeOfEveryRack() {
    ShardedCounter counter =
        ShardedCounter.builder(client, "likes").topology(client.topology()).build();
    assertThat(counter.shardKeys()).hasSize(2); // two token ranges per rack
    for (String rack : cluster.racks()) {
      Set<CompanionNode> owners = new HashSet<>();
      for (String key : counter.shardKeys()) {
        owners.add(cluster.ownerOf(rack, key));
      }
      assertThat(owners).as("owners in %s", rack).hasSize(2);
    }
  }

  @Test
  void eightThreadsTimesTenThousandIncrementsSumExactlyAndSpreadOverTheNodes() throws Exception {
    ShardedCounter counter =
        ShardedCounter.builder(client, "views").topology(client.topology()).build();
    cluster.nodes().forEach(CompanionNode::resetStats);
    long t0 = System.nanoTime();
    runThreads(8, () -> {
      for (int i = 0; i < 10_000; i++) {
        counter.increment();
      }
    });
    long ms = (System.nanoTime() - t0) / 1_000_000;
    System.out.printf(
        "sharded counter: 80000 increments from 8 threads in %d ms (%.0f/s)%n",
        ms, 80_000_000.0 / ms);
    assertThat(counter.get()).isEqualTo(80_000);
    for (CompanionNode n : cluster.nodes("rack1")) {
      assertThat(n.stats().requests()).as("requests on %s", n).isGreaterThan(30_000);
    }
    // Replication is asynchronous: an instance in another rack sees the same total shortly after.
    try (DynoJedisClient remote = Clusters.client(cluster, "counters-rack2", "rack2")) {
      ShardedCounter same =
          ShardedCounter.builder(remote, "views").topology(remote.topology()).build();
      await("rack2 reads 80000").atMost(Duration.ofSeconds(10)).until(() -> same.get() == 80_000);
    }
  }

  @Test
  void batchedCounterEightThreadsTimesTenThousandThenCloseSumExactly() throws Exception {
    ShardedCounter target =
        ShardedCounter.builder(client, "batched").topology(client.topology()).build();
    BatchedCounter batched = BatchedCounter.of(target, Duration.ofMillis(5));
    runThreads(8, () -> {
      for (int i = 0; i < 10_000; i++) {
        batched.increment();
      }
    });
    batched.close();
    assertThat(target.get()).isEqualTo(80_000);
    assertThat(batched.pending()).isZero();
    batched.close(); // idempotent
  }

  @Test
  void batchedCounterClosedWhileThreadsIncrementLosesNoAcceptedIncrement() throws Exception {
    ShardedCounter target =
        ShardedCounter.builder(client, "closing").topology(client.topology()).build();
    BatchedCounter batched = BatchedCounter.of(target, Duration.ofMillis(5));
    AtomicLong accepted = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    Thread closer = new Thread(() -> {
      await("40000 increments accepted")
          .atMost(Duration.ofSeconds(30))
          .until(() -> accepted.get() >= 40_000);
      batched.close();
    });
    closer.start();
    // Each thread increments until the counter refuses: close() certainly lands mid-stream.
    runThreads(8, () -> {
      while (true) {
        try {
          batched.increment();
        } catch (IllegalStateException closed) {
          refused.incrementAndGet();
          return;
        }
        accepted.incrementAndGet();
      }
    });
    closer.join(30_000);
    System.out.printf(
        "batched counter: %d accepted before close, then each of 8 threads refused%n",
        accepted.get());
    assertThat(refused.get()).isEqualTo(8);
    assertThat(target.get()).isEqualTo(accepted.get());
    assertThat(batched.pending()).isZero();
  }

  @Test
  void batchedCounterSendsOneIncrementPerFlush() {
    ManualScheduler scheduler = new ManualScheduler();
    KeyCounter target = new KeyCounter(client, "flushes");
    BatchedCounter batched = BatchedCounter.of(target, Duration.ofSeconds(1), scheduler);
    CompanionNode owner = cluster.ownerOf("rack1", "flushes");
    owner.resetStats();
    for (int i = 0; i < 1_000; i++) {
      batched.increment();
    }
    assertThat(target.get()).isZero();
    assertThat(batched.get()).isEqualTo(1_000);
    scheduler.advance(Duration.ofSeconds(1));
    assertThat(target.get()).isEqualTo(1_000);
    batched.incrementBy(-10);
    scheduler.advance(Duration.ofSeconds(1));
    assertThat(target.get()).isEqualTo(990);
    // Two INCRBYs plus three GETs reached the owner, not a thousand requests.
    assertThat(owner.stats().requests()).isLessThanOrEqualTo(6);
    batched.close();
  }

  @Test
  void aFailedFlushKeepsItsAmountAndCloseSaysHowMuchWasNotSent() {
    ManualScheduler scheduler = new ManualScheduler();
    KeyCounter target = new KeyCounter(client, "{fragile}");
    BatchedCounter batched = BatchedCounter.of(target, Duration.ofSeconds(1), scheduler);
    batched.incrementBy(42);
    CompanionNode owner = cluster.ownerOf("rack1", "{fragile}");
    for (CompanionNode n : cluster.nodes()) {
      n.failWith("ERR Storage: Datastore refused connection");
    }
    scheduler.advance(Duration.ofSeconds(1)); // the scheduled flush fails: kept
    assertThat(batched.pending()).isEqualTo(42);
    assertThatThrownBy(batched::close)
        .isInstanceOf(DynoException.class)
        .hasMessageContaining("42 increments not sent");
    cluster.clearFaults();
    assertThat(batched.flush()).isEqualTo(42);
    assertThat(target.get()).isEqualTo(42);
    assertThat(owner.isRunning()).isTrue();
  }
}
