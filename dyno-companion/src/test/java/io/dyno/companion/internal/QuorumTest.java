package io.dyno.companion.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The companion's quorum, as Dynomite's response manager (and the 'errors' transcript recorded from
 * it) answers: two agreeing racks of three answer; disagreeing ones wait for the third; none
 * agreeing, DC_QUORUM answers the local rack's reply whatever order the replies came in, and
 * DC_SAFE_QUORUM fails.
 */
class QuorumTest {
  final List<RedisMessage> answered = new ArrayList<>();

  static RedisMessage value(String v) {
    return new FullBulkStringRedisMessage(Unpooled.copiedBuffer(v, StandardCharsets.UTF_8));
  }

  static String text(RedisMessage m) {
    return m instanceof FullBulkStringRedisMessage b
        ? b.content().toString(StandardCharsets.UTF_8)
        : ((ErrorRedisMessage) m).content();
  }

  @Test
  void twoAgreeingRacksAnswerAtOnce() {
    Quorum q = new Quorum(3, false, answered::add);
    q.from(2).accept(value("x"));
    q.from(1).accept(value("x"));
    assertThat(answered).hasSize(1);
    assertThat(text(answered.get(0))).isEqualTo("x");
    q.from(0).accept(value("y"));
    assertThat(answered).as("answered once").hasSize(1);
  }

  @Test
  void disagreeingRacksWaitForTheThirdAndDcQuorumThenAnswersTheLocalRacksReply() {
    Quorum q = new Quorum(3, false, answered::add);
    q.from(2).accept(value("c")); // a busy machine delivers a peer's reply first
    q.from(1).accept(value("b"));
    assertThat(answered).as("two replies that disagree are no quorum yet").isEmpty();
    q.from(0).accept(value("a"));
    assertThat(answered).hasSize(1);
    assertThat(text(answered.get(0))).isEqualTo("a");
  }

  @Test
  void dcSafeQuorumFailsWhenNoTwoRacksAgree() {
    Quorum q = new Quorum(3, true, answered::add);
    q.from(0).accept(value("a"));
    q.from(1).accept(value("b"));
    q.from(2).accept(value("c"));
    assertThat(text(answered.get(0))).isEqualTo(Resp.NO_QUORUM);
  }

  @Test
  void twoRacksDownAnswerTheFirstError() {
    Quorum q = new Quorum(3, false, answered::add);
    q.from(1).accept(Resp.err("ERR Peer: Peer Node is not connected"));
    q.from(0).accept(value("a"));
    assertThat(answered).isEmpty();
    q.from(2).accept(Resp.err("ERR Peer: Peer Node is not connected"));
    assertThat(text(answered.get(0))).isEqualTo("ERR Peer: Peer Node is not connected");
  }
}
