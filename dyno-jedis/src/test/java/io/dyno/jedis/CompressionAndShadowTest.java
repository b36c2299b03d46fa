package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.netflix.archaius.config.DefaultSettableConfig;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.config.ArchaiusDynoConfig;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.exec.CallOptions;
import io.dyno.jedis.internal.ShadowWriter;
import io.dyno.jedis.internal.ValueCodec;
import io.dyno.jedis.testing.RedisServers;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/** Value compression, shadow dual writes and per-call options, in datastore mode against real Redis. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CompressionAndShadowTest {
  private RedisServers primary;
  private RedisServers shadowServers;

  @BeforeAll
  void start() throws Exception {
    primary = new RedisServers(1, 2);
    shadowServers = new RedisServers(1, 2);
  }

  @AfterAll
  void stop() {
    primary.close();
    shadowServers.close();
  }

  private DynoJedisClientBuilder builder(RedisServers servers) {
    return DynoJedisClient.builder()
        .applicationName("comp-" + System.nanoTime())
        .hostSupplier(servers::hosts)
        .tokenMapSupplier(h -> servers.tokens())
        .localRack("rack1")
        .datastoreMode(true);
  }

  private byte[] rawStored(RedisServers servers, String key) {
    for (int port : servers.ports()) {
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        byte[] v = j.get(key.getBytes());
        if (v != null) {
          return v;
        }
      }
    }
    return null;
  }

  /** Compression moved to this module; Archaius keeps configuring it under the original Dyno's names. */
  @Test
  void archaiusCompressionPropertiesConfigureTheClientAndABadOneFailsTheBuildNamingIt() {
    DefaultSettableConfig props = new DefaultSettableConfig();
    props.setProperty("dyno.compprops.compressionStrategy", "THRESHOLD");
    props.setProperty("dyno.compprops.config.compressionThreshold", "100");
    String big = "xyz".repeat(500);
    try (ArchaiusDynoConfig source = new ArchaiusDynoConfig(
        props, DynoConfig.builder().applicationName("compprops").build())) {
      assertThat(source.unusedProperties()).isEmpty();
      try (DynoJedisClient client = builder(primary).config(source).build()) {
        client.set("p:big", big);
        client.set("p:small", "x".repeat(99));
        assertThat(client.get("p:big")).isEqualTo(big);
      }
      assertThat(ValueCodec.isCompressed(rawStored(primary, "p:big"))).isTrue();
      assertThat(rawStored(primary, "p:small")).isEqualTo("x".repeat(99).getBytes());

      props.setProperty("dyno.compprops.compressionStrategy", "NONE");
      try (DynoJedisClient client = builder(primary).config(source).build()) {
        client.set("p:plain", big);
      }
      assertThat(rawStored(primary, "p:plain")).isEqualTo(big.getBytes());

      props.setProperty("dyno.compprops.config.compressionThreshold", "lots");
      assertThatThrownBy(() -> builder(primary).config(source).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "property dyno.compprops.config.compressionThreshold = \"lots\" is invalid: expected >= 0 bytes");
    }
  }

  @Test
  void valuesOverTheThresholdAreStoredCompressedAndReadBackWhateverTheThresholdBecomes() {
    String big = "abc".repeat(1000);
    byte[] bigBinary = new byte[5000];
    Arrays.fill(bigBinary, (byte) 0x80);
    try (DynoJedisClient writer = builder(primary).compressionThreshold(100).build()) {
      writer.set("c:big", big);
      writer.set("c:small", "tiny");
      writer.set("c:bin".getBytes(), bigBinary);
      writer.hset("c:h", Map.of("f", big));
      writer.mset("c:m1", big, "c:m2", big, "c:m3", big);
      assertThat(writer.get("c:big")).isEqualTo(big);
      assertThat(writer.get("c:bin".getBytes())).isEqualTo(bigBinary);
      assertThat(writer.hget("c:h", "f")).isEqualTo(big);
      assertThat(writer.mget("c:m1", "c:m2", "c:m3", "c:small"))
          .containsExactly(big, big, big, "tiny");
    }
    assertThat(ValueCodec.isCompressed(rawStored(primary, "c:big"))).isTrue();
    assertThat(rawStored(primary, "c:big").length).isLessThan(200);
    assertThat(rawStored(primary, "c:small")).isEqualTo("tiny".getBytes());
    // A reader with compression off returns values exactly as stored ...
    try (DynoJedisClient plain = builder(primary).build()) {
      assertThat(plain.get("c:big".getBytes())).isEqualTo(rawStored(primary, "c:big"));
      assertThat(plain.get("c:small")).isEqualTo("tiny");
    }
    // ... and decodes Dyno's format once asked to (compression turned off after a period with it
    // on).
    try (DynoJedisClient reader =
        builder(primary).readCompressed(CompressedFormat.DYNO).build()) {
      assertThat(reader.get("c:big")).isEqualTo(big);
      assertThat(reader.get("c:bin".getBytes())).isEqualTo(bigBinary);
      assertThat(reader.hgetAll("c:h")).containsEntry("f", big);
      assertThat(reader.mget("c:m1", "c:m3")).containsExactly(big, big);
    }
  }

  @Test
  void aCorruptCompressedValueIsReportedNotReturnedAsGarbage() {
    byte[] corrupt = {(byte) 0xFE, 'D', 'Z', 1, 0, 0, 0, 50, 1, 2, 3};
    assertThatThrownBy(() -> new ValueCodec(100).decode(corrupt, "k1"))
        .hasMessageContaining("compressed value of key \"k1\"");
  }

  @Test
  void shadowWritesMirrorTheSameKeysEveryTimeAndDropsAreCounted() throws Exception {
    DynoJedisClient shadowClient = builder(shadowServers).build();
    try (DynoJedisClient client =
        builder(primary).shadowCluster(shadowClient, 50, 10_000).build()) {
      ShadowWriter selector = new ShadowWriter(50, 1, args -> {});
      selector.close();
      int mirrored = 0;
      for (int i = 0; i < 200; i++) {
        client.set("sh:" + i, "v" + i);
        if (selector.selects("sh:" + i)) {
          mirrored++;
        }
      }
      assertThat(mirrored).isBetween(60, 140); // ~50% of keys, chosen by hash
      int expected = mirrored;
      await("the selected keys sent to the shadow")
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(1))
          .untilAsserted(() -> assertThat(client.shadowStats().sent()).isEqualTo(expected));
      try (Jedis check = new Jedis("127.0.0.1", shadowServers.ports().get(0));
          Jedis check2 = new Jedis("127.0.0.1", shadowServers.ports().get(1))) {
        for (int i = 0; i < 200; i++) {
          String k = "sh:" + i;
          boolean there = check.exists(k) || check2.exists(k);
          assertThat(there).as(k).isEqualTo(selector.selects(k));
        }
      }
    }
    // A full queue drops and counts, never blocks the caller.
    CountDownLatch release = new CountDownLatch(1);
    ShadowWriter slow = new ShadowWriter(100, 1, args -> {
      try {
        release.await(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    try {
      for (int i = 0; i < 50; i++) {
        slow.offer(new CommandArguments(Protocol.Command.SET).key("k" + i).add("v"));
      }
      assertThat(slow.dropped()).isGreaterThanOrEqualTo(48);
      assertThat(slow.offered()).isEqualTo(50);
    } finally {
      release.countDown();
      slow.close();
    }
  }

  @Test
  void consistencyHasNoMeaningInDatastoreModeAndSaysSo() {
    assertThatThrownBy(() -> builder(primary)
            .callOptions(CallOptions.defaults().withConsistency(ConsistencyLevel.DC_QUORUM))
            .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("datastore mode");
  }
}
