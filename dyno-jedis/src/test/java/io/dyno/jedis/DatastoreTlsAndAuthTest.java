package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Meter;
import com.netflix.spectator.api.Registry;
import com.netflix.spectator.api.Tag;
import io.dyno.core.config.DynoConfig;
import io.dyno.jedis.testing.RedisServers;
import io.dyno.jedis.testing.TestCertificates;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * Datastore mode against real redis-server processes with TLS (certificates made by openssl in the
 * test) and with requirepass / ACL users: it connects; an untrusted certificate, a certificate for
 * another name, a wrong or missing password each fail with an error naming the host and the cause;
 * the password shows up in no message, log line, toString, JMX snapshot or metric tag.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatastoreTlsAndAuthTest {
  private static final String SECRET = "Zq7-never-print-me-4k9";
  private static final String ALICE_SECRET = "al1ce-Pw-88-hidden";

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

  @AfterAll
  void done() {
    // nothing: temp files are small and the OS cleans /tmp
  }

  private <T extends AutoCloseable> T later(T c) {
    toClose.add(c);
    return c;
  }

  private static DynoJedisClientBuilder datastoreClient(String app, RedisServers redis) {
    return DynoJedisClient.builder()
        .applicationName(app)
        .config(DynoConfig.builder().startupTimeout(Duration.ofSeconds(3)).build())
        .hostSupplier(redis::hosts)
        .tokenMapSupplier(hosts -> redis.tokens())
        .localRack("rack1")
        .datastoreMode(true);
  }

  private static String messages(Throwable e) {
    StringBuilder sb = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      sb.append(t).append('\n');
    }
    return sb.toString();
  }

  @Test
  void tlsConnectsToRedisAndEveryNodeHoldsItsKeys() throws Exception {
    RedisServers redis =
        later(RedisServers.withTls(1, 2, certs.redisTlsArgs(certs.serverCert, certs.serverKey)));
    DynoJedisClient client = later(
        datastoreClient("tls-ok", redis).tls(certs.trustingSocketFactory()).build());
    for (int i = 0; i < 40; i++) {
      client.set("k" + i, "v" + i);
    }
    for (int i = 0; i < 40; i++) {
      assertThat(client.get("k" + i)).isEqualTo("v" + i);
    }
    // Both nodes got keys, read over TLS with a plain Jedis (the servers have no plain port).
    long total = 0;
    for (int port : redis.ports()) {
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
  void anUntrustedCertificateFailsNamingTheHostAndTheReason() throws Exception {
    RedisServers redis =
        later(RedisServers.withTls(1, 1, certs.redisTlsArgs(certs.serverCert, certs.serverKey)));
    int port = redis.ports().get(0);
    // The JVM's default trust store does not know the test CA.
    assertThatThrownBy(
            () -> later(datastoreClient("tls-untrusted", redis).tls(null).build()))
        .hasMessageContaining("127.0.0.1:" + port)
        .hasMessageContaining("TLS handshake")
        .hasMessageContaining("not trusted");
  }

  @Test
  void hostNameVerificationIsOnByDefault() throws Exception {
    RedisServers redis = later(
        RedisServers.withTls(1, 1, certs.redisTlsArgs(certs.otherNameCert, certs.otherNameKey)));
    int port = redis.ports().get(0);
    // Trusted CA, but the certificate is for elsewhere.example, not 127.0.0.1.
    assertThatThrownBy(() -> later(datastoreClient("tls-wrong-name", redis)
            .tls(certs.trustingSocketFactory())
            .build()))
        .hasMessageContaining("127.0.0.1:" + port)
        .hasMessageContaining("not for host name '127.0.0.1'");
    // Only the name was wrong: with the check turned off explicitly, the same server is accepted.
    DynoJedisClient lax = later(datastoreClient("tls-no-name-check", redis)
        .tls(certs.trustingSocketFactory(), false)
        .build());
    lax.set("a", "1");
    assertThat(lax.get("a")).isEqualTo("1");
  }

  @Test
  void requirepassWorksAndAWrongOrMissingPasswordNamesTheHostButNeverThePassword()
      throws Exception {
    RedisServers redis = later(new RedisServers(1, 1, "--requirepass", SECRET));
    int port = redis.ports().get(0);
    Registry registry = new DefaultRegistry();
    String logged = capturingStderr(() -> {
      DynoJedisClient client = later(datastoreClient("auth-ok", redis)
          .datastorePassword(SECRET)
          .registry(registry)
          .build());
      client.set("x", "1");
      assertThat(client.get("x")).isEqualTo("1");

      Throwable wrong = catchAll(() -> later(datastoreClient("auth-wrong", redis)
          .datastorePassword("not-" + SECRET)
          .build()));
      assertThat(messages(wrong))
          .contains("127.0.0.1:" + port)
          .contains("refused the credentials")
          .contains("WRONGPASS")
          .doesNotContain(SECRET);

      Throwable missing =
          catchAll(() -> later(datastoreClient("auth-missing", redis).build()));
      assertThat(messages(missing))
          .contains("127.0.0.1:" + port)
          .contains("NOAUTH")
          .contains("requires a password")
          .contains("no password is configured");

      // Nowhere else either: toString of the client's view of the cluster, the JMX snapshot, metric
      // tags.
      assertThat(client.topology().toString()).doesNotContain(SECRET);
      assertThat(client.toString()).doesNotContain(SECRET);
      assertThat(jmx("auth-ok")).contains("127.0.0.1:" + port).doesNotContain(SECRET);
      List<String> tags = new ArrayList<>();
      for (Meter m : registry) {
        for (Tag t : m.id().tags()) {
          tags.add(t.key() + "=" + t.value());
        }
      }
      assertThat(tags).isNotEmpty().noneMatch(t -> t.contains(SECRET));
    });
    assertThat(logged).doesNotContain(SECRET);
  }

  @Test
  void aclUsersAuthenticateByNameAndAWrongPasswordNamesTheUser() throws Exception {
    RedisServers redis = later(new RedisServers(
        1,
        1,
        "--user",
        "alice",
        "on",
        ">" + ALICE_SECRET,
        "~*",
        "+@all",
        "--user",
        "default",
        "off"));
    int port = redis.ports().get(0);
    String logged = capturingStderr(() -> {
      DynoJedisClient alice = later(datastoreClient("acl-ok", redis)
          .datastoreUser("alice")
          .datastorePassword(ALICE_SECRET)
          .build());
      alice.set("y", "2");
      assertThat(alice.get("y")).isEqualTo("2");

      Throwable wrong = catchAll(() -> later(datastoreClient("acl-wrong", redis)
          .datastoreUser("alice")
          .datastorePassword(ALICE_SECRET + "x")
          .build()));
      assertThat(messages(wrong))
          .contains("127.0.0.1:" + port)
          .contains("of user 'alice'")
          .contains("WRONGPASS")
          .doesNotContain(ALICE_SECRET);
    });
    assertThat(logged).doesNotContain(ALICE_SECRET);
  }

  @Test
  void tlsAndAuthTogether() throws Exception {
    String[] tls = certs.redisTlsArgs(certs.serverCert, certs.serverKey);
    String[] args = Stream.concat(Arrays.stream(tls), Stream.of("--requirepass", SECRET))
        .toArray(String[]::new);
    RedisServers redis = later(RedisServers.withTls(1, 1, args));
    DynoJedisClient client = later(datastoreClient("tls-auth", redis)
        .tls(certs.trustingSocketFactory())
        .datastorePassword(SECRET)
        .build());
    client.set("z", "3");
    assertThat(client.get("z")).isEqualTo("3");
  }

  @Test
  void credentialsOutsideDatastoreModeAreRefusedBecauseDynomiteClosesConnectionsOnAuth() {
    assertThatThrownBy(() -> DynoJedisClient.builder()
            .applicationName("no-auth-through-dynomite")
            .hostSupplier(List::of)
            .tokenMapSupplier(h -> List.of())
            .datastorePassword(SECRET)
            .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("apply only in datastore mode")
        .hasMessageContaining("AUTH")
        .hasMessageNotContaining(SECRET);
  }

  private static String jmx(String app) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName name = new ObjectName("io.dyno:type=DynoEngine,name=" + app);
    return server.getAttribute(name, "Snapshot") + "\n"
        + server.getAttribute(name, "Configuration");
  }

  private interface Body {
    void run() throws Exception;
  }

  private static Throwable catchAll(Body b) {
    try {
      b.run();
    } catch (Throwable t) {
      return t;
    }
    throw new AssertionError("expected a failure");
  }

  /** Runs {@code body} with System.err (where slf4j-simple writes) also copied into the returned text. */
  private static String capturingStderr(Body body) throws Exception {
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
      body.run();
    } finally {
      System.setErr(original);
    }
    return copy.toString(StandardCharsets.UTF_8);
  }
}
