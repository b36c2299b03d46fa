package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionClusterExtension;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue #25: a binary key named in a refusal prints as redis-cli would print it (printable ASCII as
 * is, other bytes as \xNN), not as raw bytes or replacement characters; a huge key is cut.
 */
@ExtendWith(CompanionClusterExtension.class)
class BinaryKeyMessagesTest {
  private final DynoJedisClient client;

  BinaryKeyMessagesTest(CompanionCluster cluster) {
    client = DynoJedisClient.builder()
        .applicationName("binary-keys")
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
  void keysOnDifferentNodesAreNamedEscaped() {
    byte[] first = {'b', 'k', ':', 0, (byte) 0xff, '\n', '"'};
    byte[] other = otherNodesKey(first);
    assertThatThrownBy(() -> client.sinter(first, other))
        .isInstanceOf(CrossNodeKeysException.class)
        .hasMessageStartingWith("SINTER: keys \"bk:\\x00\\xff\\n\\\"\" and \"bk:\\x01\\x")
        .hasMessageNotContaining("\n")
        .hasMessageNotContaining("\uFFFD");
  }

  @Test
  void anOverLongBinaryKeyIsNamedCutWithItsLength() {
    byte[] huge = new byte[20_000];
    Arrays.fill(huge, (byte) 0x80);
    assertThatThrownBy(() -> client.get(huge))
        .isInstanceOf(UnsupportedCommandException.class)
        .hasMessageContaining("GET with key \"" + "\\x80".repeat(64)
            + "\"... (20000 bytes) is not served by Dynomite")
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(500));
  }

  /** {@code first} with a different last byte, owned (in rack1) by another node; "bk:\x01\xNN". */
  private byte[] otherNodesKey(byte[] first) {
    Object owner = client.topology().replicas(first).get(0);
    for (int i = 0x80; ; i++) {
      byte[] candidate = {'b', 'k', ':', 1, (byte) i};
      if (!client.topology().replicas(candidate).get(0).equals(owner)) {
        return candidate;
      }
    }
  }
}
