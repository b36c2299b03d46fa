package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.dynomite.DynomiteAssumptions;
import io.dyno.companion.dynomite.DynomiteCluster;
import io.dyno.companion.dynomite.DynomiteNode;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.RetryPolicy;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * MGET and MSET whose values pass Dynomite's 16 KiB buffer, against a real 3-rack x 2-node
 * cluster: Dynomite refuses or corrupts them when sent whole, so the client sends one GET/SET per
 * key, pipelined per owner, and answers as MGET/MSET would.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RealDynomiteMultiKeyTest {
  private DynomiteCluster cluster;
  private DynoJedisClient client;

  @BeforeAll
  void start() {
    DynomiteAssumptions.assumeBinary(); // skipped unless a binary is given (DYNO_DYNOMITE_BINARY)
    cluster = DynomiteCluster.builder().racks(3).nodesPerRack(2).start();
    client = DynoJedisClient.builder()
        .config(DynoConfig.builder()
            .applicationName("multikey")
            .retryPolicy(RetryPolicy.runOnce())
            .maxFailoverCount(0)
            .build())
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .build();
  }

  @AfterAll
  void stop() {
    if (client != null) client.close();
    if (cluster != null) cluster.close();
  }

  @Test
  void dynomiteItselfRefusesAnMsetOfTwentyOneKibValues() throws Exception {
    // The reason for the client-side split: sent as one command, Dynomite answers an error.
    DynomiteNode node = cluster.node("rack1", 0);
    List<String> args = new ArrayList<>(List.of("MSET"));
    for (int i = 0; i < 20; i++) {
      args.add("raw:" + i);
      args.add("x".repeat(1024));
    }
    assertThat(rawCall(node.clientPort(), args))
        .isEqualTo("-ERR Dynomite: MSET/MGET/SCAN payload too large");
  }

  @Test
  void anMsetOfThreeHundredOneKibValuesIsServedAndReadBackInOrder() {
    // No failover and no retry allowed: every piece must be served by its owner the first time.
    String[] kv = new String[600];
    String[] keys = new String[300];
    for (int i = 0; i < 300; i++) {
      keys[i] = "big:" + i;
      kv[2 * i] = keys[i];
      kv[2 * i + 1] = i + ":" + "v".repeat(1024);
    }
    assertThat(client.mset(kv)).isEqualTo("OK");
    List<String> read = client.mget(keys);
    assertThat(read).hasSize(300);
    IntStream.range(0, 300)
        .forEach(i -> assertThat(read.get(i)).as("value of " + keys[i]).isEqualTo(kv[2 * i + 1]));
    assertThat(client.exists(keys)).isEqualTo(300L);
    assertThat(client.del(keys)).isEqualTo(300L);
    assertThat(client.mget(keys)).containsOnlyNulls();
  }

  @Test
  void dynomiteItselfCorruptsAnMgetReplyOfTwentyOneKibValues() throws Exception {
    DynomiteNode node = cluster.node("rack1", 0);
    List<String> mget = new ArrayList<>(List.of("MGET"));
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), node.clientPort())) {
      s.setSoTimeout(3000);
      OutputStream out = s.getOutputStream();
      // Twenty keys this node owns itself, so Dynomite answers the MGET from its own Redis.
      for (int i = 0; mget.size() <= 20; i++) {
        String key = "own:" + i;
        if (client.topology().replicas(key).get(0).port() != node.clientPort()) continue;
        out.write(resp(List.of("SET", key, "x".repeat(1024))));
        mget.add(key);
      }
      out.write(resp(mget));
      out.flush();
      String correct =
          "+OK\r\n".repeat(20) + "*20\r\n" + ("$1024\r\n" + "x".repeat(1024) + "\r\n").repeat(20);
      // One byte more than a correct reply: extra bytes after it are damage too.
      String reply = readAvailable(s.getInputStream(), correct.length() + 1);
      // What comes back is out of step with the request (values cut, repeated or replaced), never
      // the 20 values; the exact damage varies, so only "not the correct reply" is asserted.
      assertThat(reply)
          .as("the raw MGET reply of 20 x 1 KiB values from real Dynomite")
          .isNotEqualTo(correct);
    }
  }

  @Test
  void anMgetOfKeysOfAnotherTypeAnswersNilForThemAsRedisDoes() {
    client.set("mixed:s", "text");
    client.lpush("mixed:l", "x");
    assertThat(client.mget("mixed:s", "mixed:l", "mixed:none")).containsExactly("text", null, null);
  }

  @Test
  void oneKeyOfAnySizeStaysOneCommand() {
    String big = "w".repeat(64 * 1024);
    assertThat(client.mset("single", big)).isEqualTo("OK");
    assertThat(client.mget("single")).containsExactly(big);
  }

  private static byte[] resp(List<String> args) {
    StringBuilder b = new StringBuilder().append('*').append(args.size()).append("\r\n");
    for (String a : args)
      b.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
    return b.toString().getBytes(StandardCharsets.US_ASCII);
  }

  /** Reads until {@code expected} bytes came, the server stops sending for the socket timeout, or it closes. */
  private static String readAvailable(InputStream in, int expected) throws Exception {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    try {
      for (int n; got.size() < expected && (n = in.read(buf)) > 0; ) got.write(buf, 0, n);
    } catch (SocketTimeoutException quiet) {
      // the server sent all it was going to
    }
    return got.toString(StandardCharsets.ISO_8859_1);
  }

  private static String rawCall(int port, List<String> args) throws Exception {
    StringBuilder b = new StringBuilder().append('*').append(args.size()).append("\r\n");
    for (String a : args)
      b.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(3000);
      OutputStream out = s.getOutputStream();
      out.write(b.toString().getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      StringBuilder line = new StringBuilder();
      for (int c = in.read(); c >= 0 && c != '\r'; c = in.read()) line.append((char) c);
      return line.toString();
    }
  }
}
