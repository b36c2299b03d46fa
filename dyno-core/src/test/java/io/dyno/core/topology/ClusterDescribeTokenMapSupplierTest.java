package io.dyno.core.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.routing.TopologyException;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClusterDescribeTokenMapSupplierTest {
  private DescribeServer dynomite;
  private DescribeServer manager;
  private ClusterDescribeTokenMapSupplier supplier;

  @AfterEach
  void tearDown() {
    if (supplier != null) supplier.close();
    if (dynomite != null) dynomite.close();
    if (manager != null) manager.close();
  }

  @Test
  void readsDynomitesOwnEndpointOverHttp() throws Exception {
    dynomite = new DescribeServer("/cluster_describe", Samples.DYNOMITE);
    supplier =
        ClusterDescribeTokenMapSupplier.builder().endpoint(dynomite.url()).build();
    List<HostToken> tokens = supplier.getHostTokens();
    assertThat(tokens)
        .extracting(ht -> ht.host().id())
        .containsExactly("127.0.0.1:8102", "127.0.0.1:8112", "127.0.0.1:8122", "127.0.0.1:8132");
    assertThat(supplier.getHosts()).hasSize(4);
    assertThat(dynomite.requests()).isEqualTo(2); // tokens are re-read on every call
  }

  @Test
  void readsDynomiteManagersEndpointOverHttp() throws Exception {
    manager = new DescribeServer("/REST/v1/admin/cluster_describe", Samples.MANAGER);
    supplier = ClusterDescribeTokenMapSupplier.builder().endpoint(manager.url()).build();
    ClusterDescription d = supplier.describe(List.of());
    assertThat(d.shape()).isEqualTo(ClusterDescription.Shape.DYNOMITE_MANAGER);
    assertThat(d.hashtag()).isEqualTo("{}");
    assertThat(d.hostTokens())
        .extracting(HostToken::token)
        .containsExactly(1383429731L, 3530913378L, 1383429731L, 3530913378L);
    assertThat(supplier.lastDescription()).isSameAs(d);
  }

  @Test
  void asksEndpointsInTurnUntilOneAnswersThenStartsThere() throws Exception {
    DescribeServer broken = new DescribeServer("/cluster_describe", "{\"dcs\": [");
    DescribeServer down = new DescribeServer("/cluster_describe", Samples.DYNOMITE);
    down.goDown();
    dynomite = new DescribeServer("/cluster_describe", Samples.DYNOMITE);
    try {
      supplier = ClusterDescribeTokenMapSupplier.builder()
          .endpoint(broken.url())
          .endpoint(down.url())
          .endpoint(dynomite.url())
          .build();
      assertThat(supplier.getHostTokens()).hasSize(4);
      assertThat(broken.requests()).isEqualTo(1);
      assertThat(supplier.getHostTokens()).hasSize(4);
      assertThat(broken.requests())
          .as("the one that answered is asked first next time")
          .isEqualTo(1);
      assertThat(dynomite.requests()).isEqualTo(2);
    } finally {
      broken.close();
    }
  }

  @Test
  void whenNoEndpointAnswersTheErrorListsEveryEndpointAndReason() throws Exception {
    DescribeServer error = new DescribeServer("/cluster_describe", "");
    error.respond(503, "Service Unavailable");
    DescribeServer down = new DescribeServer("/cluster_describe", "");
    down.goDown();
    DescribeServer malformed =
        new DescribeServer("/cluster_describe", "{\"dcs\": [{\"name\": \"dc1\"}]}");
    try {
      supplier = ClusterDescribeTokenMapSupplier.builder()
          .endpoint(error.url())
          .endpoint(down.url())
          .endpoint(malformed.url())
          .build();
      assertThatThrownBy(() -> supplier.getHostTokens())
          .isInstanceOf(IOException.class)
          .hasMessageContaining("no endpoint answered")
          .hasMessageContaining(error.url() + " → HTTP 503: Service Unavailable")
          .hasMessageContaining(down.url() + " → ConnectException")
          .hasMessageContaining(
              malformed.url() + " → cluster_describe dcs[0]: \"racks\" must be an array");
    } finally {
      error.close();
      malformed.close();
    }
  }

  @Test
  void aNotFoundPageIsReportedByStatusUrlAndTitleNotByItsHtml() throws Exception {
    String page = "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n<body>"
        + "<h1>Not Found</h1>" + "<p>The requested URL was not found on this server.</p>".repeat(40)
        + "</body></html>";
    dynomite = new DescribeServer("/cluster_describe", "");
    dynomite.respond(404, page);
    supplier =
        ClusterDescribeTokenMapSupplier.builder().endpoint(dynomite.url()).build();
    assertThatThrownBy(() -> supplier.getHostTokens())
        .isInstanceOf(UnusableAnswerException.class)
        .hasMessageContaining(dynomite.url() + " → HTTP 404: 404 Not Found")
        .hasMessageNotContaining("<")
        .hasMessageNotContaining("requested URL")
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(200));
  }

  @Test
  void aServerErrorMayPassSoItIsNotTakenForAWrongUrl() throws Exception {
    dynomite = new DescribeServer("/cluster_describe", "");
    dynomite.respond(503, "Service Unavailable\nretry later\n");
    supplier =
        ClusterDescribeTokenMapSupplier.builder().endpoint(dynomite.url()).build();
    assertThatThrownBy(() -> supplier.getHostTokens())
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(UnusableAnswerException.class)
        .hasMessageContaining(dynomite.url() + " → HTTP 503: Service Unavailable")
        .hasMessageNotContaining("retry later");
  }

  /** Dynomite answers 200 "OK" to any admin path it does not know: a typo in the path lands there. */
  @Test
  void anOkBodySaysThePathIsProbablyNotAClusterDescribeEndpoint() throws Exception {
    dynomite = new DescribeServer("/cluster_describ", "OK\r\n");
    supplier =
        ClusterDescribeTokenMapSupplier.builder().endpoint(dynomite.url()).build();
    assertThatThrownBy(() -> supplier.getHostTokens())
        .isInstanceOf(UnusableAnswerException.class)
        .hasMessageContaining(dynomite.url() + " → HTTP 200 with \"OK\", not a cluster description")
        .hasMessageContaining("path is probably not a cluster_describe endpoint")
        .hasMessageContaining("/cluster_describe on its stats port 22222")
        .hasMessageContaining("/REST/v1/admin/cluster_describe on its port 8080")
        .hasMessageNotContaining("invalid JSON");
  }

  @Test
  void aMalformedDocumentIsAnUnusableAnswer() throws Exception {
    dynomite = new DescribeServer("/cluster_describe", "{\"dcs\": [");
    supplier =
        ClusterDescribeTokenMapSupplier.builder().endpoint(dynomite.url()).build();
    assertThatThrownBy(() -> supplier.getHostTokens())
        .isInstanceOf(UnusableAnswerException.class)
        .hasMessageContaining(dynomite.url() + " → invalid JSON");
  }

  @Test
  void theGistOfABodyIsShort() {
    assertThat(DescribeFailures.gist("  first line\nsecond line")).isEqualTo("first line");
    assertThat(DescribeFailures.gist("x".repeat(500))).hasSize(81).endsWith("…");
    assertThat(DescribeFailures.gist("<html><body><h1>No</h1>\n<p>title</p></body></html>"))
        .isEqualTo("No title");
    assertThat(DescribeFailures.gist("<html></html>")).isEmpty();
    assertThat(DescribeFailures.gist("<HTML><TITLE>\n  Error  500\n</TITLE>"))
        .isEqualTo("Error 500");
  }

  @Test
  void canAskTheKnownHostsAdminEndpoints() throws Exception {
    dynomite = new DescribeServer("/cluster_describe", Samples.DYNOMITE);
    int adminPort = Integer.parseInt(dynomite.url().replaceAll(".*:(\\d+)/.*", "$1"));
    supplier = ClusterDescribeTokenMapSupplier.builder()
        .askKnownHosts(adminPort, "/cluster_describe")
        .build();
    Host known = Host.builder("127.0.0.1", 8102)
        .ipAddress("127.0.0.1")
        .rack("rack1")
        .datacenter("dc1")
        .build();
    assertThat(supplier.getTokens(List.of(known))).hasSize(4);
    assertThatThrownBy(() -> supplier.getHostTokens()).hasMessageContaining("no known host to ask");
  }

  @Test
  void badConfigurationIsNamed() {
    assertThatThrownBy(() -> ClusterDescribeTokenMapSupplier.builder().build())
        .hasMessageContaining("at least one endpoint");
    assertThatThrownBy(
            () -> ClusterDescribeTokenMapSupplier.builder().endpoint("ftp://x/cluster_describe"))
        .hasMessageContaining("\"ftp://x/cluster_describe\" must be an http(s) URL");
    assertThatThrownBy(() -> ClusterDescribeTokenMapSupplier.builder().endpoint("http://bad host"))
        .hasMessageContaining("\"http://bad host\" is not a URL");
  }

  @Test
  void closeIsIdempotentAndRefusesFurtherReads() throws Exception {
    dynomite = new DescribeServer("/cluster_describe", Samples.DYNOMITE);
    supplier =
        ClusterDescribeTokenMapSupplier.builder().endpoint(dynomite.url()).build();
    supplier.close();
    supplier.close();
    assertThatThrownBy(() -> supplier.getHostTokens()).hasMessageContaining("closed");
  }

  @Test
  void theClustersHashtagIsUsedWhenNoneIsConfiguredAndADifferentOneIsRefused() throws Exception {
    manager = new DescribeServer("/REST/v1/admin/cluster_describe", Samples.MANAGER);
    supplier = ClusterDescribeTokenMapSupplier.builder().endpoint(manager.url()).build();

    // No hash tag configured: the cluster's "{}" is used, so tagged keys route by their tag.
    try (TopologyRefresher r =
        TopologyRefresher.builder().topologySupplier(supplier).build()) {
      assertThat(r.start().healthy()).isTrue();
      assertThat(r.current().hasher().hashtag()).isEqualTo("{}");
      assertThat(r.current().replicas("{user1}:a")).isEqualTo(r.current().replicas("user1"));
    }
    // The same tag configured: fine.
    try (TopologyRefresher r =
        TopologyRefresher.builder().topologySupplier(supplier).hashtag("{}").build()) {
      assertThat(r.start().healthy()).isTrue();
    }
    // Another tag configured: the refresh fails, naming both tags, and nothing is routed.
    try (TopologyRefresher r =
        TopologyRefresher.builder().topologySupplier(supplier).hashtag("[]").build()) {
      RefreshStatus status = r.start();
      assertThat(status.healthy()).isFalse();
      assertThat(status.lastError())
          .contains("hash tag mismatch")
          .contains("\"[]\"")
          .contains("\"{}\"");
      assertThat(r.lastFailure())
          .as("a configuration problem, not a cluster still starting")
          .isInstanceOf(TopologyException.class);
      assertThat(r.current().hosts()).isEmpty();
    }
    // Dynomite's own shape reports no tag: the configured one stays.
    dynomite = new DescribeServer("/cluster_describe", Samples.DYNOMITE);
    try (ClusterDescribeTokenMapSupplier own =
            ClusterDescribeTokenMapSupplier.builder().endpoint(dynomite.url()).build();
        TopologyRefresher r =
            TopologyRefresher.builder().topologySupplier(own).hashtag("[]").build()) {
      assertThat(r.start().healthy()).isTrue();
      assertThat(r.current().hasher().hashtag()).isEqualTo("[]");
    }
  }
}
