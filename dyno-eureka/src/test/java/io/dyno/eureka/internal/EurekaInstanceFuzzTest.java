package io.dyno.eureka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dyno.core.Host;
import io.dyno.core.internal.json.Json;
import io.dyno.core.internal.json.JsonException;
import java.nio.charset.StandardCharsets;

/**
 * Eureka's answer for one application, fuzzed, through dyno-core's JSON reader and the instance
 * mapping. Property: a typed error naming what is wrong with the document, or hosts that are all
 * usable plus one reason per instance skipped; never another exception.
 * Seeds: documents as Eureka servers send them (EurekaInstanceFuzzTestInputs).
 */
class EurekaInstanceFuzzTest {
  private static final InstanceMapper MAPPER = new InstanceMapper(new InstanceMapper.Settings(
      -1,
      "dynomite_port",
      "dynomite_secure_port",
      "datastore_port",
      "rack",
      "datacenter",
      null,
      null));

  @FuzzTest(maxDuration = "10s")
  void eurekaApplication(byte[] data) {
    Object doc;
    try {
      doc = Json.parse(new String(data, StandardCharsets.UTF_8));
    } catch (JsonException e) {
      return;
    }
    InstanceMapper.Result r;
    try {
      r = MAPPER.map(doc, "DYNOMITE");
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).contains("expected");
      return;
    }
    for (Host h : r.hosts()) {
      assertThat(h.port()).isBetween(1, 65535);
      assertThat(h.hostname()).isNotBlank();
      assertThat(h.rack()).isNotBlank();
      assertThat(h.datacenter()).isNotBlank();
    }
    for (String reason : r.skipped()) {
      assertThat(reason).startsWith("application DYNOMITE instance ");
    }
    assertThat(r.hosts().stream().map(Host::id).distinct().count())
        .isEqualTo(r.hosts().size());
  }
}
