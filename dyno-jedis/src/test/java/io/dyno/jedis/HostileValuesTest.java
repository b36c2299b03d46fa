package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.jedis.testing.RedisServers;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Jedis;

/**
 * Values written by other clients, read through the real client from real Redis (datastore mode):
 * bounded decoding, values returned as stored when compression is off, Netflix Dyno's format on
 * request, and null keys/values refused by name before anything is sent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileValuesTest {
  private RedisServers redis;

  @BeforeAll
  void start() throws Exception {
    redis = new RedisServers(1, 1);
  }

  @AfterAll
  void stop() {
    redis.close();
  }

  private DynoJedisClientBuilder builder() {
    return DynoJedisClient.builder()
        .applicationName("hostile-" + System.nanoTime())
        .hostSupplier(redis::hosts)
        .tokenMapSupplier(h -> redis.tokens())
        .localRack("rack1")
        .datastoreMode(true);
  }

  private Jedis raw() {
    return new Jedis("127.0.0.1", redis.ports().get(0));
  }

  /** Dyno's header declaring 512 MB, followed by 4 bytes: what another writer could leave behind. */
  private static final byte[] BOMB = {(byte) 0xFE, 'D', 'Z', 1, 0x20, 0, 0, 0, 1, 2, 3, 4};

  @Test
  void aTwelveByteValueDeclaring512MbIsRefusedNamingTheKeyWithoutAllocatingIt() {
    try (Jedis j = raw()) {
      j.set("bomb".getBytes(), BOMB);
    }
    try (DynoJedisClient client = builder().compressionThreshold(100).build()) {
      long before = usedHeap();
      assertThatThrownBy(() -> client.get("bomb"))
          .isInstanceOf(DynoDataException.class)
          .hasMessageContaining("key \"bomb\"")
          .hasMessageContaining(
              "declares 536870912 bytes, more than its 4 compressed bytes can hold");
      // Measured, not a performance assertion: 512 MB would not fit the test JVM's heap at all.
      assertThat(usedHeap() - before).isLessThan(64L << 20);
      // The connection is fine afterwards: the failure was in decoding, not on the wire.
      client.set("after-bomb", "ok");
      assertThat(client.get("after-bomb")).isEqualTo("ok");
    }
  }

  @Test
  void aDeclaredSizeOverTheConfiguredMaximumIsRefusedNamingKeyAndSetting() throws Exception {
    byte[] big = new byte[10_000];
    Arrays.fill(big, (byte) 'x');
    try (DynoJedisClient writer = builder().compressionThreshold(100).build()) {
      writer.set("big".getBytes(), big);
    }
    try (DynoJedisClient reader =
        builder().compressionThreshold(100).maxDecompressedSize(5_000).build()) {
      assertThatThrownBy(() -> reader.get("big"))
          .isInstanceOf(DynoDataException.class)
          .hasMessageContaining("key \"big\"")
          .hasMessageContaining("maxDecompressedSize (5000 bytes)");
      assertThatThrownBy(() -> reader.mget("missing", "big")).hasMessageContaining("key \"big\"");
    }
  }

  @Test
  void withCompressionOffValuesAreReturnedExactlyAsStored() {
    try (Jedis j = raw()) {
      j.set("headered".getBytes(), BOMB);
    }
    try (DynoJedisClient client = builder().build()) {
      assertThat(client.get("headered".getBytes())).isEqualTo(BOMB);
      assertThat(client.mget("headered".getBytes(), "nothing".getBytes()))
          .containsExactly(BOMB, null);
    }
  }

  @Test
  void netflixDynoCompressedStringsAreReadBackDecompressedWhenAskedFor() throws Exception {
    String original = "{\"profile\":\"" + "é-netflix-".repeat(400) + "\"}";
    String stored = netflixDynoCompressed(original);
    assertThat(stored).startsWith("H4sI");
    try (Jedis j = raw()) {
      j.set("nf:s", stored);
      j.hset("nf:h", Map.of("f", stored, "plain", "H4sI-but-not-base64!"));
    }
    try (DynoJedisClient plain = builder().build()) {
      assertThat(plain.get("nf:s")).isEqualTo(stored);
    }
    try (DynoJedisClient migrating =
        builder().readCompressed(CompressedFormat.NETFLIX_DYNO).build()) {
      assertThat(migrating.get("nf:s")).isEqualTo(original);
      assertThat(migrating.hget("nf:h", "f")).isEqualTo(original);
      assertThat(migrating.hgetAll("nf:h"))
          .containsEntry("f", original)
          .containsEntry("plain", "H4sI-but-not-base64!");
      assertThat(migrating.mget("nf:s", "none")).containsExactly(original, null);
    }
  }

  @Test
  void aCorruptNetflixValueIsAnErrorNamingTheKey() throws Exception {
    byte[] gz = Base64.getDecoder().decode(netflixDynoCompressed("x".repeat(1000)));
    byte[] cut = Arrays.copyOf(gz, gz.length - 12); // truncated GZIP
    try (Jedis j = raw()) {
      j.set("nf:bad", Base64.getEncoder().encodeToString(cut));
    }
    try (DynoJedisClient migrating =
        builder().readCompressed(CompressedFormat.NETFLIX_DYNO).build()) {
      assertThatThrownBy(() -> migrating.get("nf:bad"))
          .isInstanceOf(DynoDataException.class)
          .hasMessageContaining("key \"nf:bad\"")
          .hasMessageContaining("Netflix Dyno");
    }
  }

  @Test
  void nullKeysAndValuesAreRefusedNamingTheCommandBeforeAnythingIsSent() {
    try (DynoJedisClient client = builder().build();
        Jedis j = raw()) {
      long setsBefore = calls(j, "set");
      assertThatThrownBy(() -> client.set((String) null, "v"))
          .isExactlyInstanceOf(IllegalArgumentException.class)
          .hasMessage("SET: key #1 is null (Redis has no null; refused before sending)");
      assertThatThrownBy(() -> client.set("k", (String) null))
          .isExactlyInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("SET: argument #2 is null");
      assertThatThrownBy(() -> client.get((byte[]) null))
          .hasMessageStartingWith("GET: key #1 is null");
      assertThatThrownBy(() -> client.mget("a", null, "c"))
          .hasMessageStartingWith("MGET: key #2 is null");
      assertThatThrownBy(() -> client.hset("h", "f", null))
          .hasMessageStartingWith("HSET: argument #3 is null");
      assertThatThrownBy(() -> client.pipelined().set(null, "v"))
          .hasMessageStartingWith("SET: key #1 is null");
      assertThat(calls(j, "set")).isEqualTo(setsBefore);
      client.set("k", "v"); // and the client is untouched by it
      assertThat(client.get("k")).isEqualTo("v");
    }
  }

  private static long calls(Jedis j, String command) {
    String stats = j.info("commandstats");
    for (String line : stats.split("\r?\n")) {
      if (line.startsWith("cmdstat_" + command + ":")) {
        return Long.parseLong(line.replaceAll(".*calls=(\\d+).*", "$1"));
      }
    }
    return 0;
  }

  private static long usedHeap() {
    Runtime rt = Runtime.getRuntime();
    return rt.totalMemory() - rt.freeMemory();
  }

  /** What Netflix Dyno stored for a compressed string: Base64(GZIP(Base64(UTF-8))). */
  static String netflixDynoCompressed(String value) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
      gz.write(Base64.getEncoder().encode(value.getBytes(StandardCharsets.UTF_8)));
    }
    return Base64.getEncoder().encodeToString(bytes.toByteArray());
  }
}
