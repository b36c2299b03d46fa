package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.config.DynoConfig;
import io.dyno.jedis.testing.TestCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * TLS towards Dynomite, which the original offered through {@code withSSLSocketFactory}: Dynomite
 * speaks no TLS, so deployments put a TLS terminator (ghostunnel, stunnel) in front of each node and
 * report its port as {@code secure_port}. Here the terminator is a small JDK TLS server forwarding
 * bytes to a companion node; the client connects to {@link Host#securePort()} with TLS.
 */
class DynomiteSecurePortTest {

  /** Accepts TLS on 127.0.0.1 and pipes each connection to {@code target} in plain TCP. */
  static final class TlsTerminator implements AutoCloseable {
    final SSLServerSocket server;
    final AtomicInteger accepted = new AtomicInteger();
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    TlsTerminator(SSLContext ctx, int target) throws IOException {
      server = (SSLServerSocket)
          ctx.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread t = new Thread(
          () -> {
            while (!server.isClosed()) {
              try {
                Socket client = server.accept();
                accepted.incrementAndGet();
                Socket backend = new Socket(InetAddress.getLoopbackAddress(), target);
                open.add(client);
                open.add(backend);
                pipe(client.getInputStream(), backend.getOutputStream());
                pipe(backend.getInputStream(), client.getOutputStream());
              } catch (IOException e) {
                // closed, or one client's handshake failed: keep serving the others
              }
            }
          },
          "tls-terminator");
      t.setDaemon(true);
      t.start();
    }

    int port() {
      return server.getLocalPort();
    }

    private static void pipe(InputStream in, OutputStream out) {
      Thread t = new Thread(
          () -> {
            byte[] buf = new byte[8192];
            try {
              for (int n; (n = in.read(buf)) >= 0; ) {
                out.write(buf, 0, n);
                out.flush();
              }
            } catch (IOException e) {
              // connection closed
            } finally {
              try {
                out.close();
              } catch (IOException ignored) {
                // already closed
              }
            }
          },
          "tls-terminator-pipe");
      t.setDaemon(true);
      t.start();
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket s : open) {
        s.close();
      }
    }
  }

  /** TLS as each transport takes it: a socket factory for pooled sockets, a context for the multiplexed one. */
  private static DynoJedisClientBuilder withTls(
      DynoJedisClientBuilder b, Transport t, TestCertificates certs) throws Exception {
    b.transport(t);
    return t == Transport.MULTIPLEXED
        ? b.tlsContext(certs.trustingContext())
        : b.tls(certs.trustingSocketFactory());
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void tlsThroughDynomiteGoesToEachNodesSecurePortAndANodeWithoutOneIsRefusedClearly(
      Transport transport) throws Exception {
    TestCertificates certs = new TestCertificates();
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(certs.serverKeyStore(), "changeit".toCharArray());
    SSLContext serverCtx = SSLContext.getInstance("TLS");
    serverCtx.init(kmf.getKeyManagers(), null, null);

    try (CompanionCluster cluster =
        CompanionCluster.builder().racks(1).nodesPerRack(1).start()) {
      CompanionNode node = cluster.nodes().get(0);
      try (TlsTerminator tls = new TlsTerminator(serverCtx, node.clientPort())) {
        Host secured = node.host().toBuilder().securePort(tls.port()).build();
        try (DynoJedisClient client = withTls(
                DynoJedisClient.builder()
                    .applicationName("dynomite-tls")
                    .hostSupplier(() -> List.of(secured))
                    .tokenMapSupplier(hosts -> List.of(new HostToken(node.token(), secured)))
                    .localRack(node.rack()),
                transport,
                certs)
            .build()) {
          client.set("k", "v");
          assertThat(client.get("k")).isEqualTo("v");
        }
        assertThat(tls.accepted.get())
            .as("connections through the TLS terminator")
            .isPositive();
      }

      Host plainOnly = node.host().toBuilder().securePort(-1).build();
      assertThatThrownBy(() -> withTls(
                  DynoJedisClient.builder()
                      .applicationName("dynomite-no-secure-port")
                      .config(DynoConfig.builder()
                          .startupTimeout(Duration.ofSeconds(2))
                          .build())
                      .hostSupplier(() -> List.of(plainOnly))
                      .tokenMapSupplier(hosts -> List.of(new HostToken(node.token(), plainOnly)))
                      .localRack(node.rack()),
                  transport,
                  certs)
              .build())
          .hasMessageContaining(plainOnly.id())
          .hasMessageContaining("has no secure port")
          .hasMessageContaining("TLS terminator");
    }
  }
}
