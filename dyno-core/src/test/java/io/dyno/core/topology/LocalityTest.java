package io.dyno.core.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LocalityTest {

  @Test
  void configurationWinsOverEnvironment() {
    Map<String, String> env = Map.of("LOCAL_RACK", "env-rack", "LOCAL_DATACENTER", "env-dc");
    assertThat(Locality.resolve("conf-rack", "conf-dc", env::get))
        .isEqualTo(new Locality("conf-rack", "conf-dc"));
  }

  @Test
  void localVariablesComeBeforeEc2Ones() {
    Map<String, String> env = Map.of(
        "LOCAL_RACK",
        "rack-a",
        "EC2_AVAILABILITY_ZONE",
        "us-east-1c",
        "LOCAL_DATACENTER",
        "dc-a",
        "EC2_REGION",
        "us-east-1");
    assertThat(Locality.resolve(null, " ", env::get)).isEqualTo(new Locality("rack-a", "dc-a"));
  }

  @Test
  void ec2VariablesAreTheLastDefault() {
    Map<String, String> env =
        Map.of("LOCAL_RACK", "", "EC2_AVAILABILITY_ZONE", "us-east-1c", "EC2_REGION", "us-east-1");
    assertThat(Locality.resolve(null, null, env::get))
        .isEqualTo(new Locality("us-east-1c", "us-east-1"));
  }

  @Test
  void nothingKnownStaysUnknown() {
    assertThat(Locality.resolve(null, null, k -> null)).isEqualTo(new Locality(null, null));
  }
}
