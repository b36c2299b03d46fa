package io.dyno.core.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.routing.KeyHasher;
import io.dyno.core.routing.TokenRingTopology;
import io.dyno.core.routing.Topology;
import io.dyno.core.testing.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TopologyRefresherTest {
  private static final Duration PERIOD = TopologyRefresher.DEFAULT_PERIOD;

  private final ManualScheduler scheduler = new ManualScheduler();
  private final RecordingReport report = new RecordingReport();
  private final List<Topology[]> changes = new CopyOnWriteArrayList<>();
  private DescribeServer server;
  private ClusterDescribeTokenMapSupplier supplier;
  private TopologyRefresher refresher;

  @BeforeEach
  void setUp() throws Exception {
    server = new DescribeServer(
        "/cluster_describe",
        Samples.dynomite("dc1", new String[] {"rack1"}, new int[][] {{8101, 8111}}));
    supplier = ClusterDescribeTokenMapSupplier.builder().endpoint(server.url()).build();
  }

  @AfterEach
  void tearDown() {
    if (refresher != null) refresher.close();
    supplier.close();
    server.close();
  }

  private TopologyRefresher refresher(String localRack) {
    refresher = TopologyRefresher.builder()
        .topologySupplier(supplier)
        .locality(new Locality(localRack, "dc1"))
        .scheduler(scheduler)
        .listener((previous, current) -> changes.add(new Topology[] {previous, current}))
        .report(report)
        .build();
    return refresher;
  }

  private static List<String> ids(List<Host> hosts) {
    return hosts.stream().map(Host::id).toList();
  }

  /** The refresher passes DynoConfig's localZoneAffinity on to every snapshot it builds. */
  @Test
  void rackAffinityReachesEverySnapshot() {
    List<HostToken> tokens = new ArrayList<>();
    for (String rack : List.of("r1", "r2")) {
      Host h = Host.builder("10.0.1." + (rack.equals("r1") ? 1 : 2), 8102)
          .rack(rack)
          .datacenter("dc1")
          .build();
      tokens.add(new HostToken(0, h));
    }
    for (boolean affinity : List.of(true, false)) {
      try (TopologyRefresher r = TopologyRefresher.builder()
          .hostSupplier(() -> tokens.stream().map(HostToken::host).toList())
          .tokenMapSupplier(hosts -> List.copyOf(tokens))
          .locality(new Locality("r1", "dc1"))
          .rackAffinity(affinity)
          .scheduler(scheduler)
          .report(report)
          .build()) {
        assertThat(r.start().healthy()).isTrue();
        Set<String> firstRacks = new HashSet<>();
        for (int k = 0; k < 200; k++) {
          firstRacks.add(r.current().replicas("k" + k).get(0).rack());
        }
        assertThat(firstRacks)
            .as("affinity " + affinity)
            .isEqualTo(affinity ? Set.of("r1") : Set.of("r1", "r2"));
        assertThat(r.refreshNow().healthy()).isTrue();
        assertThat(r.current().localRack()).isEqualTo(affinity ? "r1" : null);
      }
    }
  }

  @Test
  void startReadsTheTopologyThenRefreshesEveryPeriod() {
    RefreshStatus first = refresher("rack1").start();
    assertThat(first.healthy()).isTrue();
    assertThat(first.version()).isEqualTo(1);
    assertThat(ids(refresher.current().hosts()))
        .containsExactly("127.0.0.1:8102", "127.0.0.1:8112");
    assertThat(changes).hasSize(1);
    assertThat(changes.get(0)[0].version()).isZero();

    scheduler.advance(PERIOD.minusSeconds(1));
    assertThat(server.requests()).isEqualTo(1);
    scheduler.advance(Duration.ofSeconds(1));
    assertThat(server.requests())
        .as("tokens re-read even though nothing changed")
        .isEqualTo(2);
    assertThat(refresher.status().attempts()).isEqualTo(2);
    assertThat(refresher.current().version()).as("same layout: no swap").isEqualTo(1);
    assertThat(changes).hasSize(1);
  }

  @Test
  void refreshObserversAreToldEveryOutcomeFailedOrNot() throws Exception {
    List<Boolean> outcomes = new CopyOnWriteArrayList<>();
    refresher("rack1").addRefreshObserver(status -> outcomes.add(status.healthy()));
    refresher.addRefreshObserver(status -> {
      throw new IllegalStateException("a broken observer must not stop the others");
    });
    refresher.start();
    scheduler.advance(PERIOD);
    server.goDown();
    scheduler.advance(PERIOD);

    assertThat(outcomes).containsExactly(true, true, false);
    assertThat(refresher.current().hosts()).as("the failure kept the topology").hasSize(2);
  }

  @Test
  void nodeAddedBecomesRoutableAndListenersAreTold() {
    refresher("rack1").start();
    Topology v1 = refresher.current();
    server.serve(Samples.dynomite("dc1", new String[] {"rack1"}, new int[][] {{8101, 8111, 8121}}));

    scheduler.advance(PERIOD);

    Topology v2 = refresher.current();
    assertThat(v2.version()).isEqualTo(2);
    assertThat(ids(v2.hosts()))
        .containsExactly("127.0.0.1:8102", "127.0.0.1:8112", "127.0.0.1:8122");
    assertThat(changes).hasSize(2);
    assertThat(changes.get(1)[0]).isSameAs(v1);
    assertThat(changes.get(1)[1]).isSameAs(v2);
    // tokens 0, 1431655765, 2863311530: the new node owns (1431655765, 2863311530]
    assertThat(v2.replicas(2863311530L).get(0).id()).isEqualTo("127.0.0.1:8122");
    assertThat(v2.replicas(2863311531L).get(0).id()).isEqualTo("127.0.0.1:8102");
  }

  @Test
  void nodeRemovedStopsBeingRouted() {
    server.serve(Samples.dynomite("dc1", new String[] {"rack1"}, new int[][] {{8101, 8111, 8121}}));
    refresher("rack1").start();
    server.serve(Samples.dynomite("dc1", new String[] {"rack1"}, new int[][] {{8101, 8111}}));

    refresher.refreshNow();

    Topology t = refresher.current();
    assertThat(ids(t.hosts())).containsExactly("127.0.0.1:8102", "127.0.0.1:8112");
    for (long h = 0; h <= 0xffffffffL; h += 100_000_007L) {
      assertThat(t.replicas(h).get(0).id()).isNotEqualTo("127.0.0.1:8122");
    }
  }

  @Test
  void rackAddedLaterBecomesRoutableAndTheLocalRackTakesOver() {
    refresher("rack2").start();
    assertThat(refresher.current().localRack()).as("rack2 does not exist yet").isNull();
    assertThat(report.warnings)
        .anySatisfy(w -> assertThat(w).contains("local rack 'rack2'", "spreading requests evenly"));
    int warningsBefore = report.warnings.size();
    scheduler.advance(PERIOD);
    assertThat(report.warnings)
        .as("the unknown-rack warning is not repeated every period")
        .hasSize(warningsBefore);

    server.serve(Samples.dynomite(
        "dc1", new String[] {"rack1", "rack2"}, new int[][] {{8101, 8111}, {8201, 8211}}));
    scheduler.advance(PERIOD);

    Topology t = refresher.current();
    assertThat(t.localRack()).isEqualTo("rack2");
    assertThat(t.hosts()).hasSize(4);
    List<Host> replicas = t.replicas(KeyHasher.noHashtag().hash("foo"));
    assertThat(replicas).extracting(Host::rack).containsExactly("rack2", "rack1");
    assertThat(replicas.get(0).id()).isEqualTo("127.0.0.1:8202"); // foo -> token 0
  }

  @Test
  void endpointDownKeepsTheTopologyReportsOnceAndRecovers() throws Exception {
    refresher("rack1").start();
    Topology good = refresher.current();

    server.goDown();
    scheduler.advance(PERIOD);
    scheduler.advance(PERIOD);
    scheduler.advance(PERIOD);

    assertThat(refresher.current()).isSameAs(good);
    RefreshStatus down = refresher.status();
    assertThat(down.healthy()).isFalse();
    assertThat(down.consecutiveFailures()).isEqualTo(3);
    assertThat(down.version()).isEqualTo(1);
    assertThat(down.lastError()).contains(server.url(), "ConnectException");
    assertThat(down.lastSuccessNanos()).isZero(); // the start, at manual time 0
    assertThat(report.warnings)
        .filteredOn(w -> w.contains("refresh failed"))
        .singleElement()
        .asString()
        .contains("keeping topology v1 (2 nodes)", "ConnectException");

    server.comeBack();
    server.serve(Samples.dynomite("dc1", new String[] {"rack1"}, new int[][] {{8101, 8111, 8121}}));
    scheduler.advance(PERIOD);

    RefreshStatus back = refresher.status();
    assertThat(back.healthy()).isTrue();
    assertThat(back.lastError()).isNull();
    assertThat(back.failures()).isEqualTo(3);
    assertThat(back.lastSuccessNanos()).isEqualTo(PERIOD.multipliedBy(4).toNanos());
    assertThat(refresher.current().hosts()).hasSize(3);
    assertThat(report.infos)
        .filteredOn(i -> i.contains("recovered"))
        .singleElement()
        .asString()
        .contains("after 3 failed attempt(s)");

    server.goDown();
    scheduler.advance(PERIOD);
    assertThat(report.warnings)
        .as("a new outage is reported again")
        .filteredOn(w -> w.contains("refresh failed"))
        .hasSize(2);
  }

  @Test
  void malformedEmptyAndPartialDocumentsKeepThePreviousTopology() {
    refresher("rack1").start();
    Topology good = refresher.current();
    String truncated = Samples.DYNOMITE.substring(0, 120);
    for (String bad : List.of(
        truncated,
        "",
        "[]",
        "{\"dcs\": [{\"name\":\"dc1\",\"racks\": [{\"name\":\"rack1\"}]}]}",
        "<html>502 Bad Gateway</html>")) {
      server.serve(bad);
      RefreshStatus s = refresher.refreshNow();
      assertThat(s.healthy()).as(bad).isFalse();
      assertThat(refresher.current()).as(bad).isSameAs(good);
    }
    // A page that is not JSON at all is named as such (it used to read "invalid JSON at offset 0").
    assertThat(refresher.status().lastError())
        .contains("HTTP 200 with \"502 Bad Gateway\", not a cluster description");
    assertThat(report.warnings)
        .filteredOn(w -> w.contains("refresh failed"))
        .singleElement()
        .asString()
        .contains("invalid JSON at offset 120", "line 1");
  }

  @Test
  void unservableTopologyIsRefusedWithTheHostsNamedAndThePreviousKept() {
    refresher("rack1").start();
    Topology good = refresher.current();
    // rack2 holds a different token set than rack1
    server.serve("""
        {"dcs": [{"name":"dc1","racks": [{"name":"rack1","servers": [{"name":"127.0.0.1","host":"127.0.0.1","port":8101,"token":0},
        {"name":"127.0.0.1","host":"127.0.0.1","port":8111,"token":2147483647}]},
        {"name":"rack2","servers": [{"name":"127.0.0.1","host":"127.0.0.1","port":8201,"token":5}]}]}]}
        """);
    RefreshStatus s = refresher.refreshNow();
    assertThat(s.healthy()).isFalse();
    assertThat(s.lastError())
        .contains("racks of datacenter dc1 must hold the same tokens", "127.0.0.1:8202@5");
    assertThat(refresher.current()).isSameAs(good);
  }

  @Test
  void separateSourcesTokenMapNodeUnknownToHostsIsRefused() {
    Host a = Host.builder("10.0.0.1", 8102).rack("r1").datacenter("dc1").build();
    Host b = Host.builder("10.0.0.2", 8102).rack("r1").datacenter("dc1").build();
    List<Host> hostView = new ArrayList<>(List.of(a, b));
    List<HostToken> tokenView =
        new ArrayList<>(List.of(new HostToken(0, a), new HostToken(100, b)));
    refresher = TopologyRefresher.builder()
        .hostSupplier(() -> List.copyOf(hostView))
        .tokenMapSupplier(hosts -> List.copyOf(tokenView))
        .locality(new Locality("r1", "dc1"))
        .scheduler(scheduler)
        .report(report)
        .build();
    assertThat(refresher.start().healthy()).isTrue();

    Host c = Host.builder("10.0.0.3", 8102).rack("r1").datacenter("dc1").build();
    tokenView.add(new HostToken(200, c));
    RefreshStatus s = refresher.refreshNow();
    assertThat(s.lastError()).contains("does not know", "10.0.0.3:8102");
    assertThat(refresher.current().hosts()).hasSize(2);

    hostView.add(c);
    assertThat(refresher.refreshNow().healthy()).isTrue();
    assertThat(refresher.current().hosts()).hasSize(3);

    // the host source marks b DOWN: it stays on the ring but is no longer routed to
    hostView.set(1, b.withStatus(Host.Status.DOWN));
    refresher.refreshNow();
    assertThat(refresher.current().hosts())
        .extracting(Host::id)
        .containsExactly("10.0.0.1:8102", "10.0.0.3:8102");
    assertThat(refresher.current().replicas(50)).isEmpty();
    assertThat(((TokenRingTopology) refresher.current()).downHosts())
        .extracting(Host::id)
        .containsExactly("10.0.0.2:8102");
  }

  @Test
  void tokensAreReReadEvenWhenMembershipIsUnchanged() {
    Host a = Host.builder("10.0.0.1", 8102).rack("r1").datacenter("dc1").build();
    Host b = Host.builder("10.0.0.2", 8102).rack("r1").datacenter("dc1").build();
    long[] bToken = {100};
    refresher = TopologyRefresher.builder()
        .hostSupplier(() -> List.of(a, b))
        .tokenMapSupplier(hosts -> List.of(new HostToken(0, a), new HostToken(bToken[0], b)))
        .locality(new Locality("r1", "dc1"))
        .scheduler(scheduler)
        .report(report)
        .build();
    refresher.start();
    assertThat(refresher.current().replicas(150)).containsExactly(a);
    bToken[0] = 200;
    scheduler.advance(PERIOD);
    assertThat(refresher.current().replicas(150)).containsExactly(b);
  }

  @Test
  void failingListenerDoesNotStopOthersOrTheSwap() {
    List<Long> seen = new ArrayList<>();
    refresher = TopologyRefresher.builder()
        .topologySupplier(supplier)
        .locality(new Locality("rack1", "dc1"))
        .scheduler(scheduler)
        .report(report)
        .listener((p, c) -> {
          throw new IllegalStateException("boom");
        })
        .listener((p, c) -> seen.add(c.version()))
        .build();
    refresher.start();
    assertThat(seen).containsExactly(1L);
    assertThat(report.warnings).anySatisfy(w -> assertThat(w).contains("listener", "boom"));
  }

  @Test
  void requestRefreshRunsOnTheScheduler() {
    refresher("rack1").start();
    server.serve(Samples.dynomite("dc1", new String[] {"rack1"}, new int[][] {{8101}}));
    refresher.requestRefresh();
    assertThat(refresher.current().hosts()).hasSize(2);
    scheduler.runDue();
    assertThat(refresher.current().hosts()).hasSize(1);
  }

  @Test
  void closeStopsPeriodicRefreshesAndIsIdempotent() {
    refresher("rack1").start();
    assertThat(scheduler.pendingTasks()).isEqualTo(1);
    refresher.close();
    refresher.close();
    assertThat(scheduler.pendingTasks()).isZero();
    scheduler.advance(PERIOD.multipliedBy(3));
    assertThat(server.requests()).isEqualTo(1);
  }

  @Test
  void firstRefreshFailingLeavesAnEmptyTopologyAndLaterOnesRecover() {
    server.goDown();
    RefreshStatus s = refresher("rack1").start();
    assertThat(s.healthy()).isFalse();
    assertThat(refresher.current().hosts()).isEmpty();
    assertThat(refresher.current().replicas("k")).isEmpty();
    assertThat(report.warnings).singleElement().asString().contains("keeping no topology");
  }

  /** Counts what the refresher reports, instead of scraping logs. */
  static final class RecordingReport implements TopologyRefresher.Report {
    final List<String> warnings = new CopyOnWriteArrayList<>();
    final List<String> infos = new CopyOnWriteArrayList<>();

    @Override
    public void warn(String message, Throwable cause) {
      warnings.add(message);
    }

    @Override
    public void info(String message) {
      infos.add(message);
    }

    @Override
    public void debug(String message) {}
  }
}
