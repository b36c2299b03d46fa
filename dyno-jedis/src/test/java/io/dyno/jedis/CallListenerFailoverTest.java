package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.Host;
import io.dyno.core.events.AttemptOutcome;
import io.dyno.core.events.AttemptReason;
import io.dyno.core.events.CallListener;
import io.dyno.core.events.LoggingCallListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;

/**
 * "Why did this call go to rack2?" answered by the client's call listener: a GET whose owner in the
 * local rack is stopped fails over to the owner in rack2, and the listener (or the one log line)
 * names both nodes and the reason. On both transports: pooled sockets run the engine's blocking
 * call, the multiplexed transport its asynchronous one.
 */
class CallListenerFailoverTest {

  /** One event as the recording listener saw it. */
  record Event(String type, int attempt, Host node, Object what) {}

  /** A listener that records every event of every call (the test makes one call at a time). */
  static final class Recorder implements CallListener {
    final List<Event> events = new CopyOnWriteArrayList<>();
    volatile String command;
    volatile Object key;
    volatile List<Host> candidates;

    @Override
    public void callStart(String command, Object key, List<Host> candidates) {
      this.command = command;
      this.key = key;
      this.candidates = candidates;
      events.add(new Event("callStart", 0, null, null));
    }

    @Override
    public void attemptStart(int attempt, Host node, AttemptReason reason) {
      events.add(new Event("attemptStart", attempt, node, reason));
    }

    @Override
    public void attemptEnd(int attempt, Host node, AttemptOutcome outcome, Throwable failure) {
      events.add(new Event("attemptEnd", attempt, node, outcome));
    }

    @Override
    public void callEnd(Throwable failure, int attempts, long elapsedNanos) {
      events.add(new Event("callEnd", attempts, null, failure));
    }
  }

  /** A key owned in rack1 whose first failover candidate is in rack2 (the other racks take turns per token range). */
  static String keyFailingOverToRack2(DynoJedisClient client, String prefix) {
    for (int i = 0; ; i++) {
      List<Host> replicas = client.topology().replicas(prefix + i);
      if (replicas.get(0).rack().equals("rack1") && replicas.get(1).rack().equals("rack2")) {
        return prefix + i;
      }
    }
  }

  static DynoJedisClient client(
      CompanionCluster cluster, Transport transport, CallListener.Factory listener) {
    return DynoJedisClient.builder()
        .applicationName("events-" + transport)
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .transport(transport)
        .eventListener(listener)
        .build();
  }

  /** Writes {@code key}, waits until rack2's owner holds it (replication is asynchronous), then stops rack1's owner. */
  static CompanionNode stopLocalOwner(
      CompanionCluster cluster, DynoJedisClient client, String key) {
    client.set(key, "v");
    try (Jedis rack2 = new Jedis("127.0.0.1", cluster.ownerOf("rack2", key).clientPort())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> "v".equals(rack2.get(key)));
    }
    CompanionNode local = cluster.ownerOf("rack1", key);
    local.stop();
    return local;
  }

  static boolean is(Host h, CompanionNode n) {
    return h.port() == n.clientPort();
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void aGetWhoseRack1OwnerIsStoppedFailsOverToRack2AndTheListenerSeesEachStep(Transport transport) {
    Recorder recorder = new Recorder();
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(3)
            .nodesPerRack(2)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = client(cluster, transport, () -> recorder)) {
      String key = keyFailingOverToRack2(client, "why:");
      CompanionNode rack1 = stopLocalOwner(cluster, client, key);
      CompanionNode rack2 = cluster.ownerOf("rack2", key);
      recorder.events.clear();

      assertThat(client.get(key)).isEqualTo("v");

      List<Event> events = recorder.events;
      assertThat(recorder.command).isEqualTo("GET");
      assertThat(recorder.key).isEqualTo(key);
      assertThat(is(recorder.candidates.get(0), rack1))
          .as("first candidate: rack1's owner")
          .isTrue();
      assertThat(is(recorder.candidates.get(1), rack2))
          .as("second candidate: rack2's owner")
          .isTrue();
      assertThat(events.get(0).type()).isEqualTo("callStart");
      Event first = events.get(1);
      assertThat(first.type()).isEqualTo("attemptStart");
      assertThat(is(first.node(), rack1))
          .as("the first attempt on rack1's owner: " + events)
          .isTrue();
      assertThat(first.what()).isEqualTo(AttemptReason.PREFERRED);
      List<Event> onRack1 = events.stream()
          .filter(e -> e.type().equals("attemptEnd") && is(e.node(), rack1))
          .toList();
      assertThat(onRack1)
          .as("attempts on the stopped node: " + events)
          .isNotEmpty()
          .allSatisfy(e -> assertThat(e.what()).isNotEqualTo(AttemptOutcome.SUCCESS));
      List<Event> starts =
          events.stream().filter(e -> e.type().equals("attemptStart")).toList();
      Event last = starts.get(starts.size() - 1);
      assertThat(is(last.node(), rack2))
          .as("the last attempt on rack2's owner: " + events)
          .isTrue();
      assertThat(last.what()).isEqualTo(AttemptReason.FAILOVER);
      assertThat(starts)
          .as("only rack1's and rack2's owners were tried: " + events)
          .allSatisfy(
              e -> assertThat(is(e.node(), rack1) || is(e.node(), rack2)).isTrue());
      assertThat(events.get(events.size() - 2))
          .isEqualTo(new Event("attemptEnd", last.attempt(), last.node(), AttemptOutcome.SUCCESS));
      assertThat(events.get(events.size() - 1))
          .isEqualTo(new Event("callEnd", starts.size(), null, null));
    }
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void theOneLineNamesTheNodeThatServedTheCallTheNodeItFailedOverFromAndWhy(Transport transport) {
    List<String> lines = new CopyOnWriteArrayList<>();
    Consumer<String> sink = lines::add;
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(3)
            .nodesPerRack(2)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = client(cluster, transport, LoggingCallListener.to(sink))) {
      String key = keyFailingOverToRack2(
          client, "why\tline:"); // a tab: shown escaped, the line stays one line
      CompanionNode rack1 = stopLocalOwner(cluster, client, key);
      CompanionNode rack2 = cluster.ownerOf("rack2", key);
      lines.clear();

      assertThat(client.get(key)).isEqualTo("v");

      String dc = cluster.datacenter();
      assertThat(lines).hasSize(1);
      assertThat(lines.get(0))
          .startsWith("GET \"" + key.replace("\t", "\\t") + "\" served by 127.0.0.1:"
              + rack2.clientPort() + " (" + dc + "/rack2) on attempt ")
          .contains(
              ": failover from 127.0.0.1:" + rack1.clientPort() + " (" + dc + "/rack1) after ")
          .doesNotContain("\t", "\n");
    }
  }
}
