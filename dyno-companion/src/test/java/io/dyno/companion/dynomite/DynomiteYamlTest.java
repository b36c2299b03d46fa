package io.dyno.companion.dynomite;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class DynomiteYamlTest {
  @Test
  void writesEveryListenerOnLoopbackWithTheSeedsInDynomitesFormat() {
    String yaml = DynomiteYaml.of(
        new DynomiteYaml.Node("dc1", "rack2", 2147483647L, 8102, 8101, 22222, 22122),
        List.of(
            new DynomiteYaml.Seed(8111, "rack1", "dc1", 0),
            new DynomiteYaml.Seed(8121, "rack3", "dc1", 2147483647L)),
        "{}",
        500);

    assertThat(yaml)
        .startsWith("dyn_o_mite:\n")
        .contains(
            "  datacenter: dc1\n",
            "  rack: rack2\n",
            "  listen: 127.0.0.1:8102\n",
            "  dyn_listen: 127.0.0.1:8101\n",
            "  stats_listen: 127.0.0.1:22222\n",
            "  dyn_seed_provider: simple_provider\n",
            "  dyn_seeds:\n  - 127.0.0.1:8111:rack1:dc1:0\n  - 127.0.0.1:8121:rack3:dc1:2147483647\n",
            "  tokens: '2147483647'\n",
            "  servers:\n  - 127.0.0.1:22122:1\n",
            "  data_store: 0\n",
            "  hash_tag: \"{}\"\n");
    assertThat(yaml).doesNotContain("0.0.0.0");
  }

  @Test
  void aSingleNodeHasNoSeedListAndNoHashtagUnlessGiven() {
    String yaml =
        DynomiteYaml.of(new DynomiteYaml.Node("dc1", "rack1", 0, 1, 2, 3, 4), List.of(), null, 500);

    assertThat(yaml)
        .doesNotContain("dyn_seeds")
        .doesNotContain("hash_tag")
        .contains("  tokens: '0'\n");
  }
}
