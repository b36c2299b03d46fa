package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionClusterExtension;
import io.dyno.core.exec.CallOptions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Issue #25: anything on a closed client fails at once, before anything is sent, with a
 * {@link ClientClosedException} (a {@link JedisException}) naming the client: ordinary calls on
 * either transport, its views, scans, asynchronous API, {@code pipelined()}, and pipelines opened
 * before the close.
 */
@ExtendWith(CompanionClusterExtension.class)
class ClosedClientTest {
  private static final String APP = "closed-client";
  private static final String CLOSED = "DynoJedisClient '" + APP + "' is closed";

  private final CompanionCluster cluster;

  ClosedClientTest(CompanionCluster cluster) {
    this.cluster = cluster;
  }

  private DynoJedisClient client(Transport transport) {
    return DynoJedisClient.builder()
        .applicationName(APP)
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .transport(transport)
        .build();
  }

  @Test
  void pipelinedOnAClosedClientThrowsNamingIt() {
    DynoJedisClient c = client(Transport.MULTIPLEXED);
    DynoJedisClient viewBefore = c.withOptions(CallOptions.defaults());
    c.close();
    for (DynoJedisClient each :
        new DynoJedisClient[] {c, viewBefore, c.withOptions(CallOptions.defaults())}) {
      assertThatThrownBy(each::pipelined)
          .isInstanceOf(ClientClosedException.class)
          .isInstanceOf(JedisException.class)
          .hasMessage(CLOSED + "; pipelined() opens no pipeline")
          .satisfies(
              e -> assertThat(((ClientClosedException) e).applicationName()).isEqualTo(APP));
    }
  }

  @Test
  void aPipelineWhoseClientClosedRefusesQueuingAndSyncAndSendsNothing() {
    DynoJedisClient c = client(Transport.MULTIPLEXED);
    DynoPipeline synced = c.pipelined();
    Response<String> queued = synced.set("cc:synced", "v");
    DynoPipeline closedWithQueue = c.pipelined();
    closedWithQueue.set("cc:closed", "v");
    DynoPipeline empty = c.pipelined();
    c.close();

    assertThatThrownBy(() -> synced.get("cc:synced"))
        .isInstanceOf(ClientClosedException.class)
        .hasMessage(CLOSED + "; GET was not sent");
    assertThatThrownBy(synced::sync)
        .isInstanceOf(ClientClosedException.class)
        .hasMessage(CLOSED + "; 1 pipelined command(s) were not sent");
    assertThatThrownBy(queued::get)
        .as("the queued command's own response")
        .isInstanceOf(ClientClosedException.class);
    synced.close(); // its queue was failed by sync(): nothing left to send
    // A close that would send must not drop the queued write silently.
    assertThatThrownBy(closedWithQueue::close)
        .isInstanceOf(ClientClosedException.class)
        .hasMessageContaining(CLOSED);
    closedWithQueue.close(); // the second close: nothing more
    assertThatThrownBy(empty::sync)
        .isInstanceOf(ClientClosedException.class)
        .hasMessageContaining(CLOSED);
    empty.close(); // nothing queued: a close has nothing to report

    try (DynoJedisClient open = client(Transport.MULTIPLEXED)) {
      assertThat(open.mget("cc:synced", "cc:closed"))
          .as("nothing was sent")
          .containsExactly(null, null);
    }
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void everyCallOnAClosedClientThrowsAtOnceNamingIt(Transport transport) {
    DynoJedisClient c = client(transport);
    c.set("cc:before", "v");
    DynoJedisAsync async = c.async();
    c.close();
    Map<String, ThrowingCallable> calls = new LinkedHashMap<>();
    calls.put("GET", () -> c.get("cc:before"));
    calls.put("SET", () -> c.set("cc:after", "v"));
    calls.put("MGET", () -> c.mget("cc:before", "cc:1", "cc:2", "cc:3")); // split per owner node
    calls.put("DEL", () -> c.del("cc:before", "cc:1"));
    calls.put("KEYS", () -> c.keys("cc:*")); // every token range
    calls.put("SCAN", () -> c.scanAll("cc:*").count());
    calls.put("HGET", () -> c.withOptions(CallOptions.defaults()).hget("cc:h", "f")); // a view
    for (Map.Entry<String, ThrowingCallable> e : calls.entrySet()) {
      assertThatThrownBy(e.getValue())
          .as(e.getKey())
          .isInstanceOf(ClientClosedException.class)
          .hasMessage(CLOSED + "; " + e.getKey() + " was not sent");
    }
    CompletableFuture<String> get = async.get("cc:before");
    assertThat(get).as("failed at once").isCompletedExceptionally();
    assertThatThrownBy(get::join)
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(ClientClosedException.class)
        .hasMessage(CLOSED + "; GET was not sent");
  }
}
