package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.config.DynoConfig;
import io.dyno.jedis.testing.RedisServers;
import io.dyno.jedis.testing.TestCertificates;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * The multiplexed transport with TLS and a datastore database other than 0, against real
 * redis-server processes (certificates made by openssl in the test): it connects and every node
 * holds its keys; an untrusted certificate or one for another name fails naming the host and the
 * reason, as on pooled sockets; TLS given as a bare socket factory is refused with what to do; the
 * database is the one asked for.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MuxTlsAndDatabaseTest {
  private TestCertificates certs;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeAll
  void certificates() throws Exception {
    certs = new TestCertificates();
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
    toClose.clear();
  }

  private <T extends AutoCloseable> T later(T c) {
    toClose.add(c);
    return c;
  }

  private static DynoJedisClientBuilder muxClient(String app, RedisServers redis) {
    return DynoJedisClient.builder()
        .applicationName(app)
        .config(DynoConfig.builder().startupTimeout(Duration.ofSeconds(3)).build())
        .hostSupplier(redis::hosts)
        .tokenMapSupplier(hosts -> redis.tokens())
        .localRack("rack1")
        .datastoreMode(true)
        .transport(Transport.MULTIPLEXED);
  }

  @Test
  void tlsCarriesEveryCallersCommandsAndEveryNodeHoldsItsKeys() throws Exception {
    RedisServers redis =
        later(RedisServers.withTls(1, 2, certs.redisTlsArgs(certs.serverCert, certs.serverKey)));
    DynoJedisClient client =
        later(muxClient("mux-tls", redis).tlsContext(certs.trustingContext()).build());
    for (int i = 0; i < 40; i++) {
      client.set("k" + i, "v" + i);
    }
    for (int i = 0; i < 40; i++) {
      assertThat(client.async().get("k" + i).join()).isEqualTo("v" + i);
    }
    long total = 0;
    for (int port :
        redis.ports()) { // the servers have no plain port: read back over TLS with plain Jedis
      try (Jedis j = new Jedis(
          new HostAndPort("127.0.0.1", port),
          DefaultJedisClientConfig.builder()
              .ssl(true)
              .sslSocketFactory(certs.trustingSocketFactory())
              .build())) {
        long n = j.dbSize();
        assertThat(n).as("keys on node %s", port).isPositive();
        total += n;
      }
    }
    assertThat(total).isEqualTo(40);
  }

  @Test
  void anUntrustedCertificateOrOneForAnotherNameFailsNamingTheHostAndTheReason() throws Exception {
    RedisServers trusted =
        later(RedisServers.withTls(1, 1, certs.redisTlsArgs(certs.serverCert, certs.serverKey)));
    int port = trusted.ports().get(0);
    // The JVM's default trust store does not know the test CA.
    assertThatThrownBy(
            () -> later(muxClient("mux-tls-untrusted", trusted).tls(null).build()))
        .hasMessageContaining("127.0.0.1:" + port)
        .hasMessageContaining("TLS handshake")
        .hasMessageContaining("not trusted");

    RedisServers other = later(
        RedisServers.withTls(1, 1, certs.redisTlsArgs(certs.otherNameCert, certs.otherNameKey)));
    int otherPort = other.ports().get(0);
    assertThatThrownBy(() -> later(muxClient("mux-tls-wrong-name", other)
            .tlsContext(certs.trustingContext())
            .build()))
        .hasMessageContaining("127.0.0.1:" + otherPort)
        .hasMessageContaining("not for host name '127.0.0.1'");
    DynoJedisClient lax = later(muxClient("mux-tls-lax", other)
        .tlsContext(certs.trustingContext(), false)
        .build());
    lax.set("a", "1");
    assertThat(lax.get("a")).isEqualTo("1");
  }

  @Test
  void tlsAsABareSocketFactoryIsRefusedSayingWhatToUse() throws Exception {
    RedisServers redis =
        later(RedisServers.withTls(1, 1, certs.redisTlsArgs(certs.serverCert, certs.serverKey)));
    assertThatThrownBy(() -> later(muxClient("mux-tls-factory", redis)
            .tls(certs.trustingSocketFactory())
            .build()))
        .hasMessageContaining("MULTIPLEXED")
        .hasMessageContaining("tlsContext(SSLContext)");
  }

  @Test
  void theDatabaseAskedForIsTheOneWritten() throws Exception {
    RedisServers redis = later(new RedisServers(1, 1));
    int port = redis.ports().get(0);
    DynoJedisClient client =
        later(muxClient("mux-db", redis).datastoreDatabase(3).build());
    client.set("in-db-3", "yes");
    assertThat(client.async().get("in-db-3").join()).isEqualTo("yes");
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      assertThat(j.get("in-db-3")).as("database 0").isNull();
      j.select(3);
      assertThat(j.get("in-db-3")).isEqualTo("yes");
    }
  }
}
