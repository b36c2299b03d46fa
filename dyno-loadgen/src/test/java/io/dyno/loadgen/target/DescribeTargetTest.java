package io.dyno.loadgen.target;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.HostToken;
import java.util.List;
import org.junit.jupiter.api.Test;

class DescribeTargetTest {

  @Test
  void readsDynomitesShapeTakingClientPortAsPeerPortPlusOne() {
    String doc = "{\"dcs\": [{\"name\":\"dc1\",\"racks\": [{\"name\":\"rack1\",\"servers\": [\n"
        + "{\"name\":\"127.0.0.1\",\"host\":\"127.0.0.1\",\"port\":8101,\"token\":0},\n"
        + "{\"name\":\"127.0.0.1\",\"host\":\"127.0.0.1\",\"port\":8111,\"token\":2147483647}]}]}]}";
    List<HostToken> t = DescribeTarget.parse("u", doc);
    assertThat(t).extracting(HostToken::token).containsExactly(0L, 2147483647L);
    assertThat(t).extracting(x -> x.host().port()).containsExactly(8102, 8112);
    assertThat(t).extracting(x -> x.host().rack()).containsOnly("rack1");
  }

  @Test
  void readsDynomiteManagersFlatShape() {
    String doc =
        "[{\"token\":\"1383429731\",\"hostname\":\"h1\",\"ip\":\"127.0.0.1\",\"zone\":\"us-east-1c\",\"rack\":\"r\","
            + "\"dc\":\"us-east-1\",\"port\":\"8102\",\"secure_port\":\"8103\",\"hashtag\":\"{}\"}]";
    List<HostToken> t = DescribeTarget.parse("u", doc);
    assertThat(t).hasSize(1);
    assertThat(t.get(0).token()).isEqualTo(1383429731L);
    assertThat(t.get(0).host().port()).isEqualTo(8102);
    assertThat(t.get(0).host().rack()).isEqualTo("us-east-1c");
  }

  @Test
  void staticListAndBadSpecsAreExplained() {
    StaticTarget s = StaticTarget.parse("127.0.0.1:8102:rack1:0,127.0.0.1:8112:rack2:0:dc2");
    assertThat(s.hosts()).extracting(h -> h.datacenter()).containsExactly("dc1", "dc2");
    assertThatThrownBy(() -> StaticTarget.parse("127.0.0.1:8102"))
        .hasMessageContaining("127.0.0.1:8102")
        .hasMessageContaining("host:port:rack:token");
    assertThatThrownBy(() -> Target.parse("redis://x")).hasMessageContaining("redis://x");
    assertThatThrownBy(() -> DescribeTarget.parse("http://x/cluster_describe", "{\"dcs\": 3}"))
        .hasMessageContaining("http://x/cluster_describe");
  }
}
