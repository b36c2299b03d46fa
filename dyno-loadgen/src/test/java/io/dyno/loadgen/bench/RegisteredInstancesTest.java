package io.dyno.loadgen.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RegisteredInstancesTest {
  private final RegisteredInstances instances = new RegisteredInstances(HttpClient.newHttpClient());

  @Test
  void aRegistrationNeedsANameAndAnHttpUrl() {
    assertThatThrownBy(() -> instances.register(Map.of("name", "a")))
        .hasMessageStartingWith("register needs name=<instance name>&url=");
    assertThatThrownBy(() -> instances.register(Map.of("name", "a", "url", "ftp://x")))
        .hasMessageStartingWith("register needs");
    assertThatThrownBy(
            () -> instances.register(Map.of("name", "a", "url", "http://x", "final", "not json")))
        .hasMessageStartingWith("final: not a status document");
  }

  @Test
  void theSumAddsTheInstancesFinalFiguresToTheConsolesOwn() {
    instances.register(Map.of(
        "name", "a",
        "url", "http://127.0.0.1:1",
        "final",
            "{\"state\":\"stopped\",\"totals\":{\"reads\":10,\"writes\":5,\"errors\":1},"
                + "\"last\":{\"seconds\":2,\"reads\":300,\"writes\":100}}"));
    instances.register(Map.of("name", "b", "url", "http://127.0.0.1:2"));
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("totals", Map.of("reads", 100L, "writes", 50L, "errors", 0L));

    instances.addTo(status, true);

    assertThat(instances.names()).containsExactlyInAnyOrder("a", "b");
    assertThat((Map<String, Object>) status.get("sum"))
        .containsEntry("reads", 110L)
        .containsEntry("writes", 55L)
        .containsEntry("errors", 1L)
        .containsEntry("opsPerSec", 200.0)
        .containsEntry("instances", 3);
    List<Map<String, Object>> rows = (List<Map<String, Object>>) status.get("instances");
    assertThat(rows)
        .extracting(r -> r.get("name") + ":" + r.get("state") + ":" + r.get("finished"))
        .containsExactlyInAnyOrder("a:stopped:true", "b:?:false");
  }

  @Test
  void noInstancesLeaveTheStatusAsItIs() {
    Map<String, Object> status = new LinkedHashMap<>();
    instances.addTo(status, true);
    assertThat(status).isEmpty();
    assertThat(instances.forward("/set", Map.of(), "nobody")).isNull();
    assertThat(instances.forward("/set", Map.of(), "all")).isEmpty();
  }
}
