package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.netflix.archaius.config.DefaultSettableConfig;
import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Registry;
import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.core.config.ArchaiusDynoConfig;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.core.testing.ReadmeTables;
import io.dyno.jedis.internal.TransportSettings;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The transport's settings: the "Transport settings" table of docs/configuration.md documents
 * {@link TransportSettings}' table row for row; the Archaius properties reach a client built from
 * an {@code ArchaiusDynoConfig} (builder methods win), and bad values fail naming the setting.
 */
class ReadmeTransportTableTest {

  @Test
  void theReadmeTableMatchesTheTransportSettingsTable() throws IOException {
    Map<String, List<String>> rows = readmeRows();
    assertThat(rows.keySet())
        .as("settings in docs/configuration.md's transport table")
        .containsExactlyElementsOf(
            TransportSettings.ALL.stream().map(TransportSettings.Knob::name).toList());
    for (TransportSettings.Knob k : TransportSettings.ALL) {
      List<String> row = rows.get(k.name());
      String dflt = row.get(1).replace("`", "");
      assertThat(dflt)
          .as(k.name() + " default")
          .satisfiesAnyOf(
              d -> assertThat(d).isEqualTo(k.defaultText()),
              d -> assertThat(d).startsWith(k.defaultText() + " ("));
      assertThat(row.get(2)).as(k.name() + " unit").isEqualTo(k.unit());
      assertThat(row.get(3))
          .as(k.name() + " property")
          .matches("`" + Pattern.quote(k.property()) + "`.*");
      assertThat(row.get(4)).as(k.name() + " is read at build only").isEqualTo("no");
    }
  }

  @Test
  void archaiusPropertiesChooseTheTransportAndItsLimitsAndTheBuilderWins() {
    DefaultSettableConfig props = new DefaultSettableConfig();
    props.setProperty("dyno.wire.connection.transport", "Multiplexed");
    props.setProperty("dyno.wire.connection.muxConnectionsPerNode", "2");
    props.setProperty("dyno.wire.connection.muxMaxInFlight", "8");
    props.setProperty("dyno.wire.connection.muxMaxBulkBytes", "1000");
    String big = "b".repeat(2000);
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(1)
            .nodesPerRack(1)
            .backend(Backend.MEMORY)
            .start();
        ArchaiusDynoConfig source = new ArchaiusDynoConfig(
            props, DynoConfig.builder().applicationName("wire").build())) {
      assertThat(source.unusedProperties())
          .as("dyno-core knows these are dyno-jedis' properties")
          .isEmpty();
      Registry registry = new DefaultRegistry();
      try (DynoJedisClient client = DynoJedisClient.builder()
          .hostSupplier(cluster.hostSupplier())
          .tokenMapSupplier(cluster.tokenMapSupplier())
          .localRack("rack1")
          .registry(registry)
          .config(source)
          .build()) {
        client.set("big", big);
        assertThatThrownBy(() -> client.get("big"))
            .isInstanceOf(DynoNodeFailureException.class)
            .hasMessageContaining(
                "malformed reply from " + cluster.node("rack1", 0).host());
        assertThat(registry
                .timers()
                .filter(t -> t.id().name().equals(DynoMetrics.MUX_QUEUE_DELAY))
                .count())
            .as("the multiplexed transport carried the commands")
            .isEqualTo(1);
      }
      Registry pooledRegistry = new DefaultRegistry();
      try (DynoJedisClient client = DynoJedisClient.builder()
          .hostSupplier(cluster.hostSupplier())
          .tokenMapSupplier(cluster.tokenMapSupplier())
          .localRack("rack1")
          .registry(pooledRegistry)
          .config(source)
          .transport(Transport.POOLED)
          .build()) {
        assertThat(client.get("big"))
            .as("pooled sockets: the mux bulk limit does not apply")
            .isEqualTo(big);
        assertThat(pooledRegistry
                .timers()
                .filter(t -> t.id().name().startsWith("dyno.mux."))
                .count())
            .isZero();
      }
      Registry widerRegistry = new DefaultRegistry();
      try (DynoJedisClient client = DynoJedisClient.builder()
          .hostSupplier(cluster.hostSupplier())
          .tokenMapSupplier(cluster.tokenMapSupplier())
          .localRack("rack1")
          .registry(widerRegistry)
          .config(source)
          .muxMaxBulkBytes(4096)
          .build()) {
        assertThat(client.get("big"))
            .as("the builder's bulk limit wins over the property's")
            .isEqualTo(big);
        assertThat(widerRegistry
                .timers()
                .filter(t -> t.id().name().equals(DynoMetrics.MUX_QUEUE_DELAY))
                .count())
            .isEqualTo(1);
      }
    }
  }

  @Test
  void aBadPropertyFailsTheBuildNamingItAndABadBuilderValueNamesTheSetting() {
    DefaultSettableConfig props = new DefaultSettableConfig();
    props.setProperty("dyno.badwire.connection.muxMaxInFlight", "0");
    try (ArchaiusDynoConfig source = new ArchaiusDynoConfig(
        props, DynoConfig.builder().applicationName("badwire").build())) {
      assertThatThrownBy(() -> DynoJedisClient.builder().config(source).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "property dyno.badwire.connection.muxMaxInFlight = \"0\" is invalid: expected 1..1048576"
                  + " requests (muxMaxInFlight)");
      props.setProperty("dyno.badwire.connection.muxMaxInFlight", "16");
      props.setProperty("dyno.badwire.connection.transport", "sockets");
      assertThatThrownBy(() -> DynoJedisClient.builder().config(source).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "property dyno.badwire.connection.transport = \"sockets\" is invalid: expected Pooled or"
                  + " Multiplexed (transport)");
    }
    assertThatThrownBy(() -> DynoJedisClient.builder().muxMaxInFlight(0))
        .hasMessage("muxMaxInFlight must be 1..1048576, was 0");
    assertThatThrownBy(() -> DynoJedisClient.builder().muxConnectionsPerNode(65))
        .hasMessage("muxConnectionsPerNode must be 1..64, was 65");
    assertThatThrownBy(() -> DynoJedisClient.builder().muxMaxBulkBytes(0))
        .hasMessage("muxMaxBulkBytes must be 1..536870912, was 0");
  }

  private static Map<String, List<String>> readmeRows() throws IOException {
    return ReadmeTables.settingRows("### Transport settings", 5);
  }
}
