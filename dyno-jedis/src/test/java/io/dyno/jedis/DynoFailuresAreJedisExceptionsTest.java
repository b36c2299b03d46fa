package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.core.DeadlineExceededException;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.exec.CallOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Issue #25: whatever a call of dyno-jedis fails with (Dyno's own failures as well as its refusals,
 * see {@link RefusalsAreJedisExceptionsTest}), blocking, asynchronous or pipelined, on either
 * transport, a Jedis user's {@code catch (JedisException e)} catches it, and its type still tells
 * which failure of Dyno it was.
 */
class DynoFailuresAreJedisExceptionsTest {
  private static CompanionCluster cluster;
  private DynoJedisClient client;

  /** A call as the application writes it. */
  interface Call {
    void run() throws Exception;
  }

  @BeforeAll
  static void startCluster() {
    cluster = CompanionCluster.builder()
        .racks(1)
        .nodesPerRack(2)
        .backend(Backend.MEMORY)
        .start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @AfterEach
  void closeClient() {
    cluster.clearFaults();
    if (client != null) {
      client.close();
    }
  }

  private DynoJedisClient client(Transport transport) {
    client = DynoJedisClient.builder()
        .applicationName("jedis-exceptions")
        .transport(transport)
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .build();
    return client;
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void aPassedDeadlineIsAJedisConnectionException(Transport transport) {
    // No bound on writes awaiting replies: on the multiplexed transport a GET queued behind another
    // unanswered write fails unsent, as a connection failure; here the deadline must pass awaiting
    // the reply.
    client = DynoJedisClient.builder()
        .applicationName("jedis-exceptions")
        .transport(transport)
        .muxMaxWritesInFlight(0)
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .build();
    DynoJedisClient c = client;
    c.set(
        "k", "v"); // connections open first, without a deadline: it is to pass waiting for a reply
    DynoJedisClient bounded =
        c.withOptions(CallOptions.defaults().withDeadline(Duration.ofMillis(100)));
    cluster.nodes().forEach(n -> n.delayReplies(Duration.ofMillis(600)));

    JedisException blocking = caught(() -> bounded.get("k"));
    assertKind(blocking, DynoDeadlineExceededException.class, DeadlineExceededException.class);
    assertThat(blocking).isInstanceOf(JedisConnectionException.class);
    assertKind(
        asyncFailure(bounded.async().get("k")),
        DynoDeadlineExceededException.class,
        DeadlineExceededException.class);
    assertKind(
        pipelined(bounded), DynoDeadlineExceededException.class, DeadlineExceededException.class);
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void noNodeToRunOnIsAJedisConnectionException(Transport transport) {
    client = DynoJedisClient.builder()
        .transport(transport)
        .localRack("rack1")
        .config(DynoConfig.builder()
            .applicationName("no-hosts")
            .failOnStartupIfNoHosts(false)
            .startupTimeout(Duration.ofMillis(200))
            .build())
        .hostSupplier(List::of)
        .tokenMapSupplier(hosts -> List.of())
        .build();

    JedisException blocking = caught(() -> client.get("k"));
    assertKind(blocking, DynoNoAvailableHostsException.class, NoAvailableHostsException.class);
    assertThat(blocking).isInstanceOf(JedisConnectionException.class);
    assertKind(
        asyncFailure(client.async().get("k")),
        DynoNoAvailableHostsException.class,
        NoAvailableHostsException.class);
    assertKind(
        pipelined(client), DynoNoAvailableHostsException.class, NoAvailableHostsException.class);
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void aClosedClientIsAJedisException(Transport transport) {
    DynoJedisClient closed = client(transport);
    DynoJedisAsync async = closed.async();
    closed.close();

    assertThat(caught(() -> closed.get("k"))).isInstanceOf(ClientClosedException.class);
    assertThat(asyncFailure(async.get("k"))).isInstanceOf(ClientClosedException.class);
    assertThat(pipelined(closed)).isInstanceOf(ClientClosedException.class);
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void anUnsupportedCommandIsAJedisException(Transport transport) {
    DynoJedisClient c = client(transport);

    assertThat(caught(() -> c.getDel("k"))).isInstanceOf(UnsupportedCommandException.class);
    assertThat(asyncFailure(c.async().execute(c.async().commands().getDel("k"))))
        .isInstanceOf(UnsupportedCommandException.class);
    assertThat(caught(() -> {
          try (DynoPipeline p = c.pipelined()) {
            p.getDel("k");
          }
        }))
        .isInstanceOf(UnsupportedCommandException.class);
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void keysOnTwoNodesForAOneNodeCommandAreAJedisException(Transport transport) {
    DynoJedisClient c = client(transport);
    String a = "cross:a";
    String b = keyOwnedByAnotherNodeThan(a);

    assertThat(caught(() -> c.rpoplpush(a, b))).isInstanceOf(CrossNodeKeysException.class);
    assertThat(asyncFailure(c.async().execute(c.async().commands().rpoplpush(a, b))))
        .isInstanceOf(CrossNodeKeysException.class);
    assertThat(caught(() -> {
          try (DynoPipeline p = c.pipelined()) {
            p.rpoplpush(a, b);
          }
        }))
        .isInstanceOf(CrossNodeKeysException.class);
  }

  /** A GET in a pipeline, the way an application reads its response: whichever step fails. */
  private static JedisException pipelined(DynoJedisClient c) {
    return caught(() -> {
      try (DynoPipeline p = c.pipelined()) {
        Response<String> r = p.get("k");
        p.sync();
        r.get();
      }
    });
  }

  /** What {@code catch (JedisException e)} catches from {@code call}; anything else fails the test. */
  private static JedisException caught(Call call) {
    try {
      call.run();
    } catch (JedisException e) {
      return e;
    } catch (Exception e) {
      throw new AssertionError("escaped catch (JedisException e): " + e, e);
    }
    return fail("the call succeeded");
  }

  /** The exception a failed future holds, as {@code exceptionally} or {@code get()} hand it over. */
  private static Throwable asyncFailure(CompletableFuture<?> future) {
    try {
      future.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(JedisException.class);
      return e.getCause();
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("the future did not fail within 10 s", e);
    }
    return fail("the future succeeded");
  }

  /** Dyno's failure is told apart by its type, and dyno-core's exception is its cause, message kept. */
  private static void assertKind(
      Throwable e, Class<? extends JedisException> type, Class<?> coreType) {
    assertThat(e).isInstanceOf(type).isInstanceOf(DynoFailure.class);
    assertThat(((DynoFailure) e).dynoCause()).isSameAs(e.getCause()).isInstanceOf(coreType);
    assertThat(e.getMessage()).isNotBlank();
  }

  private static String keyOwnedByAnotherNodeThan(String key) {
    for (int i = 0; ; i++) {
      String candidate = "cross:b" + i;
      if (!cluster.ownerOf("rack1", candidate).equals(cluster.ownerOf("rack1", key))) {
        return candidate;
      }
    }
  }
}
