package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionClusterExtension;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Issue #25: a Jedis user's {@code catch (JedisException e)} catches every refusal of Dyno's, from
 * plain calls, pipelines and the asynchronous API, with its accessors and messages unchanged.
 * The catch blocks below are the point: a refusal outside the hierarchy would escape them.
 */
@ExtendWith(CompanionClusterExtension.class)
class RefusalsAreJedisExceptionsTest {
  private final CompanionCluster cluster;
  private final DynoJedisClient client;

  RefusalsAreJedisExceptionsTest(CompanionCluster cluster) {
    this.cluster = cluster;
    client = DynoJedisClient.builder()
        .applicationName("refusals")
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .build();
  }

  @AfterEach
  void stop() {
    client.close();
  }

  @Test
  void catchJedisExceptionCatchesAnUnsupportedCommand() {
    RuntimeException caught = null; // set only by the catch (JedisException) below
    try {
      client.getDel("rf:k");
      fail("GETDEL was not refused");
    } catch (JedisException e) {
      caught = e;
    }
    assertThat(caught)
        .isInstanceOf(UnsupportedCommandException.class)
        .hasMessageStartingWith("GETDEL is not supported by DynoJedisClient: ")
        // Not an error reply of a server: callers telling the two apart keep doing so.
        .isNotInstanceOf(JedisDataException.class);
    assertThat(((UnsupportedCommandException) caught).command()).isEqualTo("GETDEL");

    try (DynoPipeline p = client.pipelined()) {
      p.getDel("rf:k");
      fail("GETDEL was queued");
    } catch (JedisException e) {
      assertThat(e).isInstanceOf(UnsupportedCommandException.class);
    }
    try {
      client.multi();
      fail("MULTI was not refused");
    } catch (JedisException e) {
      assertThat(e).isInstanceOf(UnsupportedCommandException.class).hasMessageContaining("MULTI");
    }
  }

  @Test
  void catchJedisExceptionCatchesKeysOnDifferentNodes() {
    String first = "rf:a";
    String other = otherNodesKey(first);
    RuntimeException caught = null; // set only by the catch (JedisException) below
    try {
      client.sinter(first, other);
      fail("SINTER over two nodes was not refused");
    } catch (JedisException e) {
      caught = e;
    }
    assertThat(caught)
        .isInstanceOf(CrossNodeKeysException.class)
        // What Jedis's own cluster client raises for keys in different hash slots.
        .isInstanceOf(JedisClusterOperationException.class)
        .hasMessageStartingWith(
            "SINTER: keys \"" + first + "\" and \"" + other + "\" are owned by different nodes");

    try (DynoPipeline p = client.pipelined()) {
      p.eval("return 1", 2, first, other);
      fail("EVAL over two nodes was queued");
    } catch (JedisException e) {
      assertThat(e).isInstanceOf(CrossNodeKeysException.class).hasMessageStartingWith("EVAL: ");
    }
    try {
      client.async().execute(client.async().commands().sinter(first, other)).join();
      fail("an asynchronous SINTER over two nodes was not refused");
    } catch (CompletionException e) {
      assertThat(e.getCause())
          .isInstanceOf(CrossNodeKeysException.class)
          .isInstanceOf(JedisException.class);
    }
  }

  /** A key whose owner (in the client's own rack) is not {@code key}'s. */
  private String otherNodesKey(String key) {
    for (int i = 0; ; i++) {
      String candidate = "rf:" + i;
      if (!cluster.ownerOf("rack1", candidate).equals(cluster.ownerOf("rack1", key))) {
        return candidate;
      }
    }
  }
}
