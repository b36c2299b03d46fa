package io.dyno.core.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.internal.json.JsonException;
import org.junit.jupiter.api.Test;

class ClusterDescriptionTest {

  @Test
  void readsDynomitesNestedShapeAndDerivesClientPortFromPeerPort() {
    assertThat(Samples.DYNOMITE).contains("\n");
    ClusterDescription d = ClusterDescription.parse(Samples.DYNOMITE);
    assertThat(d.shape()).isEqualTo(ClusterDescription.Shape.DYNOMITE);
    assertThat(d.hashtag()).isNull();
    assertThat(d.hostTokens())
        .extracting(ht -> ht.host().id() + " " + ht.host().datacenter() + "/"
            + ht.host().rack() + " " + ht.token())
        .containsExactly(
            "127.0.0.1:8102 dc1/rack1 0",
            "127.0.0.1:8112 dc1/rack1 2147483647",
            "127.0.0.1:8122 dc1/rack2 0",
            "127.0.0.1:8132 dc1/rack2 2147483647");
    assertThat(d.hostTokens())
        .allSatisfy(ht -> assertThat(ht.host().status()).isEqualTo(Host.Status.UP));
  }

  @Test
  void clientPortRuleCanBeOverridden() {
    ClusterDescription d = ClusterDescription.parse(Samples.DYNOMITE, peer -> peer + 1000);
    assertThat(d.hostTokens())
        .extracting(ht -> ht.host().port())
        .containsExactly(9101, 9111, 9121, 9131);
  }

  @Test
  void readsDynomiteManagersFlatShapeWithZoneAsRack() {
    assertThat(Samples.MANAGER).contains("\n");
    ClusterDescription d = ClusterDescription.parse(Samples.MANAGER);
    assertThat(d.shape()).isEqualTo(ClusterDescription.Shape.DYNOMITE_MANAGER);
    assertThat(d.hashtag()).isEqualTo("{}");
    HostToken first = d.hostTokens().get(0);
    assertThat(first.token()).isEqualTo(1383429731L);
    assertThat(first.host().hostname()).isEqualTo("ec2-54-1-1-1.compute-1.amazonaws.com");
    assertThat(first.host().address()).isEqualTo("10.0.1.11");
    assertThat(first.host().port()).isEqualTo(8102);
    assertThat(first.host().securePort()).isEqualTo(8103);
    assertThat(first.host().rack()).isEqualTo("us-east-1c");
    assertThat(first.host().datacenter()).isEqualTo("us-east-1");
    assertThat(d.hostTokens())
        .extracting(ht -> ht.host().rack())
        .containsExactly("us-east-1c", "us-east-1c", "us-east-1d", "us-east-1d");
  }

  @Test
  void emptyInputsAreRefusedClearly() {
    assertThatThrownBy(() -> ClusterDescription.parse(""))
        .isInstanceOf(JsonException.class)
        .hasMessageContaining("empty JSON");
    assertThatThrownBy(() -> ClusterDescription.parse("[]")).hasMessageContaining("lists no nodes");
    assertThatThrownBy(() -> ClusterDescription.parse("{\"dcs\": []}"))
        .hasMessageContaining("lists no nodes");
    assertThatThrownBy(() -> ClusterDescription.parse("\"OK\""))
        .hasMessageContaining("must be an object with \"dcs\"");
  }

  @Test
  void truncatedDocumentNamesThePosition() {
    String truncated = Samples.DYNOMITE.substring(0, Samples.DYNOMITE.length() / 2);
    assertThatThrownBy(() -> ClusterDescription.parse(truncated))
        .isInstanceOf(JsonException.class)
        .hasMessageContaining("invalid JSON at offset")
        .hasMessageContaining("line 2");
  }

  @Test
  void partialEntriesNameTheFieldAndTheEntry() {
    assertThatThrownBy(() -> ClusterDescription.parse("{\"dcs\":[{\"name\":\"dc1\"}]}"))
        .hasMessageContaining("dcs[0]: \"racks\" must be an array but is missing");
    assertThatThrownBy(
            () -> ClusterDescription.parse(
                "{\"dcs\":[{\"name\":\"dc1\",\"racks\":[{\"name\":\"r1\",\"servers\":[{\"host\":\"10.0.0.1\",\"port\":8101}]}]}]}"))
        .hasMessageContaining("dcs[0].racks[0].servers[0]: \"token\" is missing");
    assertThatThrownBy(
            () -> ClusterDescription.parse(
                "{\"dcs\":[{\"name\":\"dc1\",\"racks\":[{\"name\":\"r1\",\"servers\":[{\"host\":\"10.0.0.1\",\"port\":8101,\"token\":-5}]}]}]}"))
        .hasMessageContaining("\"token\" must be an unsigned 32-bit integer but is -5");
    assertThatThrownBy(
            () -> ClusterDescription.parse(
                "[{\"token\":\"12\",\"ip\":\"10.0.0.1\",\"zone\":\"z\",\"dc\":\"d\",\"port\":\"eighty\"}]"))
        .hasMessageContaining("[0] (10.0.0.1): \"port\" must be an integer but is \"eighty\"");
    assertThatThrownBy(() -> ClusterDescription.parse(
            "[{\"token\":\"12\",\"ip\":\"10.0.0.1\",\"dc\":\"d\",\"port\":\"8102\"}]"))
        .hasMessageContaining("[0] (10.0.0.1): \"zone\" is missing");
    assertThatThrownBy(() -> ClusterDescription.parse(
            "[{\"token\":\"12\",\"zone\":\"z\",\"dc\":\"d\",\"port\":\"8102\"}]"))
        .hasMessageContaining("needs \"ip\" or \"hostname\"");
    assertThatThrownBy(
            () -> ClusterDescription.parse(
                "[{\"token\":\"4294967296\",\"ip\":\"10.0.0.1\",\"zone\":\"z\",\"dc\":\"d\",\"port\":\"8102\"}]"))
        .hasMessageContaining("unsigned 32-bit");
    assertThatThrownBy(() -> ClusterDescription.parse(
            "[{\"token\":true,\"ip\":\"10.0.0.1\",\"zone\":\"z\",\"dc\":\"d\",\"port\":\"8102\"}]"))
        .hasMessageContaining("\"token\" must be a string or an integer but is a boolean");
  }

  @Test
  void derivedClientPortOutOfRangeIsRefused() {
    String doc =
        "{\"dcs\":[{\"name\":\"dc1\",\"racks\":[{\"name\":\"r1\",\"servers\":[{\"host\":\"10.0.0.1\",\"port\":65535,\"token\":1}]}]}]}";
    assertThatThrownBy(() -> ClusterDescription.parse(doc))
        .hasMessageContaining("client port 65536 derived from peer port 65535");
  }
}
