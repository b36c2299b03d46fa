package io.dyno.recipes.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.Host;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class VoterSelectionTest {

  private static Host host(String rack, int port) {
    return Host.builder("127.0.0.1", port)
        .datastorePort(port + 1000)
        .rack(rack)
        .datacenter("dc1")
        .build();
  }

  private static List<Host> cluster(int racks, int perRack) {
    List<Host> hosts = new ArrayList<>();
    for (int r = 1; r <= racks; r++) {
      for (int i = 0; i < perRack; i++) {
        hosts.add(host("rack" + r, 8000 + r * 10 + i));
      }
    }
    return hosts;
  }

  private static Map<String, Long> perRack(List<Host> voters) {
    return voters.stream().collect(Collectors.groupingBy(Host::rack, Collectors.counting()));
  }

  @Test
  void threeVotersOnThreeRacksTakeOnePerRack() {
    for (String resource : List.of("a", "orders", "user:42", "x")) {
      List<Host> voters = VoterSelection.select(cluster(3, 2), resource, 3);
      assertThat(perRack(voters))
          .containsOnly(Map.entry("rack1", 1L), Map.entry("rack2", 1L), Map.entry("rack3", 1L));
    }
  }

  @Test
  void moreVotersThanRacksAreDealtRoundRobinNeverPackedIntoOneRack() {
    List<Host> voters = VoterSelection.select(cluster(3, 3), "job", 5);
    assertThat(voters).hasSize(5).doesNotHaveDuplicates();
    assertThat(perRack(voters).values()).allMatch(n -> n <= 2).contains(1L);
    List<Host> twoRacks = VoterSelection.select(cluster(2, 3), "job", 3);
    assertThat(perRack(twoRacks).values()).containsExactlyInAnyOrder(2L, 1L);
  }

  @Test
  void choiceIsTheSameWhateverTheListOrderOrHostStatus() {
    List<Host> hosts = cluster(3, 2);
    List<Host> shuffled = new ArrayList<>(hosts);
    Collections.reverse(shuffled);
    shuffled.set(0, shuffled.get(0).withStatus(Host.Status.DOWN));
    for (String resource : List.of("a", "b", "c", "d")) {
      assertThat(VoterSelection.select(shuffled, resource, 3))
          .isEqualTo(VoterSelection.select(hosts, resource, 3));
    }
  }

  @Test
  void differentResourcesSpreadOverTheNodesOfARack() {
    List<Host> hosts = cluster(3, 2);
    long distinct = IntStream.range(0, 50)
        .mapToObj(i -> VoterSelection.select(hosts, "res-" + i, 3))
        .flatMap(List::stream)
        .distinct()
        .count();
    assertThat(distinct).isEqualTo(6);
  }

  @Test
  void fewerHostsThanWantedGivesTheLargestOddVotingSet() {
    assertThat(VoterSelection.select(cluster(2, 2), "r", 5)).hasSize(3);
    assertThat(VoterSelection.select(cluster(2, 1), "r", 3)).hasSize(1);
  }

  @Test
  void hostsWithoutDatastorePortAreRefusedWithTheirNames() {
    Host noStore =
        Host.builder("10.0.0.9", 8102).rack("rack1").datacenter("dc1").build();
    assertThatThrownBy(() -> VoterSelection.select(List.of(noStore), "orders", 3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("orders")
        .hasMessageContaining("datastorePort")
        .hasMessageContaining("10.0.0.9:8102");
  }

  @Test
  void builderRefusesAnEvenVotingSet() {
    assertThatThrownBy(() -> QuorumLock.builder().votingNodes(4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("votingNodes")
        .hasMessageContaining("4");
  }
}
