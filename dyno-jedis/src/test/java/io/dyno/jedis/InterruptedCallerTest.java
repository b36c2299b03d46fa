package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.config.DynoConfig;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A caller interrupted while its command is on the wire: the call still ends with the command's
 * real outcome (as a blocking socket read would), and the thread's interrupt status is kept. An
 * interrupted wait reported as a failure made a counter that re-sends failed increments count one
 * twice (BatchedCounter, closed while a flush was in flight).
 */
class InterruptedCallerTest {

  @ParameterizedTest
  @EnumSource(Transport.class)
  void anInterruptedCallerGetsTheOutcomeOfWhatItSentAndKeepsItsInterruptStatus(Transport transport)
      throws Exception {
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(1)
            .nodesPerRack(1)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = DynoJedisClient.builder()
            .applicationName("interrupted")
            .hostSupplier(cluster.hostSupplier())
            .tokenMapSupplier(cluster.tokenMapSupplier())
            .localRack("rack1")
            .transport(transport)
            .config(DynoConfig.builder()
                .applicationName("interrupted")
                .socketTimeout(Duration.ofSeconds(5))
                .build())
            .build()) {
      client.set("count", "41");
      CompanionNode node = cluster.node("rack1", 0);
      AtomicReference<Object> outcome = new AtomicReference<>();
      AtomicBoolean stillInterrupted = new AtomicBoolean();
      CompletableFuture<Void> done = new CompletableFuture<>();
      long before = node.stats().requests();
      node.delayReplies(Duration.ofMillis(1500));
      Thread caller = new Thread(() -> {
        try {
          outcome.set(client.incr("count"));
        } catch (RuntimeException e) {
          outcome.set(e);
        }
        stillInterrupted.set(Thread.currentThread().isInterrupted());
        done.complete(null);
      });
      try {
        caller.start();
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> node.stats().requests() > before); // INCR arrived
        caller.interrupt();
      } finally {
        node.clearFaults(); // what is already delayed still comes late
      }
      done.get(10, TimeUnit.SECONDS);
      assertThat(outcome.get()).as("INCR's real outcome").isEqualTo(42L);
      assertThat(stillInterrupted).isTrue();
      assertThat(client.get("count")).as("applied once").isEqualTo("42");
    }
  }
}
