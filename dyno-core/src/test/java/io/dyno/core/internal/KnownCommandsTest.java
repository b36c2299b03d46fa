package io.dyno.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.core.internal.KnownCommands.Entry;
import io.dyno.core.internal.KnownCommands.Kind;
import io.dyno.core.internal.KnownCommands.Refusal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The command table: its kinds as the client goes by them, and its shapes read as Dynomite's parser
 * reads requests (the recorded server checks it: CommandTableTranscriptTest in dyno-companion).
 */
class KnownCommandsTest {

  private static Refusal check(String... args) {
    List<byte[]> raw = new ArrayList<>();
    for (String a : args) {
      raw.add(a.getBytes(StandardCharsets.UTF_8));
    }
    return KnownCommands.check(raw);
  }

  @Test
  void theIssuesShapesAreRefusedNamingCommandAndShape() {
    assertThat(check("HSET", "h", "a", "1")).isNull();
    assertThat(check("HSET", "h", "a", "1", "b", "2").shape())
        .isEqualTo("HSET with 4 arguments after the key (Dynomite takes exactly HSET key arg arg)");
    assertThat(check("SRANDMEMBER", "s")).isNull();
    assertThat(check("SRANDMEMBER", "s", "2").shape())
        .startsWith("SRANDMEMBER with 1 argument after the key");
    assertThat(check("LPOP", "l", "2").command()).isEqualTo("LPOP");
    assertThat(check("EXPIRE", "k", "10")).isNull();
    Refusal nx = check("EXPIRE", "k", "10", "NX");
    assertThat(nx.command()).isEqualTo("EXPIRE");
    assertThat(nx.message())
        .startsWith("EXPIRE with NX is not served by Dynomite (it closes the connection on it); ");
    for (String c : new String[] {
      "GETDEL",
      "GETEX",
      "LMOVE",
      "SMISMEMBER",
      "ZMSCORE",
      "HRANDFIELD",
      "ZRANDMEMBER",
      "LPOS",
      "SINTERCARD",
      "EXPIRETIME",
      "PEXPIRETIME",
      "GEOSEARCH",
      "HSTRLEN",
      "BITPOS",
      "UNLINK",
      "TOUCH"
    }) {
      Refusal r = check(c, "k", "a", "b");
      assertThat(r).as(c).isNotNull();
      assertThat(r.command()).isEqualTo(c);
      assertThat(r.message()).startsWith(c + " is not served by Dynomite");
    }
  }

  @Test
  void keysSubcommandsAndScriptsFollowTheParser() {
    assertThat(check("GET", "").shape()).isEqualTo("GET with an empty key");
    assertThat(check("MGET", "a", "").shape()).isEqualTo("MGET with an empty key");
    assertThat(check("MSET", "a", "1", "b").shape())
        .isEqualTo("MSET with an odd number of keys and values");
    assertThat(check("EVAL", "return 1", "0").shape()).isEqualTo("EVAL with no key");
    assertThat(check("EVAL", "return 1", "2", "a").shape())
        .isEqualTo("EVAL with fewer keys than numkeys");
    assertThat(check("EVAL", "return 1", "1", "a", "x", "y")).isNull();
    assertThat(check("SCRIPT", "LOAD", "return 1")).isNull();
    assertThat(check("SCRIPT", "FLUSH", "ASYNC").command()).isEqualTo("SCRIPT FLUSH");
    assertThat(check("SCRIPT", "FLUSH", "ASYNC").shape()).isEqualTo("SCRIPT FLUSH with ASYNC");
    assertThat(check("CONFIG", "SET", "a", "b").command()).isEqualTo("CONFIG SET");
    assertThat(check("config", "get", "maxmemory")).isNull();
    assertThat(check("PING")).isNull();
    assertThat(check("PING", "hello").shape()).isEqualTo("PING with an argument");
    assertThat(check("INFO", "a", "b").shape())
        .startsWith("INFO with 2 arguments (Dynomite takes exactly INFO [arg])");
    assertThat(check("NOSUCH", "k").command()).isEqualTo("NOSUCH");
    assertThat(check("GET").waits()).isTrue();
    assertThat(check("MSET").waits()).isTrue();
    assertThat(check("EVAL").waits()).isTrue();
    assertThat(check("SCRIPT", "DEBUG", "NO").waits()).isTrue();
    assertThat(check("SCRIPT").waits()).isTrue();
    assertThat(check("CONFIG").waits()).isTrue();
    assertThat(check("CONFIG", "GET").waits()).isFalse();
    assertThat(check("MSET", "a").waits()).isFalse();
    assertThat(check("EVAL", "return 1").waits()).isFalse();
    assertThat(check("NOSUCH").waits()).isFalse();
    String longest = "k".repeat(KnownCommands.MAX_KEY_BYTES);
    assertThat(check("GET", longest)).isNull();
    String shown = "\"" + "k".repeat(KeyText.MAX_SHOWN_BYTES) + "\"... (16320 bytes)";
    assertThat(check("GET", longest + "k").message())
        .isEqualTo("GET with key " + shown + " is not served by"
            + " Dynomite (it closes the connection on it); Dynomite takes keys of up to 16319 bytes (with its default"
            + " mbuf_size of 16384)");
    assertThat(check("MGET", "a", longest + "k").shape()).isEqualTo("MGET with key " + shown);
    assertThat(check("EVAL", "return 1", "1", longest + "k").shape())
        .isEqualTo("EVAL with key " + shown);
    assertThat(check("HSET", "h", longest + "k", "v"))
        .as("a long field is no key")
        .isNull();
  }

  @Test
  void eachCommandHasOneKindAndACommandNotListedIsANonIdempotentWrite() {
    assertThat(KnownCommands.kind("GET")).isEqualTo(Kind.READ);
    assertThat(KnownCommands.kind("SET")).isEqualTo(Kind.WHOLE_VALUE_WRITE);
    assertThat(KnownCommands.kind("INCR")).isEqualTo(Kind.WRITE);
    assertThat(KnownCommands.kind("FLUSHALL")).isEqualTo(Kind.ADMIN);
    assertThat(KnownCommands.kind("XADD")).as("not listed").isEqualTo(Kind.WRITE);
    assertThat(KnownCommands.entry("XADD")).isNull();
    // the reads the two old lists disagreed on
    for (String read : List.of("SORT", "GEORADIUS", "XREAD", "EVAL_RO", "JSON.GET", "SCAN")) {
      assertThat(KnownCommands.kind(read)).as(read).isEqualTo(Kind.READ);
      assertThat(KnownCommands.entry(read).idempotent()).as(read).isTrue();
    }
    assertThat(KnownCommands.entry("SORT").writeWords()).containsExactly("STORE");
    assertThat(KnownCommands.entry("GEORADIUS").writeWords())
        .containsExactlyInAnyOrder("STORE", "STOREDIST");
    assertThat(Kind.READ.hedgeable()).isTrue();
    assertThat(Kind.READ.mirrored()).isFalse();
    assertThat(Kind.WRITE.hedgeable()).isFalse();
    assertThat(Kind.WHOLE_VALUE_WRITE.mirrored()).isTrue();
    assertThat(Kind.ADMIN.mirrored() || Kind.ADMIN.hedgeable()).isFalse();
  }

  @Test
  void aRefusedCommandCarriesItsReason() {
    Entry multi = KnownCommands.entry("MULTI");
    assertThat(multi.refused()).isTrue();
    assertThat(multi.ownConnection()).isTrue();
    assertThat(multi.advice()).startsWith("transactions are not supported by Dynomite");
    assertThat(KnownCommands.entry("SCAN").refused()).isTrue();
    assertThat(KnownCommands.entry("SCAN").served())
        .as("by Dynomite, one node's keys")
        .isTrue();
    assertThat(KnownCommands.entry("GET").refused()).isFalse();
  }

  @Test
  void everyServedEntryHasShapesOfItsOwnCommandAndServesOne() {
    assertThat(KnownCommands.entries()).hasSizeGreaterThan(150);
    for (Entry e : KnownCommands.entries()) {
      if (e.served()) {
        assertThat(e.shapes()).as(e.name()).isNotEmpty();
      }
      boolean anyServed = false;
      for (List<String> shape : e.shapes()) {
        assertThat(String.join(" ", shape).toUpperCase()).as(e.name()).startsWith(e.name());
        anyServed |= check(shape.toArray(new String[0])) == null;
      }
      assertThat(anyServed).as(e.name() + " served in some shape").isEqualTo(e.served());
    }
  }
}
