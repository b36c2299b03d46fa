package io.dyno.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.dyno.jedis.TestRefusals;
import io.dyno.jedis.UnsupportedCommandException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.args.ExpiryOption;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.params.ZAddParams;

/**
 * Which commands may be re-run after they were sent, per shape, in both modes: the rule written on
 * {@code CommandFacts}. A shape Dynomite does not serve is refused in Dynomite mode (by
 * the shared table) and only its datastore-mode answer is checked.
 */
class CommandIdempotencyTest {
  private static final CommandObjects JEDIS = new CommandObjects(RedisProtocol.RESP2);

  /** row: the command as words (the first after the name is the key, unless keyless), idempotent?, served by Dynomite? */
  static Stream<Arguments> rows() {
    return Stream.of(
        // reads
        row("GET k", true, true),
        row("HGETALL k", true, true),
        row("ZRANGE k 0 -1", true, true),
        row("PFCOUNT k", true, true),
        row("MGET k", true, true),
        row("EXISTS k", true, true),
        // writes that set a state
        row("SET k v", true, true),
        row("SET k v XX", true, true),
        row("SET k v EX 100", true, true), // relative expiry: a re-run restarts the TTL, same data
        row("SET k v KEEPTTL", true, true),
        row("SETEX k 100 v", true, true),
        row("EXPIRE k 100", true, true),
        row("PEXPIRE k 100000", true, true),
        row("EXPIREAT k 4000000000", true, true),
        row("GETEX k EX 100", true, false),
        row("DEL k", true, true),
        row("HSET k f v", true, true),
        row("SADD k m", true, true),
        row("ZADD k 1 m", true, true),
        row("ZADD k NX 1 m", true, true),
        row("ZADD k XX CH 1 m", true, true),
        row("ZADD k 1 INCR", true, true), // a member named INCR is data, not the option
        row("LTRIM k 0 100", true, true),
        row("LTRIM k 0 -1", true, true),
        row("LTRIM k -5 -1", true, true),
        row("LREM k 0 a", true, true),
        row("ZUNIONSTORE k 2 a b", true, true),
        row("ZREMRANGEBYSCORE k 0 1", true, true),
        row("PFADD k a", true, true),
        // not idempotent: adds, removes by position or count, returns what it replaced, answers
        // "not done"
        row("ZADD k INCR 1 m", false, true),
        row("ZADD k XX INCR 1 m", false, true),
        row("ZADD k NX CH INCR 1 m", false, true),
        row("INCR k", false, true),
        row("INCRBYFLOAT k 1.5", false, true),
        row("HINCRBYFLOAT k f 1.5", false, true),
        row("APPEND k v", false, true),
        row("SETNX k v", false, true),
        row("SET k v NX", false, true),
        row("SET k v NX EX 100", false, true),
        row("SET k v GET", false, true),
        row("SET k v XX GET", false, true),
        row("GETSET k v", false, true),
        row("GETDEL k", false, false),
        row("EXPIRE k 100 NX", false, false),
        row("LPOP k", false, true),
        row("LPOP k 2", false, false),
        row("RPOP k 2", false, false),
        row("SPOP k", false, true),
        row("SPOP k 2", false, true),
        row("LPUSH k v", false, true),
        row("LTRIM k 1 -1", false, true),
        row("LTRIM k 0 -2", false, true),
        row("LREM k 1 a", false, true),
        row("ZREMRANGEBYRANK k 0 0", false, true),
        row("ZUNIONSTORE k 2 k b", false, true), // the destination's scores are summed in again
        row("ZINTERSTORE k 2 a k", false, true),
        row("ZINCRBY k 1 m", false, true),
        row("XADD k * f v", false, false),
        row("XADD k 1-1 f v", false, false),
        row("BITFIELD k INCRBY u8 0 1", false, false),
        row("RESTORE k 0 x", false, true),
        row("EVAL return 1 1 k", false, true),
        // commands this client does not know: never re-run once sent, in either mode
        row("HGETDEL k FIELDS 1 f", false, false),
        row("TS.ADD k * 1", false, false),
        row("MADEUPCOMMAND k", false, false));
  }

  private static Arguments row(String words, boolean idempotent, boolean servedByDynomite) {
    String[] w = words.split(" ");
    byte[] name = w[0].getBytes(StandardCharsets.UTF_8);
    CommandArguments args = new CommandArguments(() -> name);
    int keyAt = w[0].equals("EVAL") ? 3 : 1;
    for (int i = 1; i < w.length; i++) {
      if (i == keyAt) {
        args.key(w[i]);
      } else {
        args.add(w[i]);
      }
    }
    return Arguments.of(words, args, idempotent, servedByDynomite);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void datastoreMode(
      String words, CommandArguments args, boolean idempotent, boolean servedByDynomite) {
    assertThat(new CommandTable(CommandTable.Mode.DATASTORE, TestRefusals.api())
            .classify(args)
            .idempotent())
        .as(words)
        .isEqualTo(idempotent);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void dynomiteMode(
      String words, CommandArguments args, boolean idempotent, boolean servedByDynomite) {
    CommandTable table = new CommandTable(CommandTable.Mode.DYNOMITE, TestRefusals.api());
    if (servedByDynomite) {
      assertThat(table.classify(args).idempotent()).as(words).isEqualTo(idempotent);
    } else {
      assertThat(catchThrowable(() -> table.classify(args)))
          .as(words)
          .isInstanceOf(UnsupportedCommandException.class);
    }
  }

  /** The same rule holds for the shapes Jedis itself builds (option words where Jedis puts them). */
  @ParameterizedTest(name = "{0}")
  @MethodSource("jedisShapes")
  void shapesJedisBuilds(String what, CommandArguments args, boolean idempotent) {
    for (CommandTable.Mode mode : CommandTable.Mode.values()) {
      Throwable refused =
          catchThrowable(() -> new CommandTable(mode, TestRefusals.api()).classify(args));
      if (refused == null) {
        assertThat(new CommandTable(mode, TestRefusals.api()).classify(args).idempotent())
            .as(what + " in " + mode)
            .isEqualTo(idempotent);
      } else {
        assertThat(mode)
            .as(what + " refused: " + refused.getMessage())
            .isEqualTo(CommandTable.Mode.DYNOMITE);
      }
    }
  }

  static Stream<Arguments> jedisShapes() {
    return Stream.of(
        shape(
            "zaddIncr",
            JEDIS.zaddIncr("k", 1, "m", ZAddParams.zAddParams().xx()).getArguments(),
            false),
        shape("zadd", JEDIS.zadd("k", 1, "m", ZAddParams.zAddParams().ch()).getArguments(), true),
        shape(
            "set nx",
            JEDIS.set("k", "v", SetParams.setParams().nx().ex(100)).getArguments(),
            false),
        shape("setGet", JEDIS.setGet("k", "v").getArguments(), false),
        shape(
            "set xx keepttl",
            JEDIS.set("k", "v", SetParams.setParams().xx().keepTtl()).getArguments(),
            true),
        shape("expire nx", JEDIS.expire("k", 100, ExpiryOption.NX).getArguments(), false),
        shape("expire gt", JEDIS.expire("k", 100, ExpiryOption.GT).getArguments(), true),
        shape("lrem 0", JEDIS.lrem("k", 0, "a").getArguments(), true),
        shape("ltrim 1 -1", JEDIS.ltrim("k", 1, -1).getArguments(), false),
        shape("incrByFloat", JEDIS.incrByFloat("k", 1.5).getArguments(), false),
        shape("hincrByFloat", JEDIS.hincrByFloat("k", "f", 1.5).getArguments(), false),
        shape("spop 2", JEDIS.spop("k", 2).getArguments(), false),
        shape(
            "xadd",
            JEDIS.xadd("k", StreamEntryID.NEW_ENTRY, Map.of("f", "v")).getArguments(),
            false));
  }

  private static Arguments shape(String what, CommandArguments args, boolean idempotent) {
    StringBuilder words = new StringBuilder();
    for (Rawable r : args) {
      words.append(' ').append(new String(r.getRaw(), StandardCharsets.UTF_8));
    }
    return Arguments.of(what + ":" + words, args, idempotent);
  }
}
