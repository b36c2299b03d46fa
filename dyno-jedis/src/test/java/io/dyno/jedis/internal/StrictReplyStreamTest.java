package io.dyno.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.Host;
import java.io.ByteArrayInputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.RedisInputStream;

/** Jedis's reply parser through {@link StrictReplyStream}: good replies unchanged, junk numbers refused before any allocation. */
class StrictReplyStreamTest {
  private static Object read(byte[] bytes) {
    RedisInputStream connectionStream = new RedisInputStream(new ByteArrayInputStream(bytes));
    return Protocol.read(new StrictReplyStream(connectionStream));
  }

  private static Object read(String s) {
    return read(s.getBytes(StandardCharsets.ISO_8859_1));
  }

  @Test
  void goodRepliesReadAsJedisReadsThem() {
    assertThat((byte[]) read("$5\r\nhello\r\n")).asString().isEqualTo("hello");
    assertThat(read("$-1\r\n")).isNull();
    assertThat(read("*-1\r\n")).isNull();
    assertThat(read(":-12\r\n")).isEqualTo(-12L);
    assertThat(read(":9223372036854775807\r\n")).isEqualTo(Long.MAX_VALUE);
    List<?> list = (List<?>) read("*3\r\n$1\r\na\r\n:7\r\n*0\r\n");
    assertThat(new String((byte[]) list.get(0), StandardCharsets.UTF_8)).isEqualTo("a");
    assertThat(list.get(1)).isEqualTo(7L);
    assertThat((List<?>) list.get(2)).isEmpty();
  }

  @Test
  void aJunkLengthLineIsAProtocolErrorNotAnAllocation() {
    // The fuzzer's finding: Jedis alone reads this as a bulk string of 1,590,643,449 bytes and
    // allocates it.
    byte[] finding = {
      '$',
      (byte) 0xc6,
      (byte) 0xf2,
      (byte) 0xf5,
      (byte) 0x9e,
      (byte) 0xf5,
      (byte) 0xf5,
      (byte) 0xdb,
      (byte) 0xd2,
      '1',
      '\r',
      '\n',
      2,
      0
    };
    assertThatThrownBy(() -> read(finding))
        .isInstanceOf(JedisConnectionException.class)
        .hasMessageContaining("malformed number in a reply of type '$'")
        .hasMessageContaining("0xc6");
  }

  @Test
  void lengthsBeyondTheBoundsAreRefusedWithTheLength() {
    assertThatThrownBy(() -> read("$" + (StrictReplyStream.MAX_BULK + 1L) + "\r\n"))
        .isInstanceOf(JedisConnectionException.class)
        .hasMessageContaining("length 536870913");
    assertThatThrownBy(() -> read("*" + (StrictReplyStream.MAX_AGGREGATE + 1L) + "\r\n"))
        .isInstanceOf(JedisConnectionException.class)
        .hasMessageContaining("reply of type '*'");
    assertThatThrownBy(() -> read("$-2\r\n"))
        .isInstanceOf(JedisConnectionException.class)
        .hasMessageContaining("-2");
    assertThatThrownBy(() -> read("*1\r\n$99999999999\r\n"))
        .isInstanceOf(JedisConnectionException.class)
        .hasMessageContaining("99999999999");
  }

  @Test
  void numbersMustBeDigitsThenCrlf() {
    for (String junk :
        List.of(":12x\r\n", ":\r\n", ":-\r\n", ":1\rx", ":99999999999999999999\r\n", "$1 \r\n")) {
      assertThatThrownBy(() -> read(junk))
          .as(junk)
          .isInstanceOf(JedisConnectionException.class)
          .hasMessageContaining("protocol error");
    }
  }

  @Test
  void readsThroughTheConnectionStreamWithoutLosingTheNextReply() {
    byte[] two = "+OK\r\n$3\r\nabc\r\n".getBytes(StandardCharsets.US_ASCII);
    RedisInputStream connectionStream = new RedisInputStream(new ByteArrayInputStream(two));
    StrictReplyStream strict = new StrictReplyStream(connectionStream);
    assertThat((byte[]) Protocol.read(strict)).asString().isEqualTo("OK");
    assertThat(Arrays.equals(
            (byte[]) Protocol.read(strict), "abc".getBytes(StandardCharsets.US_ASCII)))
        .isTrue();
  }

  @Test
  void anErrorReplyWithoutTextSaysSoOnAPooledConnection() throws Exception {
    // The fuzzer's second finding: "-\n\r\n" became a JedisDataException whose message is a
    // newline.
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Host host = Host.builder("127.0.0.1", server.getLocalPort())
          .ipAddress("127.0.0.1")
          .rack("r")
          .datacenter("d")
          .build();
      JedisNodeConnection c = new JedisConnectionFactory(JedisConnectionFactory.Datastore.off())
          .open(host, Duration.ofSeconds(2), Duration.ofSeconds(2));
      try (c;
          Socket peer = server.accept()) {
        peer.getOutputStream().write("-\n\r\n+OK\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThatThrownBy(() -> c.execute(new CommandArguments(Protocol.Command.PING)))
            .isInstanceOf(JedisDataException.class)
            .hasMessage("the server sent an error reply without text");
        assertThat((byte[]) c.execute(new CommandArguments(Protocol.Command.PING)))
            .asString()
            .isEqualTo("OK");
        assertThat(c.isBroken()).as("a data error keeps the connection").isFalse();
      }
    }
  }
}
