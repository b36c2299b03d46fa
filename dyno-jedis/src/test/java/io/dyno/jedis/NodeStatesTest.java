package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionClusterConfig;
import io.dyno.companion.CompanionClusterExtension;
import io.dyno.companion.CompanionNode;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.events.AttemptReason;
import io.dyno.core.events.CallListener;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every client honours the node states Dynomite's admin port sets (issue #37): a client started
 * after a node was put in STANDBY or WRITES_ONLY through its admin port sends it no read and no
 * write (they go to the same token's owner in another rack, the attempt's reason saying its first
 * candidate was passed over), and uses it again once {@code /state/normal} is set.
 */
@ExtendWith(CompanionClusterExtension.class)
@CompanionClusterConfig(racks = 3, nodesPerRack = 2)
class NodeStatesTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  /** One attempt: where it went and why. */
  record Attempt(Host node, AttemptReason reason) {}

  @ParameterizedTest
  @ValueSource(strings = {"standby", "writes_only"})
  void aFreshClientKeepsOffANodeThatIsNotNormalAndUsesItAgainAfterNormal(
      String state, CompanionCluster cluster) {
    CompanionNode node = cluster.node("rack1", 0);
    Queue<Attempt> attempts = new ConcurrentLinkedQueue<>();
    CallListener recorder = new CallListener() {
      @Override
      public void attemptStart(int attempt, Host at, AttemptReason reason) {
        attempts.add(new Attempt(at, reason));
      }
    };
    assertThat(admin(node, "/state/" + state)).isEqualTo("OK\r\n");
    try (DynoJedisClient client = DynoJedisClient.builder()
        .config(DynoConfig.builder()
            .applicationName("states-" + state)
            .nodeStatePollInterval(Duration.ofMillis(100))
            .build())
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .nodeStates(cluster.nodeStates())
        .eventListener(() -> recorder)
        .build()) {
      Host host = hostOf(client, node);
      List<String> keys = keysOwnedBy(client, cluster, node, "states:" + state + ":", 20);
      assertThat(client.isNodeUp(host)).as("known before the first call").isFalse();

      long before = node.stats().requests(); // the cluster is shared by the cases
      for (String key : keys) {
        client.set(key, "v-" + key);
        assertThat(client.get(key)).isEqualTo("v-" + key);
      }
      assertThat(attempts).as("every read and write went to another rack").hasSize(40);
      assertThat(attempts).noneMatch(a -> a.node().equals(host));
      // each SET moves off the node (its owner is not serving); the GET after it goes to the rack
      // that took the SET (the key is remembered as written there)
      List<Attempt> inOrder = List.copyOf(attempts);
      for (int i = 0; i < inOrder.size(); i++) {
        assertThat(inOrder.get(i).reason())
            .as("attempt %d (%s)", i, i % 2 == 0 ? "SET" : "GET")
            .isEqualTo(i % 2 == 0 ? AttemptReason.PREFERRED_DOWN : AttemptReason.REMEMBERED_RACK);
      }
      assertThat(node.stats().requests() - before)
          .as("requests the node itself received")
          .isZero();

      assertThat(admin(node, "/state/normal")).isEqualTo("OK\r\n");
      await().atMost(WAIT).until(() -> client.isNodeUp(host));
      attempts.clear();
      // (The keys written elsewhere meanwhile are read there by this process: DivergedKeys.)
      List<String> others = keysOwnedBy(client, cluster, node, "states:after:" + state + ":", 20);
      for (String key : others) {
        client.set(key, "w-" + key);
        assertThat(client.get(key)).isEqualTo("w-" + key);
      }
      assertThat(attempts).hasSize(2 * others.size());
      assertThat(attempts)
          .allMatch(a -> a.node().equals(host) && a.reason() == AttemptReason.PREFERRED);
    } finally {
      admin(node, "/state/normal");
    }
  }

  /** {@code count} keys whose local (rack1) owner is {@code node}. */
  private static List<String> keysOwnedBy(
      DynoJedisClient client,
      CompanionCluster cluster,
      CompanionNode node,
      String prefix,
      int count) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; keys.size() < count; i++) {
      String key = prefix + i;
      if (cluster.ownerOf("rack1", key).clientPort() == node.clientPort()) {
        keys.add(key);
      }
    }
    return keys;
  }

  private static Host hostOf(DynoJedisClient client, CompanionNode node) {
    return client.topology().hosts().stream()
        .filter(h -> h.port() == node.clientPort())
        .findFirst()
        .orElseThrow();
  }

  /** A GET on the node's admin port, as an operator or a sidecar sends it; the answer's body. */
  private static String admin(CompanionNode node, String path) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create(node.adminUrl() + path))
                  .timeout(Duration.ofSeconds(30))
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      throw new IllegalStateException(node.adminUrl() + path + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
