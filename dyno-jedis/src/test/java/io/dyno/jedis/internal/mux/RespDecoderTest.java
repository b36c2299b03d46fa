package io.dyno.jedis.internal.mux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisDataException;

/** The decoder on its own: input split anywhere, and input that is not RESP. */
class RespDecoderTest {
  private final List<Object> replies = new ArrayList<>();
  private final EmbeddedChannel ch = new EmbeddedChannel(new RespDecoder(replies::add, 1 << 20));

  private void feed(String s, int chunk) {
    byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
    for (int i = 0; i < b.length; i += chunk) {
      ch.writeInbound(Unpooled.wrappedBuffer(b, i, Math.min(chunk, b.length - i)));
    }
  }

  @Test
  void repliesSplitAtEveryByteDecodeTheSameAsWhole() {
    String stream = "+OK\r\n$5\r\nhello\r\n$-1\r\n*0\r\n:-42\r\n*-1\r\n"
        + "*3\r\n$1\r\n0\r\n*2\r\n$1\r\na\r\n*1\r\n:9223372036854775807\r\n-ERR inner\r\n"
        + "-WRONGPASS invalid username-password pair\r\n$0\r\n\r\n";
    for (int chunk : new int[] {1, 2, 3, 7, stream.length()}) {
      replies.clear();
      feed(stream, chunk);
      assertThat(replies).hasSize(9);
      assertThat((byte[]) replies.get(0)).asString().isEqualTo("OK");
      assertThat((byte[]) replies.get(1)).asString().isEqualTo("hello");
      assertThat(replies.get(2)).isNull();
      assertThat(replies.get(3)).isEqualTo(List.of());
      assertThat(replies.get(4)).isEqualTo(-42L);
      assertThat(replies.get(5)).isNull();
      List<?> nested = (List<?>) replies.get(6);
      assertThat((byte[]) nested.get(0)).asString().isEqualTo("0");
      List<?> inner = (List<?>) nested.get(1);
      assertThat(((List<?>) inner.get(1)).get(0)).isEqualTo(Long.MAX_VALUE);
      assertThat(nested.get(2))
          .isInstanceOf(JedisDataException.class)
          .hasFieldOrPropertyWithValue("message", "ERR inner");
      assertThat(replies.get(7)).isInstanceOf(JedisAccessControlException.class);
      assertThat((byte[]) replies.get(8)).isEmpty();
    }
  }

  @Test
  void inputThatIsNotRespIsRefusedAndNothingAfterItIsRead() {
    assertThatThrownBy(() -> feed("!garbage\r\n", 100))
        .isInstanceOf(DecoderException.class)
        .hasRootCauseMessage("unknown reply type byte 0x21");
    feed("+OK\r\n", 100);
    assertThat(replies).isEmpty();
  }

  @Test
  void boundsAreEnforced() {
    assertThatThrownBy(() -> feed("$2000000\r\n", 100))
        .hasRootCauseMessage("bulk string length 2000000 (limit 1048576 bytes)");
    EmbeddedChannel deep = new EmbeddedChannel(new RespDecoder(replies::add, 100));
    assertThatThrownBy(() -> deep.writeInbound(
            Unpooled.wrappedBuffer("*1\r\n".repeat(65).getBytes(StandardCharsets.US_ASCII))))
        .hasRootCauseMessage("arrays nested deeper than 64");
    EmbeddedChannel badInt = new EmbeddedChannel(new RespDecoder(replies::add, 100));
    assertThatThrownBy(() -> badInt.writeInbound(Unpooled.wrappedBuffer(
            ":99999999999999999999\r\n".getBytes(StandardCharsets.US_ASCII))))
        .hasRootCauseMessage("integer out of range: '99999999999999999999'");
    EmbeddedChannel noCr = new EmbeddedChannel(new RespDecoder(replies::add, 100));
    assertThatThrownBy(() -> noCr.writeInbound(
            Unpooled.wrappedBuffer("$3\r\nabcXY".getBytes(StandardCharsets.US_ASCII))))
        .hasRootCauseMessage("bulk string of 3 bytes not followed by CRLF");
  }

  @Test
  void anErrorReplyWithoutTextSaysSo() {
    feed("-\r\n- \r\n", 100);
    assertThat(replies)
        .hasSize(2)
        .allSatisfy(r -> assertThat(r)
            .isInstanceOf(JedisDataException.class)
            .hasFieldOrPropertyWithValue("message", "the server sent an error reply without text"));
  }
}
