package io.dyno.jedis.internal.mux;

import static io.dyno.jedis.internal.mux.MuxConnectionTest.cmd;
import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.testsupport.RedisServer;
import io.netty.channel.EventLoopGroup;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol.Command;
import redis.clients.jedis.exceptions.JedisDataException;

/** Every reply shape decodes to what a Jedis Connection reads for the same command on the same server. */
class MuxRepliesTest {
  static EventLoopGroup group;

  @BeforeAll
  static void loop() {
    group = MuxConnection.newEventLoopGroup(1, "mux-replies");
  }

  @AfterAll
  static void stop() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void repliesMatchJedisForEveryShape() throws Exception {
    byte[] mib = new byte[1 << 20];
    for (int i = 0; i < mib.length; i++) {
      mib[i] = (byte) (i * 31);
    }
    try (RedisServer redis = RedisServer.start();
        MuxConnection mux = MuxConnection.open(
            MuxConnectionTest.name(redis), redis.address(), group, MuxSettings.defaults(), null);
        Connection jedis = new Connection(
            new HostAndPort("127.0.0.1", redis.port()),
            DefaultJedisClientConfig.builder()
                .protocol(null)
                .autoNegotiateProtocol(false)
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
                .build())) {
      assertThat(mux.submit(
                  new CommandArguments(Command.SET).add("big").add(mib),
                  TimeUnit.SECONDS.toNanos(5))
              .get())
          .isNotNull();
      for (int i = 0; i < 300; i++) {
        mux.submit(cmd(Command.SADD, "set", "member" + i), TimeUnit.SECONDS.toNanos(1))
            .get();
      }
      mux.submit(cmd(Command.HSET, "h", "f1", "v1", "f2", "v2"), TimeUnit.SECONDS.toNanos(1))
          .get();
      mux.submit(cmd(Command.ZADD, "z", "1.5", "a", "2", "b"), TimeUnit.SECONDS.toNanos(1))
          .get();

      List<CommandArguments> probes = List.of(
          cmd(Command.PING), // simple string
          cmd(Command.GET, "big"), // 1 MiB bulk
          cmd(Command.GET, "missing"), // null bulk
          cmd(Command.LRANGE, "nolist", "0", "-1"), // empty array
          cmd(Command.SCARD, "set"), // integer
          cmd(Command.EXISTS, "big", "missing"),
          cmd(Command.SCAN, "0", "COUNT", "1000"), // nested: [cursor, [keys]]
          cmd(Command.SSCAN, "set", "0", "COUNT", "50"),
          cmd(Command.HGETALL, "h"),
          cmd(Command.ZRANGE, "z", "0", "-1", "WITHSCORES"),
          cmd(
              Command.EVAL,
              "return {1, {2, 'x', {}}, false, -7}",
              "0"), // nested, null inside, negative
          cmd(Command.EVAL, "return redis.pcall('incr', 'h')", "0"), // error reply at top level
          cmd(Command.INFO, "server"));
      for (CommandArguments probe : probes) {
        Object mine = mux.submit(probe, TimeUnit.SECONDS.toNanos(5)).get();
        Object theirs;
        try {
          theirs = jedis.executeCommand(probe);
        } catch (JedisDataException e) {
          theirs = e; // Jedis throws a top-level error; the mux returns it
        }
        if (probe.getCommand() == Command.INFO) {
          assertThat(mine).isInstanceOf(byte[].class); // uptime differs between the two reads
          continue;
        }
        assertThat(canonical(mine)).as(RespEncoder.name(probe)).isEqualTo(canonical(theirs));
      }
      // And Jedis's builders accept the raw objects.
      assertThat(BuilderFactory.BINARY.build(
              mux.submit(cmd(Command.GET, "big"), TimeUnit.SECONDS.toNanos(5)).get()))
          .isEqualTo(mib);
      assertThat(BuilderFactory.STRING_MAP.build(
              mux.submit(cmd(Command.HGETALL, "h"), TimeUnit.SECONDS.toNanos(1)).get()))
          .containsEntry("f1", "v1")
          .containsEntry("f2", "v2");
      assertThat(BuilderFactory.LONG.build(
              mux.submit(cmd(Command.SCARD, "set"), TimeUnit.SECONDS.toNanos(1)).get()))
          .isEqualTo(300L);
    }
  }

  /** A comparable form: byte[] by content, exceptions by class and message, lists element-wise. */
  static Object canonical(Object raw) {
    if (raw == null) {
      return "nil";
    }
    if (raw instanceof byte[] b) {
      return "bytes:" + b.length + ":" + Arrays.hashCode(b) + ":"
          + new String(b, 0, Math.min(b.length, 64), StandardCharsets.ISO_8859_1);
    }
    if (raw instanceof Long l) {
      return "long:" + l;
    }
    if (raw instanceof JedisDataException e) {
      return e.getClass().getSimpleName() + ":" + e.getMessage();
    }
    if (raw instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      out.add("list:" + list.getClass().getSimpleName());
      for (Object o : list) {
        out.add(canonical(o));
      }
      return out;
    }
    return raw.getClass().getName() + ":" + raw;
  }
}
