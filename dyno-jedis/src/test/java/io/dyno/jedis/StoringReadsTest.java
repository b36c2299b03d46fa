package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.events.AttemptReason;
import io.dyno.core.events.CallListener;
import io.dyno.core.time.Ticker;
import io.dyno.jedis.CallListenerFailoverTest.Event;
import io.dyno.jedis.CallListenerFailoverTest.Recorder;
import io.dyno.jedis.testing.RedisServers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Commands that read in one shape and store in another ({@code SORT ... STORE}) are writes in the
 * shape that stores, as the command table says: mirrored to a shadow cluster and never hedged,
 * where the same command reading only is hedged and not mirrored.
 */
class StoringReadsTest {
  private static final Duration LATE = Duration.ofMillis(600);

  @Test
  void aSortThatStoresIsMirroredToTheShadowClusterAndOneThatOnlyReadsIsNot() {
    try (RedisServers primary = new RedisServers(1, 1);
        RedisServers shadowServers = new RedisServers(1, 1);
        DynoJedisClient client = datastore(primary) // closes the shadow's client with its own
            .shadowCluster(datastore(shadowServers).build(), 100, 1_000)
            .build()) {
      client.rpush("{s}src", "3", "1", "2");
      assertThat(client.sort("{s}src")).containsExactly("1", "2", "3");
      assertThat(client.shadowStats().offered()).as("RPUSH only").isEqualTo(1);
      assertThat(client.sort("{s}src", "{s}dst")).isEqualTo(3);
      assertThat(client.shadowStats().offered()).as("RPUSH and SORT ... STORE").isEqualTo(2);
      await("both writes sent to the shadow")
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(1))
          .until(() -> client.shadowStats().sent() == 2);
      try (Jedis check = new Jedis("127.0.0.1", shadowServers.ports().get(0))) {
        assertThat(check.lrange("{s}dst", 0, -1)).containsExactly("1", "2", "3");
      }
    }
  }

  @Test
  void aSortThatStoresWaitsForItsSlowOwnerWhereOneThatOnlyReadsIsAnsweredElsewhere() {
    Recorder recorder = new Recorder();
    CallListener.Factory listener = () -> recorder;
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(3)
            .nodesPerRack(1)
            .backend(Backend.REDIS)
            .start();
        DynoJedisClient client = DynoJedisClient.builder()
            .applicationName("storing-reads")
            .hostSupplier(cluster.hostSupplier())
            .tokenMapSupplier(cluster.tokenMapSupplier())
            .localRack("rack1")
            .eventListener(listener)
            .config(DynoConfig.builder()
                .applicationName("storing-reads")
                .socketTimeout(Duration.ofSeconds(5))
                .hedgeReads(HedgePolicy.after(Duration.ofMillis(30)))
                .build())
            .build()) {
      client.rpush("{s}src", "3", "1", "2");
      CompanionNode slow = cluster.node("rack1", 0);
      slow.delayReplies(LATE);
      try {
        Ticker clock = Ticker.system();
        recorder.events.clear();
        long start = clock.nanoTime();
        assertThat(client.sort("{s}src", "{s}dst")).isEqualTo(3);
        assertThat(Duration.ofNanos(clock.nanoTime() - start))
            .as("SORT ... STORE waited for its owner: no hedge answered it")
            .isGreaterThanOrEqualTo(LATE);
        assertThat(reasons(recorder)).containsExactly(AttemptReason.PREFERRED);
        assertThat(nodes(recorder)).allMatch(h -> h.port() == slow.clientPort());

        recorder.events.clear();
        start = clock.nanoTime();
        client.sort("{s}src");
        assertThat(Duration.ofNanos(clock.nanoTime() - start))
            .as("SORT alone, a read: hedged, or steered away from the slow owner")
            .isLessThan(LATE);
        assertThat(reasons(recorder)).containsAnyOf(AttemptReason.HEDGE, AttemptReason.STEERED);
      } finally {
        slow.clearFaults();
      }
    }
  }

  private static List<AttemptReason> reasons(Recorder r) {
    return r.events.stream()
        .filter(e -> e.type().equals("attemptStart"))
        .map(e -> (AttemptReason) e.what())
        .toList();
  }

  private static List<Host> nodes(Recorder r) {
    return r.events.stream()
        .filter(e -> e.type().equals("attemptStart"))
        .map(Event::node)
        .toList();
  }

  private static DynoJedisClientBuilder datastore(RedisServers servers) {
    return DynoJedisClient.builder()
        .applicationName("storing-" + System.nanoTime())
        .hostSupplier(servers::hosts)
        .tokenMapSupplier(h -> servers.tokens())
        .localRack("rack1")
        .datastoreMode(true);
  }
}
