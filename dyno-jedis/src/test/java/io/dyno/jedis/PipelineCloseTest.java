package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionClusterExtension;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Issue #25: {@code DynoPipeline.close()} keeps Jedis's semantics: it sends what is still queued,
 * exactly as {@code sync()} would, so a try-with-resources block without {@code sync()} loses no
 * write; closing again, or after {@code sync()}, sends nothing more. Real in-process cluster
 * (3 racks x 2 nodes), so the queued commands really go to several owner nodes.
 */
@ExtendWith(CompanionClusterExtension.class)
class PipelineCloseTest {
  private final DynoJedisClient client;

  PipelineCloseTest(CompanionCluster cluster) {
    client = DynoJedisClient.builder()
        .applicationName("pipeline-close")
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
  void closeWithoutSyncSendsWhatIsQueuedAndCompletesEveryResponse() {
    client.set("pc:text", "not a number");
    Response<String> set;
    Response<Long> incr;
    Response<Long> wrongType;
    List<Response<String>> spread = new ArrayList<>();
    try (DynoPipeline p = client.pipelined()) {
      set = p.set("pc:k", "v");
      incr = p.incr("pc:n");
      wrongType = p.incr("pc:text");
      for (int i = 0; i < 20; i++) { // keys on every owner node: every group is sent
        spread.add(p.set("pc:spread:" + i, "s" + i));
      }
    }
    assertThat(client.get("pc:k")).isEqualTo("v");
    assertThat(client.get("pc:n")).isEqualTo("1");
    for (int i = 0; i < 20; i++) {
      assertThat(client.get("pc:spread:" + i)).as("pc:spread:" + i).isEqualTo("s" + i);
    }
    assertThat(set.get()).isEqualTo("OK");
    assertThat(incr.get()).isEqualTo(1L);
    assertThat(spread).allSatisfy(r -> assertThat(r.get()).isEqualTo("OK"));
    // As from sync(): an error reply is that command's own error, not thrown by close().
    assertThatThrownBy(wrongType::get)
        .isInstanceOf(JedisDataException.class)
        .hasMessageContaining("not an integer");
  }

  @Test
  void closingTwiceOrAfterSyncSendsNothingMore() {
    DynoPipeline closedTwice = client.pipelined();
    Response<Long> once = closedTwice.incr("pc:twice");
    closedTwice.close();
    closedTwice.close();
    assertThat(once.get()).isEqualTo(1L);
    assertThat(client.get("pc:twice")).as("INCR sent once").isEqualTo("1");

    DynoPipeline synced = client.pipelined();
    synced.incr("pc:synced");
    synced.sync();
    synced.close();
    synced.close();
    assertThat(client.get("pc:synced")).as("INCR sent once").isEqualTo("1");
    assertThat(synced.queued()).isZero();
    assertThatThrownBy(() -> synced.incr("pc:synced"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the pipeline is closed");
  }
}
