package io.dyno.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.core.exec.CallOptions;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.DynoJedisClientBuilder;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class HashTagWarningTest {
  private static final String WARNING = "contains {...} but this client has no hash tag";

  /** A body that runs client calls. */
  interface Calls {
    void run() throws Exception;
  }

  @Test
  void aTaggedLookingKeyOnAClientWithoutHashTagWarnsOnceNamingTheKeyAndTheSetting()
      throws Exception {
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(1)
            .nodesPerRack(2)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = client(cluster, null)) {
      String log = capturingStderr(() -> {
        client.set("plain:key", "v");
        client.set("{user1}:cart", "a");
        client.set("{user1}:profile", "b");
        client.async().get("{user2}:cart").get();
        client.withOptions(CallOptions.defaults()).get("{user3}:x");
      });
      assertThat(count(log, WARNING)).as("warnings in:%n%s", log).isEqualTo(1);
      assertThat(log)
          .contains("DynoJedisClient 'hashtags': key \"{user1}:cart\" contains")
          .contains("hash_tag: \"{}\"")
          .contains("DynoJedisClient.builder().hashtag(\"{}\")");
    }
  }

  @Test
  void aBinaryKeyIsShownEscaped() throws Exception {
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(1)
            .nodesPerRack(1)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = client(cluster, null)) {
      String log = capturingStderr(
          () -> client.set(new byte[] {0, '{', 't', '}', (byte) 0xff}, new byte[] {1}));
      assertThat(log).contains("key \"\\x00{t}\\xff\" contains");
    }
  }

  @Test
  void aClientWithTheClustersHashTagDoesNotWarn() throws Exception {
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(1)
            .nodesPerRack(2)
            .hashtag("{}")
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = client(cluster, "{}")) {
      String log = capturingStderr(() -> {
        client.set("{user1}:cart", "a");
        client.set("{user1}:profile", "b");
        assertThat(client.mget("{user1}:cart", "{user1}:profile")).containsExactly("a", "b");
      });
      assertThat(log).doesNotContain(WARNING);
    }
  }

  @Test
  void onlyABraceFollowedByAClosingBraceLaterLooksTagged() {
    assertThat(HashTagWarning.looksTagged("{user1}:cart")).isTrue();
    assertThat(HashTagWarning.looksTagged("cart:{u}")).isTrue();
    assertThat(HashTagWarning.looksTagged(new byte[] {'x', '{', 0, '}'})).isTrue();
    assertThat(HashTagWarning.looksTagged("{}")).isFalse();
    assertThat(HashTagWarning.looksTagged("}{x")).isFalse();
    assertThat(HashTagWarning.looksTagged("json:{\"a\"")).isFalse();
    assertThat(HashTagWarning.looksTagged("plain")).isFalse();
  }

  private static DynoJedisClient client(CompanionCluster cluster, String hashtag) {
    DynoJedisClientBuilder b = DynoJedisClient.builder()
        .applicationName("hashtags")
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1");
    return (hashtag == null ? b : b.hashtag(hashtag)).build();
  }

  private static int count(String text, String part) {
    Matcher m = Pattern.compile(Pattern.quote(part)).matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  /** Runs {@code calls} with System.err (where slf4j-simple writes) also copied into the returned text. */
  private static String capturingStderr(Calls calls) throws Exception {
    PrintStream original = System.err;
    ByteArrayOutputStream copy = new ByteArrayOutputStream();
    PrintStream tee = new PrintStream(
        new OutputStream() {
          @Override
          public void write(int b) {
            copy.write(b);
            original.write(b);
          }

          @Override
          public void write(byte[] b, int off, int len) {
            copy.write(b, off, len);
            original.write(b, off, len);
          }
        },
        true,
        StandardCharsets.UTF_8);
    System.setErr(tee);
    try {
      calls.run();
    } finally {
      System.setErr(original);
    }
    return copy.toString(StandardCharsets.UTF_8);
  }
}
