package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionClusterConfig;
import io.dyno.companion.CompanionClusterExtension;
import io.dyno.companion.CompanionNode;
import io.dyno.core.DynoException;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.topology.ClusterDescribeTokenMapSupplier;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A start-up failure over the cluster description says what came back from which URL and its
 * likely cause in a line or two (nothing listening, a port that is not HTTP, nodes refusing at the
 * client port derived from the peer port), and suggests {@code failOnStartupIfNoHosts=false} only
 * when nothing answered (the nodes may come up later), not when a wrong URL, path or port answered
 * (waiting mends nothing).
 */
@ExtendWith(CompanionClusterExtension.class)
@CompanionClusterConfig(racks = 1, nodesPerRack = 1)
class StartupErrorMessagesTest {
  private static final String ADVICE = "failOnStartupIfNoHosts";

  private final CompanionCluster cluster;

  StartupErrorMessagesTest(CompanionCluster cluster) {
    this.cluster = cluster;
  }

  /** Dynomite, and the companion like it, answers 200 "OK" to an admin path it does not know. */
  @Test
  void aMistypedAdminPathSaysItIsProbablyNotAClusterDescribeEndpoint() {
    String url = cluster.nodes().get(0).adminUrl() + "/cluster-describe";
    assertThatThrownBy(() -> build(url))
        .isInstanceOf(DynoException.class)
        .hasMessageContaining(url + " → HTTP 200 with \"OK\", not a cluster description")
        .hasMessageContaining("/cluster_describe on its stats port 22222")
        .hasMessageContaining("/REST/v1/admin/cluster_describe on its port 8080")
        .hasMessageNotContaining("invalid JSON")
        .hasMessageNotContaining(ADVICE);
  }

  @Test
  void aNotFoundAnswerGivesTheStatusAndUrlNotTheHtmlPage() throws IOException {
    String page =
        "<!DOCTYPE html>\n<html><head><title>Error 404 Not Found</title></head>\n<body><h2>HTTP ERROR 404</h2>"
            + "<table><tr><th>URI:</th><td>/REST/v1/admin/cluster_describe</td></tr></table>"
                .repeat(30)
            + "</body></html>";
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      byte[] bytes = page.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "text/html");
      exchange.sendResponseHeaders(404, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    });
    server.start();
    try {
      String url =
          "http://127.0.0.1:" + server.getAddress().getPort() + "/REST/v1/admin/cluster_describe";
      assertThatThrownBy(() -> build(url))
          .isInstanceOf(DynoException.class)
          .hasMessageContaining(url + " → HTTP 404: Error 404 Not Found")
          .hasMessageNotContaining("<")
          .hasMessageNotContaining(ADVICE)
          .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(600));
    } finally {
      server.stop(0);
    }
  }

  @Test
  void whenNothingAnswersTheAdviceToStartWithoutNodesIsKept() throws IOException {
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    String url = "http://127.0.0.1:" + closed + "/cluster_describe";
    assertThatThrownBy(() -> build(url))
        .isInstanceOf(DynoException.class)
        .hasMessageContaining(url + " → ConnectException: nothing is listening at 127.0.0.1:"
            + closed + " (connection refused): a wrong host or port, or the node is not running")
        .hasMessageContaining("/cluster_describe on its stats port 22222")
        .hasMessageContaining(
            "If the cluster is not up yet, " + ADVICE + "=false starts the client anyway");
  }

  /** The node's client port where its admin port belongs: Dynomite closes on an HTTP request. */
  @Test
  void aUrlAtTheClientPortSaysItIsProbablyARespPort() {
    CompanionNode node = cluster.nodes().get(0);
    String url = "http://127.0.0.1:" + node.clientPort() + "/cluster_describe";
    assertThatThrownBy(() -> build(url))
        .isInstanceOf(DynoException.class)
        .hasMessageContaining(url + " → 127.0.0.1:" + node.clientPort() + " is not an HTTP port")
        .hasMessageContaining(
            "probably a RESP port (a node's client port, or its Redis) or a" + " peer port")
        .hasMessageContaining("/cluster_describe on its stats port 22222")
        .hasMessageNotContaining(ADVICE);
  }

  @Test
  void aUrlAtThePeerPortSaysItIsProbablyARespOrPeerPort() {
    CompanionNode node = cluster.nodes().get(0);
    String url = "http://127.0.0.1:" + node.peerPort() + "/cluster_describe";
    assertThatThrownBy(() -> build(url))
        .isInstanceOf(DynoException.class)
        .hasMessageContaining(url + " → 127.0.0.1:" + node.peerPort() + " is not an HTTP port")
        .hasMessageContaining("or a peer port")
        .hasMessageNotContaining(ADVICE);
  }

  /**
   * Dynomite's /cluster_describe names peer ports; the client takes peer port + 1. Nodes that
   * refuse there (here: stopped, their admin port still answering) get the port rule explained.
   */
  @Test
  void nodesRefusingAtTheDerivedClientPortGetThePortRuleExplained() {
    CompanionNode node = cluster.nodes().get(0);
    node.stop();
    String url = node.adminUrl() + "/cluster_describe";
    assertThatThrownBy(() -> build(url, Duration.ofSeconds(5)))
        .isInstanceOf(NoAvailableHostsException.class)
        .hasMessageContaining("every node refused the connection at its client port, which was"
            + " derived from the peer port that Dynomite's /cluster_describe gives")
        .hasMessageContaining(".clientPortFromPeerPort(peer -> ...)")
        .hasMessageContaining("/REST/v1/admin/cluster_describe")
        .hasMessageContaining("Details: no Dynomite node answered")
        .hasMessageContaining("127.0.0.1:" + node.clientPort());
  }

  /** Dynomite-manager's shape gives client ports: no port rule to blame, the nodes are down. */
  @Test
  void nodesRefusingAtTheManagersClientPortsAreSaidToBeDownOrWrong() {
    CompanionNode node = cluster.nodes().get(0);
    node.stop();
    String url = node.adminUrl() + "/REST/v1/admin/cluster_describe";
    assertThatThrownBy(() -> build(url, Duration.ofSeconds(5)))
        .isInstanceOf(NoAvailableHostsException.class)
        .hasMessageContaining("no Dynomite node answered")
        .hasMessageContaining("Every node refused the connection: nothing listens at those ports")
        .hasMessageContaining("If the nodes are still starting, " + ADVICE + "=false")
        .hasMessageNotContaining("clientPortFromPeerPort");
  }

  private static void build(String url) {
    build(url, Duration.ofMillis(500));
  }

  /** A busy machine may take seconds to answer even a refused connect; the URL's own answers bound the rest. */
  private static void build(String url, Duration startupTimeout) {
    try (ClusterDescribeTokenMapSupplier describe = ClusterDescribeTokenMapSupplier.builder()
        .endpoint(url)
        .connectTimeout(Duration.ofSeconds(5))
        .requestTimeout(Duration.ofSeconds(10))
        .build()) {
      DynoJedisClient.builder()
          .applicationName("startup-errors")
          .config(DynoConfig.builder().startupTimeout(startupTimeout).build())
          .hostSupplier(describe)
          .tokenMapSupplier(describe)
          .localRack("rack1")
          .build()
          .close();
    }
  }
}
