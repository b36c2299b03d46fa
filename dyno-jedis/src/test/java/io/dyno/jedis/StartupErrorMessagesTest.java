package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionClusterConfig;
import io.dyno.companion.CompanionClusterExtension;
import io.dyno.core.DynoException;
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
 * Issue #25: a start-up failure over the cluster description says what came back from which URL
 * in a line or two, and suggests {@code failOnStartupIfNoHosts=false} only when nothing answered
 * (the nodes may come up later), not when a wrong URL or path answered (waiting mends nothing).
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
        .hasMessageContaining(url + " → ConnectException")
        .hasMessageContaining("set " + ADVICE + "=false to start anyway");
  }

  private static void build(String url) {
    try (ClusterDescribeTokenMapSupplier describe = ClusterDescribeTokenMapSupplier.builder()
        .endpoint(url)
        .connectTimeout(Duration.ofMillis(500))
        .requestTimeout(Duration.ofSeconds(2))
        .build()) {
      DynoJedisClient.builder()
          .applicationName("startup-errors")
          .config(DynoConfig.builder().startupTimeout(Duration.ofMillis(500)).build())
          .hostSupplier(describe)
          .tokenMapSupplier(describe)
          .localRack("rack1")
          .build()
          .close();
    }
  }
}
