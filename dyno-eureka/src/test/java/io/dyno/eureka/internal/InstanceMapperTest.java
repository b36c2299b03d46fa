package io.dyno.eureka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.Host;
import io.dyno.core.internal.json.Json;
import org.junit.jupiter.api.Test;

/** The encodings older Eureka servers used, which the current server no longer produces. */
class InstanceMapperTest {
  private final InstanceMapper mapper = new InstanceMapper(new InstanceMapper.Settings(
      -1,
      "dynomite_port",
      "dynomite_secure_port",
      "datastore_port",
      "rack",
      "datacenter",
      null,
      "dc1"));

  @Test
  void singleInstanceAsABareObjectWithStringPortsIsRead() {
    InstanceMapper.Result r = mapper.map(Json.parse("""
        {"application":{"name":"DYNOMITE","instance":{"hostName":"h1","ipAddr":"10.0.0.1","status":"UP",
          "port":{"$":"8102","@enabled":true},"securePort":{"$":"8103","@enabled":"true"},
          "dataCenterInfo":{"name":"Amazon","metadata":{"availability-zone":"us-west-2b"}}}}}
        """), "DYNOMITE");
    assertThat(r.skipped()).isEmpty();
    Host h = r.hosts().get(0);
    assertThat(h.id()).isEqualTo("10.0.0.1:8102");
    assertThat(h.securePort()).isEqualTo(8103);
    assertThat(h.rack()).isEqualTo("us-west-2b");
    assertThat(h.datacenter()).isEqualTo("us-west-2");
  }

  @Test
  void applicationWithoutInstancesIsEmpty() {
    assertThat(mapper
            .map(Json.parse("{\"application\":{\"name\":\"DYNOMITE\"}}"), "DYNOMITE")
            .hosts())
        .isEmpty();
  }

  @Test
  void instanceWithoutAddressIsSkippedWithAReason() {
    InstanceMapper.Result r = mapper.map(
        Json.parse(
            "{\"application\":{\"instance\":[{\"instanceId\":\"x1\",\"port\":{\"$\":8102}}]}}"),
        "DYNOMITE");
    assertThat(r.hosts()).isEmpty();
    assertThat(r.skipped())
        .containsExactly("application DYNOMITE instance 'x1': has neither hostName nor ipAddr");
  }

  @Test
  void instanceArrayOfTheWrongTypeIsAnError() {
    assertThatThrownBy(
            () -> mapper.map(Json.parse("{\"application\":{\"instance\":\"none\"}}"), "DYNOMITE"))
        .hasMessageContaining("\"application.instance\" to be an array but found a string");
  }

  @Test
  void regionIsTheZoneWithoutItsLetter() {
    assertThat(InstanceMapper.regionOf("us-east-1c")).isEqualTo("us-east-1");
    assertThat(InstanceMapper.regionOf("rack1")).isNull();
    assertThat(InstanceMapper.regionOf("ab")).isNull();
    assertThat(InstanceMapper.regionOf(null)).isNull();
  }
}
