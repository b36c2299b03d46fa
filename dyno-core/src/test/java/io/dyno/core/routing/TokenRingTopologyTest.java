package io.dyno.core.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.management.ThreadMXBean;
import io.dyno.core.Host;
import io.dyno.core.HostToken;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

public class TokenRingTopologyTest {

  static Host host(String ip, int port, String dc, String rack) {
    return Host.builder(ip, port).ipAddress(ip).datacenter(dc).rack(rack).build();
  }

  static HostToken tok(long token, Host h) {
    return new HostToken(token, h);
  }

  /** dc1 with racks r1, r2, r3 of two nodes each (tokens 0 and 2147483647), node i on 127.0.0.i. */
  public static List<HostToken> threeRacksTwoNodes(String dc) {
    List<HostToken> out = new ArrayList<>();
    int n = 1;
    for (String rack : List.of("r1", "r2", "r3")) {
      out.add(tok(0, host("127.0.0." + n++, 8102, dc, rack)));
      out.add(tok(2147483647L, host("127.0.0." + n++, 8102, dc, rack)));
    }
    return out;
  }

  @Test
  void ownershipIsPrevExclusiveTokenInclusiveWithWrapAround() {
    Host a = host("10.0.0.1", 8102, "dc1", "r1");
    Host b = host("10.0.0.2", 8102, "dc1", "r1");
    Topology t = TokenRingTopology.builder()
        .tokens(List.of(tok(0, a), tok(2147483647L, b)))
        .localRack("r1")
        .localDatacenter("dc1")
        .build();

    assertThat(t.replicas(0)).containsExactly(a); // equal to the smallest token
    assertThat(t.replicas(1)).containsExactly(b);
    assertThat(t.replicas(2147483646L)).containsExactly(b);
    assertThat(t.replicas(2147483647L)).containsExactly(b); // equal to a token: that token's node
    assertThat(t.replicas(2147483648L)).containsExactly(a); // above the largest: wraps
    assertThat(t.replicas(0xffffffffL)).containsExactly(a); // 2^32-1
  }

  @Test
  void keysLandOnTheTokensDynomiteChose() {
    Host t0 = host("10.0.0.1", 8102, "dc1", "r1");
    Host tMax = host("10.0.0.2", 8102, "dc1", "r1");
    Topology t = TokenRingTopology.builder()
        .tokens(List.of(tok(0, t0), tok(2147483647L, tMax)))
        .localRack("r1")
        .build();
    for (String k : List.of("foo", "user:1", "{user1}:d")) {
      assertThat(t.replicas(k)).as(k).containsExactly(t0);
    }
    for (String k : List.of("bar", "hello", "key:42")) {
      assertThat(t.replicas(k)).as(k).containsExactly(tMax);
      assertThat(t.replicas(k.getBytes(StandardCharsets.UTF_8))).as(k).containsExactly(tMax);
    }
    // with the {} hash tag, {user1}:d hashes as user1 (766992236) and moves to the other token
    Topology tagged = TokenRingTopology.builder()
        .tokens(List.of(tok(0, t0), tok(2147483647L, tMax)))
        .localRack("r1")
        .hasher(KeyHasher.forHashtag("{}"))
        .build();
    assertThat(tagged.replicas("{user1}:d")).containsExactly(tMax);
    assertThat(tagged.replicas("{user1}:a")).isSameAs(tagged.replicas("user1"));
  }

  @Test
  void ownershipWhenSmallestTokenIsNotZero() {
    Host a = host("10.0.0.1", 8102, "dc1", "r1");
    Host b = host("10.0.0.2", 8102, "dc1", "r1");
    Host c = host("10.0.0.3", 8102, "dc1", "r1");
    Topology t = TokenRingTopology.builder()
        .tokens(List.of(tok(3000, c), tok(1000, a), tok(2000, b)))
        .localRack("r1")
        .build();
    assertThat(t.replicas(0)).containsExactly(a); // below the smallest: the smallest
    assertThat(t.replicas(999)).containsExactly(a);
    assertThat(t.replicas(1000)).containsExactly(a);
    assertThat(t.replicas(1001)).containsExactly(b);
    assertThat(t.replicas(2000)).containsExactly(b);
    assertThat(t.replicas(2999)).containsExactly(c);
    assertThat(t.replicas(3000)).containsExactly(c);
    assertThat(t.replicas(3001)).containsExactly(a); // wraps
    assertThat(t.replicas(0xffffffffL)).containsExactly(a);
    assertThat(t.tokenRanges())
        .extracting(Topology.TokenRange::startExclusive, Topology.TokenRange::endInclusive)
        .containsExactly(
            Tuple.tuple(3000L, 1000L), Tuple.tuple(1000L, 2000L), Tuple.tuple(2000L, 3000L));
    assertThat(t.tokenRanges().get(1).replicas()).containsExactly(b);
  }

  @Test
  void singleNodeOwnsTheWholeRing() {
    Host a = host("10.0.0.1", 8102, "dc1", "r1");
    Topology t = TokenRingTopology.builder()
        .tokens(List.of(tok(12345, a)))
        .localRack("r1")
        .build();
    for (long h : new long[] {0, 12344, 12345, 12346, 0xffffffffL}) {
      assertThat(t.replicas(h)).containsExactly(a);
    }
    assertThat(t.hosts()).containsExactly(a);
    assertThat(t.tokenRanges())
        .singleElement()
        .satisfies(r -> assertThat(r.startExclusive()).isEqualTo(r.endInclusive()));
  }

  @Test
  void sixNodesLocalRackOwnerFirstThenOneOwnerPerOtherRack() {
    List<HostToken> tokens = threeRacksTwoNodes("dc1");
    TokenRingTopology t = TokenRingTopology.builder()
        .tokens(tokens)
        .localRack("r2")
        .localDatacenter("dc1")
        .build();
    assertThat(t.localRack()).isEqualTo("r2");
    assertThat(t.warnings()).isEmpty();
    assertThat(t.hosts()).hasSize(6);
    for (long hash = 0; hash < 0xffffffffL; hash += 7_777_777L) {
      List<Host> r = t.replicas(hash);
      boolean lowHalf = hash == 0 || hash > 2147483647L;
      assertThat(r).hasSize(3);
      assertThat(r.get(0).rack()).isEqualTo("r2");
      assertThat(r.get(0).address()).isEqualTo(lowHalf ? "127.0.0.3" : "127.0.0.4");
      assertThat(r.subList(1, 3)).extracting(Host::rack).containsExactlyInAnyOrder("r1", "r3");
      // every owner holds the same token
      for (Host h : r) {
        long token = tokens.stream()
            .filter(ht -> ht.host().equals(h))
            .findFirst()
            .orElseThrow()
            .token();
        assertThat(token).isEqualTo(lowHalf ? 0L : 2147483647L);
      }
    }
  }

  @Test
  void failoverLoadOfOneNodeIsSpreadOverTheOtherRacks() {
    TokenRingTopology t = TokenRingTopology.builder()
        .tokens(threeRacksTwoNodes("dc1"))
        .localRack("r1")
        .localDatacenter("dc1")
        .build();
    Map<String, Integer> secondChoice = new HashMap<>();
    KeyHasher hasher = t.hasher();
    for (int i = 0; i < 10_000; i++) {
      List<Host> r = t.replicas(hasher.hash("key:" + i));
      secondChoice.merge(r.get(1).rack(), 1, Integer::sum);
    }
    assertThat(secondChoice).containsOnlyKeys("r2", "r3");
    assertThat(secondChoice.get("r2")).isBetween(4_000, 6_000);
    assertThat(secondChoice.get("r3")).isBetween(4_000, 6_000);
  }

  @Test
  void oneNodePerRackStillSpreadsFailoverAndKeepsAStableOrderPerKey() {
    List<HostToken> tokens = new ArrayList<>();
    for (String rack : List.of("r1", "r2", "r3", "r4")) {
      tokens.add(tok(100, host("10.0.0." + rack.charAt(1), 8102, "dc1", rack)));
    }
    TokenRingTopology t = TokenRingTopology.builder()
        .tokens(tokens)
        .localRack("r1")
        .localDatacenter("dc1")
        .build();
    Map<String, Integer> secondChoice = new HashMap<>();
    for (long h = 0; h < 3000; h++) {
      secondChoice.merge(t.replicas(h).get(1).rack(), 1, Integer::sum);
      assertThat(t.replicas(h)).isSameAs(t.replicas(h));
    }
    assertThat(secondChoice).containsOnlyKeys("r2", "r3", "r4");
    assertThat(secondChoice.values()).allSatisfy(n -> assertThat(n).isEqualTo(1000));
  }

  @Test
  void multiDcOrderIsLocalRackThenSameDcThenOtherDcs() {
    List<HostToken> tokens = new ArrayList<>();
    tokens.addAll(threeRacksTwoNodes("us-east"));
    // a second DC with its own (different) token set
    int n = 11;
    for (String rack : List.of("w1", "w2")) {
      tokens.add(tok(1000, host("127.0.0." + n++, 8102, "us-west", rack)));
      tokens.add(tok(3_000_000_000L, host("127.0.0." + n++, 8102, "us-west", rack)));
      tokens.add(tok(4_000_000_000L, host("127.0.0." + n++, 8102, "us-west", rack)));
    }
    TokenRingTopology t = TokenRingTopology.builder()
        .tokens(tokens)
        .localRack("r3")
        .localDatacenter("us-east")
        .build();
    assertThat(t.hosts()).hasSize(12);
    Map<String, Integer> firstRemote = new HashMap<>();
    for (long hash = 0; hash <= 0xffffffffL; hash += 10_000_019L) {
      List<Host> r = t.replicas(hash);
      assertThat(r)
          .extracting(Host::datacenter)
          .containsExactly("us-east", "us-east", "us-east", "us-west", "us-west");
      assertThat(r.get(0).rack()).isEqualTo("r3");
      firstRemote.merge(r.get(3).rack(), 1, Integer::sum);
      // remote owner follows the remote DC's own ring
      long expectedToken = hash <= 1000 || hash > 4_000_000_000L
          ? 1000
          : hash <= 3_000_000_000L ? 3_000_000_000L : 4_000_000_000L;
      long actual = tokens.stream()
          .filter(ht -> ht.host().equals(r.get(3)))
          .findFirst()
          .orElseThrow()
          .token();
      assertThat(actual).isEqualTo(expectedToken);
    }
    assertThat(firstRemote).containsOnlyKeys("w1", "w2");
  }

  @Test
  void localDatacenterIsInferredFromAUniqueRackName() {
    TokenRingTopology t = TokenRingTopology.builder()
        .tokens(threeRacksTwoNodes("dc1"))
        .localRack("r3")
        .build();
    assertThat(t.localDatacenter()).isEqualTo("dc1");
    assertThat(t.replicas(5).get(0).rack()).isEqualTo("r3");
  }

  @Test
  void unknownLocalRackWarnsAndSpreadsEvenlyOverAllRacks() {
    TokenRingTopology t = TokenRingTopology.builder()
        .tokens(threeRacksTwoNodes("dc1"))
        .localRack("us-east-1z")
        .localDatacenter("dc1")
        .build();
    assertThat(t.localRack()).isNull();
    assertThat(t.configuredLocalRack()).isEqualTo("us-east-1z");
    assertThat(t.warnings())
        .singleElement()
        .asString()
        .contains(
            "local rack 'us-east-1z'", "dc1/r1", "dc1/r2", "dc1/r3", "spreading requests evenly");
    Map<String, Integer> first = new HashMap<>();
    for (long h = 0; h < 6000; h++) {
      List<Host> r = t.replicas("user:" + h);
      assertThat(r).extracting(Host::rack).containsExactlyInAnyOrder("r1", "r2", "r3");
      first.merge(r.get(0).rack(), 1, Integer::sum);
    }
    assertThat(first.values()).allSatisfy(n -> assertThat(n).isBetween(1_700, 2_300));
  }

  /** DynoConfig.localZoneAffinity: true tries the local rack first; false spreads over the local datacenter's racks. */
  @Test
  void withoutRackAffinityRequestsSpreadOverTheLocalDatacentersRacks() {
    List<HostToken> tokens = new ArrayList<>(threeRacksTwoNodes("dc1"));
    int n = 20;
    for (String rack : List.of("x1", "x2")) {
      tokens.add(tok(0, host("127.0.0." + n++, 8102, "dc2", rack)));
      tokens.add(tok(2147483647L, host("127.0.0." + n++, 8102, "dc2", rack)));
    }
    for (boolean affinity : List.of(true, false)) {
      TokenRingTopology t = TokenRingTopology.builder()
          .tokens(tokens)
          .localRack("r2")
          .localDatacenter("dc1")
          .rackAffinity(affinity)
          .build();
      assertThat(t.warnings()).as("affinity " + affinity).isEmpty();
      assertThat(t.localDatacenter()).isEqualTo("dc1");
      assertThat(t.localRack()).isEqualTo(affinity ? "r2" : null);
      Map<String, Integer> first = new HashMap<>();
      for (long h = 0; h < 6000; h++) {
        List<Host> r = t.replicas("user:" + h);
        // Either way the local datacenter's racks come before the other datacenter's.
        assertThat(r)
            .extracting(Host::rack)
            .containsExactlyInAnyOrder("r1", "r2", "r3", "x1", "x2");
        assertThat(r.subList(0, 3)).extracting(Host::datacenter).containsOnly("dc1");
        first.merge(r.get(0).rack(), 1, Integer::sum);
      }
      if (affinity) {
        assertThat(first).containsOnlyKeys("r2");
      } else {
        assertThat(first).containsOnlyKeys("r1", "r2", "r3");
        assertThat(first.values()).allSatisfy(c -> assertThat(c).isBetween(1_700, 2_300));
      }
    }
  }

  @Test
  void noLocalityAtAllInTwoDcsStillSpreadsOverEveryRack() {
    List<HostToken> tokens = new ArrayList<>(threeRacksTwoNodes("dc1"));
    int n = 20;
    for (String rack : List.of("x1", "x2")) {
      tokens.add(tok(0, host("127.0.0." + n++, 8102, "dc2", rack)));
      tokens.add(tok(2147483647L, host("127.0.0." + n++, 8102, "dc2", rack)));
    }
    TokenRingTopology t = TokenRingTopology.builder().tokens(tokens).build();
    assertThat(t.warnings()).singleElement().asString().contains("local rack is not configured");
    Map<String, Integer> first = new HashMap<>();
    for (long h = 0; h < 12_000; h++) {
      first.merge(t.replicas("user:" + h).get(0).rack(), 1, Integer::sum);
    }
    assertThat(first).containsOnlyKeys("r1", "r2", "r3", "x1", "x2");
  }

  @Test
  void twoProcessesOnOneMachineAreTwoNodes() {
    Host p1 = host("127.0.0.1", 8102, "dc1", "r1");
    Host p2 = host("127.0.0.1", 8112, "dc1", "r1");
    Topology t = TokenRingTopology.builder()
        .tokens(List.of(tok(0, p1), tok(2147483647L, p2)))
        .localRack("r1")
        .build();
    assertThat(t.hosts()).containsExactly(p1, p2);
    assertThat(t.replicas(5)).containsExactly(p2);
  }

  @Test
  void downNodeKeepsItsRangeButIsNotRouted() {
    List<HostToken> tokens = threeRacksTwoNodes("dc1");
    Host downOne = tokens.get(0).host(); // r1, token 0
    List<Host> hosts = new ArrayList<>();
    for (HostToken ht : tokens)
      hosts.add(ht.host().equals(downOne) ? downOne.withStatus(Host.Status.DOWN) : ht.host());
    TokenRingTopology t =
        TokenRingTopology.builder().hosts(hosts).tokens(tokens).localRack("r1").build();
    assertThat(t.hosts()).hasSize(5).doesNotContain(downOne);
    assertThat(t.downHosts()).containsExactly(downOne);
    // token 0's range: r1's owner is down, the other racks serve it; r1's other node is not asked
    assertThat(t.replicas(0))
        .hasSize(2)
        .extracting(Host::rack)
        .containsExactlyInAnyOrder("r2", "r3");
    assertThat(t.replicas(5).get(0)).isEqualTo(tokens.get(1).host());
  }

  @Test
  void theHostSourceViewIsRoutedAndTokenMapHostsAreMatchedByAddressAndPort() {
    Host fromTokens = Host.builder("127.0.0.1", 8102)
        .ipAddress("127.0.0.1")
        .datacenter("dc1")
        .rack("r1")
        .build();
    Host fromSource = Host.builder("node-a.example", 8102)
        .ipAddress("127.0.0.1")
        .datacenter("dc1")
        .rack("r1")
        .password("secret")
        .build();
    TokenRingTopology t = TokenRingTopology.builder()
        .hosts(List.of(fromSource))
        .tokens(List.of(tok(0, fromTokens)))
        .localRack("r1")
        .build();
    assertThat(t.replicas(9).get(0).password()).isEqualTo("secret");
    assertThat(t.toString()).doesNotContain("secret");
  }

  @Test
  void hostsWithoutATokenAreNamedInAWarning() {
    Host a = host("10.0.0.1", 8102, "dc1", "r1");
    Host spare = host("10.0.0.9", 8102, "dc1", "r1");
    TokenRingTopology t = TokenRingTopology.builder()
        .hosts(List.of(a, spare))
        .tokens(List.of(tok(0, a)))
        .localRack("r1")
        .build();
    assertThat(t.hosts()).containsExactly(a);
    assertThat(t.warnings())
        .anySatisfy(w -> assertThat(w).contains("without a token", "10.0.0.9:8102"));
  }

  @Test
  void refusesATopologyWithoutNodes() {
    assertThatThrownBy(
            () -> TokenRingTopology.builder().hosts(List.of()).tokens(List.of()).build())
        .isInstanceOf(TopologyException.class)
        .hasMessageContaining("no nodes");
  }

  @Test
  void refusesTokenMapNodesTheHostSourceDoesNotKnow() {
    Host known = host("10.0.0.1", 8102, "dc1", "r1");
    Host stranger = host("10.0.0.7", 8102, "dc1", "r1");
    assertThatThrownBy(() -> TokenRingTopology.builder()
            .hosts(List.of(known))
            .tokens(List.of(tok(0, known), tok(5, stranger)))
            .build())
        .isInstanceOf(TopologyException.class)
        .hasMessageContaining("does not know")
        .hasMessageContaining("10.0.0.7:8102")
        .hasMessageContaining("knows [10.0.0.1:8102");
  }

  @Test
  void refusesARackWhoseTokensDifferFromItsDatacenter() {
    List<HostToken> tokens = new ArrayList<>(threeRacksTwoNodes("dc1"));
    Host odd = tokens.get(5).host();
    tokens.set(5, tok(2147483000L, odd));
    assertThatThrownBy(() -> TokenRingTopology.builder().tokens(tokens).build())
        .isInstanceOf(TopologyException.class)
        .hasMessageContaining("racks of datacenter dc1 must hold the same tokens")
        .hasMessageContaining("rack r3 has [127.0.0.5:8102@0, 127.0.0.6:8102@2147483000]")
        .hasMessageContaining("rack r1 has [127.0.0.1:8102@0, 127.0.0.2:8102@2147483647]");
  }

  @Test
  void refusesTwoNodesWithTheSameTokenInOneRack() {
    Host a = host("10.0.0.1", 8102, "dc1", "r1");
    Host b = host("10.0.0.2", 8102, "dc1", "r1");
    assertThatThrownBy(() ->
            TokenRingTopology.builder().tokens(List.of(tok(7, a), tok(7, b))).build())
        .isInstanceOf(TopologyException.class)
        .hasMessageContaining("10.0.0.1:8102")
        .hasMessageContaining("10.0.0.2:8102")
        .hasMessageContaining("same token 7");
  }

  @Test
  void refusesANodeWithTwoTokens() {
    Host a = host("10.0.0.1", 8102, "dc1", "r1");
    assertThatThrownBy(() ->
            TokenRingTopology.builder().tokens(List.of(tok(7, a), tok(9, a))).build())
        .isInstanceOf(TopologyException.class)
        .hasMessageContaining("10.0.0.1:8102")
        .hasMessageContaining("tokens 7 and 9");
  }

  @Test
  void roundRobinRotatesTheLocalRackThenTheOthers() {
    TokenRingTopology t = TokenRingTopology.builder()
        .tokens(threeRacksTwoNodes("dc1"))
        .localRack("r2")
        .build();
    List<Host> first = t.roundRobin(0);
    List<Host> second = t.roundRobin(1);
    assertThat(first).hasSize(6);
    assertThat(first.subList(0, 2)).extracting(Host::rack).containsOnly("r2");
    assertThat(first.get(0)).isNotEqualTo(second.get(0));
    assertThat(second.get(0)).isEqualTo(first.get(1));
    assertThat(t.roundRobin(2)).isSameAs(first);
    assertThat(t.roundRobin(-1)).isSameAs(second);
  }

  @Test
  void sameLayoutIgnoresVersionButSeesStatusAndTokenChanges() {
    List<HostToken> tokens = threeRacksTwoNodes("dc1");
    TokenRingTopology a =
        TokenRingTopology.builder().tokens(tokens).localRack("r1").version(1).build();
    TokenRingTopology b =
        TokenRingTopology.builder().tokens(tokens).localRack("r1").version(2).build();
    assertThat(a.sameLayout(b)).isTrue();
    List<Host> hosts = new ArrayList<>();
    tokens.forEach(ht -> hosts.add(ht.host()));
    hosts.set(0, hosts.get(0).withStatus(Host.Status.DOWN));
    TokenRingTopology c =
        TokenRingTopology.builder().hosts(hosts).tokens(tokens).localRack("r1").build();
    assertThat(a.sameLayout(c)).isFalse();
  }

  @Test
  void replicasIsAllocationFree() {
    TokenRingTopology t = TokenRingTopology.builder()
        .tokens(threeRacksTwoNodes("dc1"))
        .localRack("r1")
        .build();
    String key = "0123456789abcdef";
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().getId();
    long sink = 0;
    for (int i = 0; i < 20_000; i++) { // warm up
      sink += t.replicas(key).size() + t.replicas(bytes).size();
    }
    long before = mx.getThreadAllocatedBytes(tid);
    for (int i = 0; i < 100_000; i++) {
      sink += t.replicas(key).size() + t.replicas(bytes).size();
    }
    long allocated = mx.getThreadAllocatedBytes(tid) - before;
    assertThat(sink).isEqualTo(120_000L * 3 * 2);
    assertThat(allocated).as("bytes allocated by 200k lookups").isLessThan(10_000);
  }

  @Test
  void emptyTopologyHasNoReplicas() {
    Topology t = TokenRingTopology.empty(KeyHasher.noHashtag(), "r1", "dc1");
    assertThat(t.replicas("k")).isEmpty();
    assertThat(t.hosts()).isEmpty();
    assertThat(t.version()).isZero();
    assertThat(t.roundRobin(3)).isEmpty();
  }
}
