package io.dyno.core.routing.internal;

import static io.dyno.core.routing.TokenRingTopologyTest.threeRacksTwoNodes;
import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.core.Host;
import io.dyno.core.routing.KeyHasher;
import io.dyno.core.routing.LoadBalancing;
import io.dyno.core.routing.TokenRingTopology;
import io.dyno.core.routing.Topology;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RouterTest {
  private final TokenRingTopology topology = TokenRingTopology.builder()
      .tokens(threeRacksTwoNodes("dc1"))
      .localRack("r1")
      .localDatacenter("dc1")
      .build();

  @Test
  void tokenAwareRoutesToTheKeysOwners() {
    Router router = Router.create(LoadBalancing.TOKEN_AWARE);
    assertThat(router.loadBalancing()).isEqualTo(LoadBalancing.TOKEN_AWARE);
    assertThat(router.route(topology, "foo"))
        .isSameAs(topology.replicas(topology.hasher().hash("foo")));
    assertThat(router.route(topology, "bar".getBytes())).isSameAs(topology.replicas(516654467L));
  }

  @Test
  void roundRobinIgnoresTheKeyAndAlternatesOverLocalRackNodes() {
    Router router = Router.create(LoadBalancing.ROUND_ROBIN);
    Set<Host> firsts = new HashSet<>();
    for (int i = 0; i < 4; i++) {
      List<Host> hosts = router.route(topology, "same-key");
      assertThat(hosts).hasSize(6);
      assertThat(hosts.get(0).rack()).isEqualTo("r1");
      firsts.add(hosts.get(0));
    }
    assertThat(firsts).hasSize(2);
  }

  @Test
  void keylessRequestsRotateForTokenAwareToo() {
    Router router = Router.tokenAware();
    assertThat(router.routeKeyless(topology).get(0))
        .isNotEqualTo(router.routeKeyless(topology).get(0));
  }

  @Test
  void defaultRoundRobinOfOtherTopologiesPutsTheLocalRackFirst() {
    Topology plain = new Topology() {
      @Override
      public KeyHasher hasher() {
        return KeyHasher.noHashtag();
      }

      @Override
      public String localRack() {
        return "r2";
      }

      @Override
      public String localDatacenter() {
        return "dc1";
      }

      @Override
      public List<Host> hosts() {
        return topology.hosts();
      }

      @Override
      public List<Host> replicas(long hash) {
        return List.of();
      }

      @Override
      public List<TokenRange> tokenRanges() {
        return List.of();
      }

      @Override
      public long version() {
        return 1;
      }
    };
    assertThat(plain.roundRobin(0).subList(0, 2)).extracting(Host::rack).containsOnly("r2");
    assertThat(plain.roundRobin(1).get(0)).isEqualTo(plain.roundRobin(0).get(1));
  }
}
