package io.dyno.core.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.internal.json.JsonException;
import io.dyno.core.routing.Topology;
import io.dyno.core.testing.ManualScheduler;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A fuzzed cluster_describe document, in either shape, served over real HTTP to the real supplier
 * and refresher. Property: the parser gives a typed {@link JsonException} naming what is wrong, or
 * nodes that are all usable; a document that does not parse (or builds no servable topology)
 * never replaces the topology in use, and one that does is what gets used.
 * Seeds: real documents of both shapes (src/test/resources/.../ClusterDescribeFuzzTestInputs).
 */
class ClusterDescribeFuzzTest {
  private static DescribeServer server;
  private static ClusterDescribeTokenMapSupplier supplier;
  private static TopologyRefresher refresher;
  private static boolean dirty;

  @BeforeAll
  static void start() throws Exception {
    // The JDK server's small responses otherwise wait on delayed ACKs (~40 ms per execution).
    System.setProperty("sun.net.httpserver.nodelay", "true");
    server = new DescribeServer("/cluster_describe", Samples.DYNOMITE);
    supplier = ClusterDescribeTokenMapSupplier.builder().endpoint(server.url()).build();
    refresher = TopologyRefresher.builder()
        .topologySupplier(supplier)
        .scheduler(new ManualScheduler())
        .locality(Locality.resolve("rack1", "dc1"))
        .build();
    assertThat(refresher.start().healthy()).isTrue();
  }

  @AfterAll
  static void stop() {
    refresher.close();
    supplier.close();
    server.close();
  }

  @FuzzTest(maxDuration = "10s")
  void clusterDescribe(byte[] data) {
    String doc = new String(data, StandardCharsets.UTF_8);
    ClusterDescription parsed = null;
    try {
      parsed = ClusterDescription.parse(doc);
    } catch (JsonException e) {
      assertThat(e.getMessage()).isNotBlank();
    }
    if (parsed != null) {
      for (HostToken ht : parsed.hostTokens()) {
        Host h = ht.host();
        assertThat(ht.token()).isBetween(0L, 0xffffffffL);
        assertThat(h.port()).isBetween(1, 65535);
        assertThat(h.rack()).isNotBlank();
        assertThat(h.datacenter()).isNotBlank();
        assertThat(h.hostname()).isNotBlank();
      }
    }
    try (var allowed = BugDetectors.allowNetworkConnections(
        (h, p) -> h.equals("localhost") || h.startsWith("127."))) {
      if (dirty) { // the previous document was used: back to the real one first
        server.serve(Samples.DYNOMITE);
        assertThat(refresher.refreshNow().healthy()).isTrue();
        dirty = false;
      }
      Topology before = refresher.current();
      server.serve(doc);
      RefreshStatus status = refresher.refreshNow();
      if (parsed == null) {
        assertThat(status.healthy())
            .as("a document that does not parse was accepted")
            .isFalse();
        assertThat(refresher.current()).isSameAs(before);
      } else if (status.healthy()) {
        dirty = true;
        Set<String> expected =
            parsed.hostTokens().stream().map(t -> t.host().id()).collect(Collectors.toSet());
        Set<String> used =
            refresher.current().hosts().stream().map(Host::id).collect(Collectors.toSet());
        assertThat(used).isEqualTo(expected);
      } else {
        assertThat(status.lastError()).isNotBlank();
        assertThat(refresher.current()).isSameAs(before);
      }
    }
  }
}
