package io.dyno.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.CompanionCluster;
import io.dyno.spring.internal.DynoStartFailureAnalyzer;
import java.io.IOException;
import java.net.ServerSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Each way the auto-configured client fails a start, as the summary Spring Boot prints in place of
 * the stack trace: what is wrong, and the {@code dyno.*} property to fix or to check. The failures
 * are the real ones, from a context against a companion cluster or against nothing.
 */
class DynoStartFailureAnalyzerTest {
  private static CompanionCluster cluster;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DynoAutoConfiguration.class));

  @BeforeAll
  static void startCluster() {
    cluster = CompanionCluster.builder()
        .racks(2)
        .nodesPerRack(1)
        .basePort(CompanionCluster.freeBasePort(2))
        .start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  private FailureAnalysis analysisOf(String... properties) {
    Throwable[] failure = new Throwable[1];
    runner.withPropertyValues(properties).run(context -> {
      assertThat(context).hasFailed();
      failure[0] = context.getStartupFailure();
    });
    FailureAnalysis analysis = new DynoStartFailureAnalyzer().analyze(failure[0]);
    assertThat(analysis).as("an analysis of %s", failure[0]).isNotNull();
    assertThat(analysis.getCause()).isSameAs(failure[0]);
    return analysis;
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void noClusterNamesBothWaysToGiveOne() {
    FailureAnalysis a = analysisOf();
    assertThat(a.getDescription()).startsWith("no cluster: set dyno.cluster-describe-url");
    assertThat(a.getDescription()).contains("dyno.hosts");
    assertThat(a.getAction()).startsWith("Fix dyno.cluster-describe-url in the application's");
  }

  @Test
  void aValueDynoRefusesNamesThePropertyAndTheValue() {
    FailureAnalysis a = analysisOf(
        "dyno.cluster-describe-url=" + cluster.node("rack1", 0).adminUrl() + "/cluster_describe",
        "dyno.pool.max-conns-per-host=0");
    assertThat(a.getDescription()).startsWith("dyno.pool.max-conns-per-host=0: ");
    assertThat(a.getAction()).startsWith("Fix dyno.pool.max-conns-per-host in");
  }

  @Test
  void aMalformedHostEntryNamesItsIndexAndTheForm() {
    FailureAnalysis a = analysisOf("dyno.hosts=127.0.0.1:8102:rack1:dc1:0,127.0.0.1:8102:rack2");
    assertThat(a.getDescription())
        .isEqualTo("dyno.hosts[1]=127.0.0.1:8102:rack2: expected"
            + " host:port:rack:datacenter:token[:securePort]");
    assertThat(a.getAction()).startsWith("Fix dyno.hosts[1] in");
  }

  @Test
  void aTlsBundleWithoutTlsNamesTheSwitch() {
    FailureAnalysis a =
        analysisOf("dyno.hosts=127.0.0.1:8102:rack1:dc1:0", "dyno.tls.bundle=nodes");
    assertThat(a.getDescription()).contains("dyno.tls.bundle=nodes", "dyno.tls.enabled");
    assertThat(a.getAction()).startsWith("Fix dyno.tls.enabled in");
  }

  @Test
  void aRackTheClusterLacksIsToldInPropertiesNotBuilderMethods() {
    FailureAnalysis a = analysisOf(
        "dyno.cluster-describe-url=" + cluster.node("rack1", 0).adminUrl() + "/cluster_describe",
        "dyno.local-rack=rack9");
    assertThat(a.getDescription())
        .contains("local rack 'rack9'", "rack1, rack2", "dyno.local-rack")
        .contains("set dyno.allow-unknown-local-rack=true")
        .doesNotContain("localRack(", "allowUnknownLocalRack()");
    assertThat(a.getAction())
        .isEqualTo("Fix dyno.local-rack or dyno.allow-unknown-local-rack in the application's"
            + " configuration.");
  }

  @Test
  void aClusterDescribeUrlWhereNothingListensPointsAtTheUrlAndTheAdminPort() throws IOException {
    String url = "http://127.0.0.1:" + closedPort() + "/cluster_describe";
    FailureAnalysis a =
        analysisOf("dyno.cluster-describe-url=" + url, "dyno.startup-timeout=300ms");
    assertThat(a.getDescription()).contains(url);
    assertThat(a.getAction())
        .startsWith("Check dyno.cluster-describe-url=" + url + ": each URL is a Dynomite node's"
            + " admin port")
        .contains("dyno.client-port");
  }

  @Test
  void hostsWhereNothingListensPointAtTheHostsAndTheClientPort() throws IOException {
    int port = closedPort();
    FailureAnalysis a =
        analysisOf("dyno.hosts=127.0.0.1:" + port + ":rack1:dc1:0", "dyno.startup-timeout=300ms");
    assertThat(a.getDescription()).contains(String.valueOf(port));
    assertThat(a.getAction()).startsWith("Check dyno.hosts: each entry is").contains("client port");
  }

  @Test
  void failuresThatAreNotDynosAreLeftToSpringBoot() {
    assertThat(new DynoStartFailureAnalyzer().analyze(new IllegalStateException("not ours")))
        .isNull();
  }
}
