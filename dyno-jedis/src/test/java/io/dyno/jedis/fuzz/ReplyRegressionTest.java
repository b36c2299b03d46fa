package io.dyno.jedis.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.config.DynoConfig;
import io.dyno.jedis.DynoDataException;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.Transport;
import io.dyno.jedis.internal.ValueCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What the fuzz tests found, as plain tests (the raw inputs stay in the fuzz tests' Inputs folders too). */
class ReplyRegressionTest {
  private FuzzedRespServer server;
  private DynoJedisClient client;

  @BeforeEach
  void start() throws Exception {
    server = new FuzzedRespServer();
  }

  /** The client on {@code transport}: each finding is checked on both (pooled sockets and the shared connection). */
  private DynoJedisClient client(Transport transport) {
    Host host = Host.builder("127.0.0.1", server.port())
        .ipAddress("127.0.0.1")
        .rack("rack1")
        .datacenter("dc1")
        .build();
    client = DynoJedisClient.builder()
        .localRack("rack1")
        .transport(transport)
        .config(DynoConfig.builder()
            .applicationName("reply-regression")
            .maxConnsPerHost(1)
            .socketTimeout(Duration.ofMillis(500))
            .build())
        .hostSupplier(() -> List.of(host))
        .tokenMapSupplier(hosts -> List.of(new HostToken(0L, host)))
        .build();
    return client;
  }

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      client.close();
    }
    server.close();
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /** ReplyFuzzTest crash-integer-reply-to-get: Jedis's builder cast the integer and threw ClassCastException. */
  @ParameterizedTest
  @EnumSource(Transport.class)
  void aReplyOfTheWrongTypeIsATypedErrorNamingTheCommand(Transport transport) {
    DynoJedisClient client = client(transport);
    server.fuzz(ascii(":5\r\n"), false);
    assertThatThrownBy(() -> client.get("k"))
        .isExactlyInstanceOf(DynoDataException.class)
        .hasMessage("GET: the reply is not what GET returns but the integer 5");
    assertThatThrownBy(() -> client.mget("a", "b"))
        .isInstanceOf(DynoDataException.class)
        .hasMessageStartingWith("MGET: the reply from 127.0.0.1:");
    server.good();
    assertThat(client.get("k")).isEqualTo("ok");
  }

  /**
   * ReplyFuzzTest seed extra-bytes: the junk after a reply was read by the next command as its reply.
   * Pooled: the connection holding it is dropped. Multiplexed: a reply nobody asked for closes the
   * shared connection, and a command queued on it when it closed is sent again on a new one.
   */
  @ParameterizedTest
  @EnumSource(Transport.class)
  void bytesAfterAReplyDoNotPoisonTheConnection(Transport transport) {
    replyThenStrayBytesThenGoodReplies(client(transport), "+EXTRA\r\n");
  }

  /** GET answered "hi" followed by {@code stray}; then the server answers well: every later GET reads "ok". */
  private void replyThenStrayBytesThenGoodReplies(DynoJedisClient client, String stray) {
    server.fuzz(ascii("$2\r\nhi\r\n" + stray), false);
    assertThat(client.get("k")).isEqualTo("hi");
    server.good();
    assertThat(client.get("k")).isEqualTo("ok");
    assertThat(client.get("k")).isEqualTo("ok");
  }

  /**
   * ReplyFuzzTest crash-30ad94a4: on the shared connection, the start of a reply nobody asked for
   * ('+EXT' with no line end) waited in the decoder and was read as the start of the next call's
   * reply. Bytes that start a reply while none is owed now close the connection.
   */
  @ParameterizedTest
  @EnumSource(Transport.class)
  void thePartOfAReplyNobodyAskedForIsNotReadAsTheNextCallsReply(Transport transport) {
    replyThenStrayBytesThenGoodReplies(client(transport), "+EXT\u0001");
  }

  /** A server that closes after its reply: the next call's stale connection is retried on a new one. */
  @ParameterizedTest
  @EnumSource(Transport.class)
  void aConnectionClosedByTheServerAfterItsReplyIsNotTheNextCallsProblem(Transport transport) {
    DynoJedisClient client = client(transport);
    server.fuzz(ascii("$2\r\nhi\r\n"), true);
    assertThat(client.get("k")).isEqualTo("hi");
    server.good();
    assertThat(client.get("k")).isEqualTo("ok");
  }

  /** ValueCodecFuzzTest seed: a short value starting with Dyno's header was stored raw and read back as corrupt. */
  @Test
  void aValueThatLooksCompressedReadsBackAsWritten() {
    ValueCodec codec = new ValueCodec(16);
    byte[] lookalike = {(byte) 0xFE, 'D', 'Z', 1, 0x20, 0, 0, 0, 1, 2, 3, 4};
    assertThat(codec.decode(codec.encode(lookalike), "k")).isEqualTo(lookalike);
  }
}
