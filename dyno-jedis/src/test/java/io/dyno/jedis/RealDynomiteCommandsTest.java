package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Measurement;
import com.netflix.spectator.api.Meter;
import com.netflix.spectator.api.Registry;
import com.netflix.spectator.api.Tag;
import com.netflix.spectator.api.patterns.PolledMeter;
import io.dyno.companion.dynomite.DynomiteAssumptions;
import io.dyno.companion.dynomite.DynomiteCluster;
import io.dyno.companion.dynomite.DynomiteNode;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.internal.KnownCommands;
import io.dyno.core.metrics.DynoMetrics;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.GeoCoordinate;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.args.ExpiryOption;
import redis.clients.jedis.args.GeoUnit;
import redis.clients.jedis.args.ListDirection;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.GeoRadiusParam;
import redis.clients.jedis.params.GetExParams;
import redis.clients.jedis.params.RestoreParams;
import redis.clients.jedis.util.SafeEncoder;

/**
 * Against a real 3-rack Dynomite cluster (hash tag "{}"): the client lets through only what
 * Dynomite serves, command and argument shape. The cases are generated from the shared table
 * (dyno-core {@code commands.txt}): a new entry or shape there is covered here at once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RealDynomiteCommandsTest {
  private DynomiteCluster cluster;
  private Registry registry;
  private DynoJedisClient client;

  @BeforeAll
  void start() {
    DynomiteAssumptions.assumeBinary(); // skipped unless a binary is given (DYNO_DYNOMITE_BINARY)
    cluster = DynomiteCluster.builder().racks(3).nodesPerRack(1).hashtag("{}").start();
    registry = new DefaultRegistry();
    // One connection per node: every command to a node runs on the same pooled connection, so a
    // connection Dynomite closes shows as a new one opened.
    client = DynoJedisClient.builder()
        .config(DynoConfig.builder()
            .applicationName("shapes")
            .minConnsPerHost(1)
            .maxConnsPerHost(1)
            .build())
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .hashtag("{}")
        .registry(registry)
        .build();
    client.set("{t}probe", "p");
    // Every node's pool opens its minimum connection in the background: all three are open before
    // any test takes its counts (a count taken earlier saw the last one open mid-test).
    await("every node's connection open")
        .atMost(Duration.ofSeconds(10))
        .until(() -> health().connectionsCreated >= cluster.nodes().size());
  }

  @AfterAll
  void stop() {
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void twentyGetDelsFailAtOnceNamingGetdelAndNoNodeLeavesRotation() {
    Health before = health();
    for (int i = 0; i < 20; i++) {
      assertThatThrownBy(() -> client.getDel("{t}gd"))
          .isInstanceOf(UnsupportedCommandException.class)
          .hasMessageContaining("GETDEL is not served by Dynomite")
          .satisfies(
              t -> assertThat(((UnsupportedCommandException) t).command()).isEqualTo("GETDEL"));
    }
    Health after = health();
    assertThat(after.nodesUp).isEqualTo(3);
    assertThat(after.nodesDown).isZero();
    assertThat(after.wentDown).isZero();
    assertThat(after.connectionsCreated)
        .as("connections opened")
        .isEqualTo(before.connectionsCreated);
    assertThat(after.failovers + after.retries).isEqualTo(before.failovers + before.retries);
    for (DynomiteNode n : cluster.nodes()) {
      try (Jedis redis = new Jedis("127.0.0.1", n.redisPort())) {
        assertThat(redis.info("commandstats"))
            .as("Redis behind " + n)
            .doesNotContain("cmdstat_getdel");
      }
    }
    assertThat(client.set("{t}gd", "v")).isEqualTo("OK");
    assertThat(client.get("{t}gd")).isEqualTo("v");
  }

  /**
   * Every shape of every table entry, raw to a real node, each followed by PING: served exactly
   * where the table says so. This is what makes the table the server's truth (and catches a
   * Dynomite upgrade that changes it).
   */
  @Test
  void theTableIsWhatRealDynomiteServes() throws IOException {
    DynomiteNode node = cluster.node("rack1", 0);
    List<String> wrong = new ArrayList<>();
    for (KnownCommands.Entry e : KnownCommands.entries()) {
      for (List<String> shape : e.shapes()) {
        boolean expected = KnownCommands.check(raw(shape)) == null;
        String got = Raw.probe(node.clientPort(), shape);
        boolean served = got.startsWith("served");
        if (served != expected) {
          wrong.add(
              shape + ": table says " + (expected ? "served" : "closes") + ", Dynomite " + got);
        }
        if (!served) {
          awaitServing(
              node); // PING with a message also breaks the node's link to its Redis for a while
        }
      }
    }
    assertThat(wrong).isEmpty();
  }

  @Test
  void keysUpToDynomitesBufferAreServedLongerOnesRefusedByTheClient() throws IOException {
    DynomiteNode node = cluster.node("rack1", 0);
    String longest = "k".repeat(KnownCommands.MAX_KEY_BYTES);
    assertThat(Raw.probe(node.clientPort(), List.of("GET", longest))).startsWith("served");
    assertThat(Raw.probe(node.clientPort(), List.of("GET", longest + "k")))
        .doesNotStartWith("served");
    assertThat(Raw.probe(node.clientPort(), List.of("MGET", "a", longest + "k")))
        .doesNotStartWith("served");
    awaitServing(node);
    Health before = health();
    assertThat(client.set(longest, "v")).isEqualTo("OK");
    assertThatThrownBy(() -> client.get(longest + "k"))
        .isInstanceOf(UnsupportedCommandException.class)
        .hasMessageContaining("GET with key \"kkk")
        .hasMessageContaining("... (16320 bytes) is not served by Dynomite");
    assertThatThrownBy(() -> client.hset(longest + "k", Map.of("a", "1", "b", "2")))
        .isInstanceOf(UnsupportedCommandException.class)
        .hasMessageContaining("HSET with key \"kkk")
        .hasMessageContaining("(16320 bytes)");
    assertThat(health().connectionsCreated).isEqualTo(before.connectionsCreated);
  }

  /**
   * Every shape of every table entry through DynoJedisClient: a shape Dynomite serves gets its
   * reply (or a data error); HSET with several pairs is split and served; anything else is refused
   * by name before any connection is touched. After each: no connection was replaced, nothing was
   * retried or failed over, and the node answers a GET on the same pooled connection.
   */
  @Test
  void everyShapeThroughTheClientIsServedSplitOrRefusedNeverClosesAConnection() {
    List<String> wrong = new ArrayList<>();
    Map<String, String> refusedByPolicy = new LinkedHashMap<>();
    int served = 0;
    int refused = 0;
    for (KnownCommands.Entry e : KnownCommands.entries()) {
      for (List<String> shape : e.shapes()) {
        KnownCommands.Refusal expected = KnownCommands.check(raw(shape));
        // Split by the client into shapes Dynomite serves: HSET per field/value pair, GEOPOS per
        // member.
        boolean split = shape.get(0).equals("HSET") && shape.size() > 4
            || shape.get(0).equals("GEOPOS") && shape.size() > 3;
        Health before = health();
        String outcome;
        try {
          client.executeCommand(new CommandObject<>(jedisArgs(shape), BuilderFactory.RAW_OBJECT));
          outcome = "served";
        } catch (JedisDataException ex) {
          outcome = "served"; // Redis's own error reply: the connection is fine
        } catch (UnsupportedCommandException ex) {
          outcome = "refused";
          if (expected == null) {
            refusedByPolicy.put(String.join(" ", shape), ex.getMessage());
          } else if (!ex.command().equals(expected.command())
              || !ex.getMessage().contains(expected.shape())) {
            wrong.add(shape + ": refused as " + ex.command() + " / " + ex.getMessage()
                + ", expected " + expected.shape());
          }
        } catch (RuntimeException ex) {
          outcome = "failed: " + ex;
        }
        if (outcome.equals("served")) {
          served++;
          if (expected != null && !split) {
            wrong.add(shape + ": let through, but Dynomite does not serve " + expected.shape());
          }
        } else if (outcome.equals("refused")) {
          refused++;
        } else {
          wrong.add(shape + ": " + outcome);
        }
        try {
          client.get("{t}probe");
        } catch (RuntimeException ex) {
          wrong.add(shape + ": the next GET failed: " + ex);
        }
        Health after = health();
        if (after.connectionsCreated != before.connectionsCreated
            || after.failovers != before.failovers
            || after.retries != before.retries
            || after.nodesDown != 0) {
          wrong.add(shape + ": connections/failovers/retries/down " + before + " -> " + after);
        }
      }
    }
    assertThat(wrong).isEmpty();
    // Served by Dynomite but refused by the client for its own reasons, each named in the README.
    assertThat(refusedByPolicy.keySet())
        .allMatch(s -> s.startsWith("SCAN ") || s.equals("QUIT"), "only SCAN and QUIT");
    assertThat(served).isGreaterThan(150);
    assertThat(refused).isGreaterThan(60);
  }

  /** What the issue lists, through Jedis's own methods. */
  @Test
  void jedisMethodsWithShapesDynomiteCannotTakeAreSplitOrRefusedByName() {
    Health before = health();
    client.del("{t}hm");
    assertThat(client.hset("{t}hm", Map.of("a", "1", "b", "2", "c", "3"))).isEqualTo(3);
    assertThat(client.hset("{t}hm", Map.of("a", "9", "d", "4"))).isEqualTo(1);
    assertThat(client.hgetAll("{t}hm"))
        .containsExactlyInAnyOrderEntriesOf(Map.of("a", "9", "b", "2", "c", "3", "d", "4"));
    try (DynoPipeline p = client.pipelined()) {
      Response<Long> added = p.hset("{t}hp", Map.of("x", "1", "y", "2"));
      Response<String> x = p.hget("{t}hp", "x");
      p.sync();
      assertThat(added.get()).isEqualTo(2);
      assertThat(x.get()).isEqualTo("1");
    }
    // The split HSETs are replicated like any write: every rack's Redis ends up with all the
    // fields.
    for (DynomiteNode n : cluster.nodes()) {
      try (Jedis redis = new Jedis("127.0.0.1", n.redisPort())) {
        await("the 4 fields in the Redis of " + n)
            .atMost(Duration.ofSeconds(5))
            .pollInterval(Duration.ofMillis(10))
            .untilAsserted(
                () -> assertThat(redis.hgetAll("{t}hm")).as("Redis of " + n).hasSize(4));
      }
    }
    // GEOPOS with several members: one GEOPOS per member (Dynomite would cut the nested reply
    // short).
    client.geoadd("{t}geo", 13.361389, 38.115556, "palermo");
    client.geoadd("{t}geo", 15.087269, 37.502669, "catania");
    List<GeoCoordinate> pos = client.geopos("{t}geo", "palermo", "nowhere", "catania");
    assertThat(pos).hasSize(3);
    assertThat(pos.get(0).getLongitude()).isCloseTo(13.361389, Offset.offset(1e-5));
    assertThat(pos.get(1)).isNull();
    assertThat(pos.get(2).getLatitude()).isCloseTo(37.502669, Offset.offset(1e-5));
    Map<String, ThrowableAssert.ThrowingCallable> refused = new LinkedHashMap<>();
    refused.put(
        "GEORADIUS with WITHDIST",
        () -> client.georadius(
            "{t}geo", 15, 37, 200, GeoUnit.KM, GeoRadiusParam.geoRadiusParam().withDist()));
    refused.put("LPOP with 1 argument after the key", () -> client.lpop("{t}l", 2));
    refused.put("RPOP with 1 argument after the key", () -> client.rpop("{t}l", 2));
    refused.put("SRANDMEMBER with 1 argument after the key", () -> client.srandmember("{t}s", 2));
    refused.put("EXPIRE with NX", () -> client.expire("{t}k", 10, ExpiryOption.NX));
    refused.put(
        "PEXPIREAT with GT", () -> client.pexpireAt("{t}k", 4_000_000_000_000L, ExpiryOption.GT));
    refused.put("PFCOUNT with 1 argument after the key", () -> client.pfcount("{t}h1", "{t}h2"));
    refused.put("ZRANK with WITHSCORE", () -> client.zrankWithScore("{t}z", "a"));
    refused.put(
        "RESTORE with REPLACE",
        () -> client.restore(
            "{t}r", 0, new byte[] {1}, RestoreParams.restoreParams().replace()));
    refused.put("LPUSHX with 2 arguments after the key", () -> client.lpushx("{t}l", "a", "b"));
    refused.put("PING with an argument", () -> client.sendCommand(Protocol.Command.PING, "hello"));
    refused.put("EVAL with no key", () -> client.eval("return 1"));
    refused.put("GETEX", () -> client.getEx("{t}k", GetExParams.getExParams().ex(5)));
    refused.put(
        "LMOVE", () -> client.lmove("{t}a", "{t}b", ListDirection.LEFT, ListDirection.RIGHT));
    refused.put("UNLINK", () -> client.unlink("{t}k"));
    for (Map.Entry<String, ThrowableAssert.ThrowingCallable> r : refused.entrySet()) {
      assertThatThrownBy(r.getValue())
          .as(r.getKey())
          .isInstanceOf(UnsupportedCommandException.class)
          .hasMessageContaining(r.getKey())
          .hasMessageContaining("is not served by Dynomite");
    }
    Health after = health();
    assertThat(after.connectionsCreated).isEqualTo(before.connectionsCreated);
    assertThat(after.nodesDown).isZero();
  }

  // ---------------------------------------------------------------------------------------------

  /** The client's own view of its nodes and connections, from its meters. */
  private record Health(
      double nodesUp,
      double nodesDown,
      long wentDown,
      long connectionsCreated,
      long failovers,
      long retries) {}

  private Health health() {
    PolledMeter.update(registry);
    return new Health(
        value(DynoMetrics.NODES_UP, null),
        value(DynoMetrics.NODES_DOWN, null),
        (long) value(DynoMetrics.NODE_HEALTH, "down"),
        (long) value(DynoMetrics.CONNECTIONS_CREATED, null),
        (long) value(DynoMetrics.OP_FAILOVERS, null),
        (long) value(DynoMetrics.OP_RETRIES, null));
  }

  /** Sum over every meter of that name (and, when given, tag state=...). */
  private double value(String name, String state) {
    double sum = 0;
    for (Meter m : registry) {
      if (!m.id().name().equals(name)) {
        continue;
      }
      for (Measurement ms : m.measure()) {
        boolean stateMatches = state == null || state.equals(tag(ms, "state"));
        if (stateMatches && !Double.isNaN(ms.value())) {
          sum += ms.value();
        }
      }
    }
    return sum;
  }

  private static String tag(Measurement ms, String key) {
    for (Tag t : ms.id().tags()) {
      if (t.key().equals(key)) {
        return t.value();
      }
    }
    return null;
  }

  private static List<byte[]> raw(List<String> shape) {
    List<byte[]> out = new ArrayList<>(shape.size());
    shape.forEach(a -> out.add(a.getBytes(StandardCharsets.UTF_8)));
    return out;
  }

  /** The shape as Jedis marks it: arguments holding "{t}" are keys. */
  private static CommandArguments jedisArgs(List<String> shape) {
    byte[] name = SafeEncoder.encode(shape.get(0));
    CommandArguments args = new CommandArguments(() -> name);
    for (String a : shape.subList(1, shape.size())) {
      if (a.contains("{t}")) {
        args.key(a);
      } else {
        args.add(a);
      }
    }
    return args;
  }

  /** Polls (bounded) until the node serves a GET again through its own Redis link. */
  private static void awaitServing(DynomiteNode node) {
    // "p" is the value set in start(): once GET serves it, the node's Redis link is in step
    await(node + " serves GET again")
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(() -> assertThat(Raw.probe(node.clientPort(), List.of("GET", "{t}probe")))
            .as(node + " does not serve GET again within 15 s")
            .isEqualTo("served $1 p "));
  }

  /** One request on a fresh socket, then PING: served when exactly one whole reply and then +PONG arrive. */
  private static final class Raw {
    static String probe(int port, List<String> args) throws IOException {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
        s.setTcpNoDelay(true);
        s.setSoTimeout(2000);
        s.getOutputStream().write(resp(args));
        s.getOutputStream().write(resp(List.of("PING")));
        s.getOutputStream().flush();
        BufferedInputStream in = new BufferedInputStream(s.getInputStream());
        StringBuilder got = new StringBuilder();
        try {
          readReply(in, got);
          String reply = got.toString();
          if (args.get(0).equals("QUIT")) {
            return reply.equals("+OK\r\n") ? "served +OK (QUIT)" : "QUIT answered " + reply;
          }
          if (reply.startsWith("-ERR Storage") || reply.startsWith("-ERR Peer")) {
            return "broken: " + reply.strip();
          }
          StringBuilder pong = new StringBuilder();
          readReply(in, pong);
          if (!pong.toString().equals("+PONG\r\n")) {
            return "replies out of step: " + reply.replace("\r\n", " ") + " then "
                + pong.toString().strip();
          }
          return "served "
              + (reply.length() > 40 ? reply.substring(0, 40) : reply).replace("\r\n", " ");
        } catch (SocketTimeoutException e) {
          return "no whole reply and PONG within 2 s"
              + (got.length() > 0 ? " after " + got.toString().replace("\r\n", " ") : "");
        } catch (EOFException e) {
          return "closed the connection"
              + (got.length() > 0 ? " after " + got.toString().strip() : "");
        } catch (IOException e) {
          return "closed the connection (" + e.getMessage() + ")";
        }
      }
    }

    /** Reads one whole RESP2 reply (nested arrays included) into {@code out}. */
    private static void readReply(InputStream in, StringBuilder out) throws IOException {
      String line = readLine(in);
      out.append(line).append("\r\n");
      char type = line.charAt(0);
      if (type == '$') {
        int len = Integer.parseInt(line.substring(1));
        if (len >= 0) {
          byte[] b = in.readNBytes(len + 2);
          if (b.length < len + 2) {
            throw new EOFException();
          }
          out.append(new String(b, StandardCharsets.UTF_8));
        }
      } else if (type == '*') {
        int n = Integer.parseInt(line.substring(1));
        for (int i = 0; i < n; i++) {
          readReply(in, out);
        }
      }
    }

    private static String readLine(InputStream in) throws IOException {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      int c;
      while ((c = in.read()) != '\n') {
        if (c < 0) {
          throw new EOFException();
        }
        b.write(c);
      }
      String line = b.toString(StandardCharsets.UTF_8);
      return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    }

    private static byte[] resp(List<String> args) {
      StringBuilder sb = new StringBuilder("*").append(args.size()).append("\r\n");
      for (String a : args) {
        sb.append('$')
            .append(a.getBytes(StandardCharsets.UTF_8).length)
            .append("\r\n")
            .append(a)
            .append("\r\n");
      }
      return sb.toString().getBytes(StandardCharsets.UTF_8);
    }
  }
}
