package io.dyno.eureka.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.netflix.appinfo.ApplicationInfoManager;
import com.netflix.appinfo.DataCenterInfo;
import com.netflix.appinfo.InstanceInfo;
import com.netflix.appinfo.MyDataCenterInfo;
import com.netflix.discovery.DiscoveryClient;
import com.netflix.discovery.shared.transport.jersey3.Jersey3TransportClientFactories;
import io.dyno.core.Host;
import io.dyno.eureka.EurekaException;
import io.dyno.eureka.EurekaHostSupplier;
import io.dyno.eureka.testing.RealEurekaServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.cloud.commons.util.InetUtils;
import org.springframework.cloud.commons.util.InetUtilsProperties;
import org.springframework.cloud.netflix.eureka.EurekaClientConfigBean;
import org.springframework.cloud.netflix.eureka.EurekaInstanceConfigBean;

/**
 * {@link EurekaClientHostSupplier} over a real Netflix {@link DiscoveryClient} fetching from the
 * same real Eureka server as dyno-eureka's tests: it maps every instance exactly as the REST reader
 * ({@link EurekaHostSupplier}) does, and follows an instance going OUT_OF_SERVICE and coming back.
 */
class EurekaClientHostSupplierTest {
  private static final String APP = "DYNO_VIA_CLIENT";
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static RealEurekaServer eureka;
  private static DiscoveryClient discovery;

  @BeforeAll
  static void start() throws Exception {
    System.setProperty(
        "org.slf4j.simpleLogger.log.com.netflix.eureka.cluster.PeerEurekaNodes", "error");
    eureka = RealEurekaServer.start();
    // An AWS instance (rack and datacenter from its zone) and one outside AWS (from metadata, with
    // Dynomite's ports in metadata besides the sidecar's registered port).
    eureka.register(APP, """
        {"instanceId":"a-1","hostName":"a-1.example","app":"%1$s","ipAddr":"10.9.0.1","status":"UP",
         "port":{"$":8102,"@enabled":"true"},"securePort":{"$":443,"@enabled":"false"},"vipAddress":"%1$s",
         "dataCenterInfo":{"@class":"com.netflix.appinfo.AmazonInfo","name":"Amazon",
           "metadata":{"availability-zone":"us-east-1c","instance-id":"a-1","local-ipv4":"10.9.0.1"}},
         "metadata":{"datastore_port":"22122"}}""".formatted(APP));
    eureka.register(APP, """
        {"instanceId":"m-1","hostName":"m-1.example","app":"%1$s","ipAddr":"10.9.0.2","status":"UP",
         "port":{"$":8080,"@enabled":"true"},"securePort":{"$":443,"@enabled":"false"},"vipAddress":"%1$s",
         "dataCenterInfo":{"@class":"com.netflix.appinfo.InstanceInfo$DefaultDataCenterInfo","name":"MyOwn"},
         "metadata":{"rack":"rack2","datacenter":"dc-west","dynomite_port":"8112","dynomite_secure_port":"8113"}}""".formatted(APP));

    // The application's own EurekaClient: fetches every second, does not register itself.
    EurekaClientConfigBean clientConfig = new EurekaClientConfigBean();
    clientConfig.setServiceUrl(Map.of("defaultZone", eureka.serviceUrl()));
    clientConfig.setRegisterWithEureka(false);
    clientConfig.setFetchRegistry(true);
    clientConfig.setRegistryFetchIntervalSeconds(1);
    EurekaInstanceConfigBean instanceConfig =
        new EurekaInstanceConfigBean(new InetUtils(new InetUtilsProperties()));
    instanceConfig.setAppname("dyno-test-app");
    instanceConfig.setHostname("127.0.0.1");
    InstanceInfo self = InstanceInfo.Builder.newBuilder()
        .setAppName("dyno-test-app")
        .setInstanceId("self")
        .setHostName("127.0.0.1")
        .setIPAddr("127.0.0.1")
        .setDataCenterInfo(new MyDataCenterInfo(DataCenterInfo.Name.MyOwn))
        .build();
    discovery = new DiscoveryClient(
        new ApplicationInfoManager(instanceConfig, self),
        clientConfig,
        new Jersey3TransportClientFactories());
  }

  @AfterAll
  static void stop() {
    if (discovery != null) {
      discovery.shutdown();
    }
    if (eureka != null) {
      eureka.close();
    }
  }

  /** Everything a Host carries, for comparing two mappings field by field. */
  private static List<Tuple> fields(List<Host> hosts) {
    return hosts.stream()
        .map(h -> tuple(
            h.hostname(),
            h.ipAddress(),
            h.port(),
            h.securePort(),
            h.datastorePort(),
            h.rack(),
            h.datacenter(),
            h.status()))
        .toList();
  }

  private static <T> T await(Callable<T> read, Predicate<T> done) throws Exception {
    long end = System.nanoTime() + WAIT.toNanos();
    T last = null;
    Exception failure = null;
    while (System.nanoTime() < end) {
      try {
        last = read.call();
        failure = null;
        if (done.test(last)) {
          return last;
        }
      } catch (Exception e) {
        failure = e;
      }
      LockSupport.parkNanos(50_000_000);
    }
    throw new AssertionError("condition not met within " + WAIT + "; last value " + last, failure);
  }

  @Test
  void mapsInstancesExactlyAsTheRestReaderAndFollowsOutOfServiceAndBack() throws Exception {
    EurekaClientHostSupplier viaClient = EurekaClientHostSupplier.builder(discovery)
        .application("dyno_via_client")
        .build();
    try (EurekaHostSupplier viaRest = EurekaHostSupplier.builder()
        .application(APP)
        .serviceUrls(eureka.serviceUrl())
        .build()) {
      List<Host> hosts = await(viaClient::getHosts, h -> h.size() == 2);
      assertThat(fields(hosts))
          .containsExactlyInAnyOrder(
              tuple(
                  "a-1.example",
                  "10.9.0.1",
                  8102,
                  -1,
                  22122,
                  "us-east-1c",
                  "us-east-1",
                  Host.Status.UP),
              tuple("m-1.example", "10.9.0.2", 8112, 8113, -1, "rack2", "dc-west", Host.Status.UP));
      assertThat(fields(hosts)).containsExactlyInAnyOrderElementsOf(fields(viaRest.getHosts()));

      eureka.setStatus(APP, "m-1", "OUT_OF_SERVICE");
      List<Host> out = await(
          viaClient::getHosts,
          h -> h.stream().anyMatch(x -> x.port() == 8112 && x.status() == Host.Status.DOWN));
      assertThat(out)
          .extracting(Host::id, Host::status)
          .containsExactlyInAnyOrder(
              tuple("10.9.0.1:8102", Host.Status.UP), tuple("10.9.0.2:8112", Host.Status.DOWN));
      assertThat(fields(out)).containsExactlyInAnyOrderElementsOf(fields(viaRest.getHosts()));

      eureka.clearStatus(APP, "m-1");
      List<Host> back = await(viaClient::getHosts, h -> h.stream().allMatch(Host::isUp));
      assertThat(back)
          .extracting(Host::id, Host::status)
          .containsExactlyInAnyOrder(
              tuple("10.9.0.1:8102", Host.Status.UP), tuple("10.9.0.2:8112", Host.Status.UP));
      assertThat(fields(back)).containsExactlyInAnyOrderElementsOf(fields(viaRest.getHosts()));
    }
  }

  @Test
  void anApplicationTheClientDoesNotKnowIsAnErrorNotAnEmptyCluster() throws Exception {
    await(() -> discovery.getApplication(APP), a -> a != null); // the registry has been fetched
    EurekaClientHostSupplier unknown =
        EurekaClientHostSupplier.builder(discovery).application("dyno_typo").build();
    assertThatThrownBy(unknown::getHosts)
        .isInstanceOf(EurekaException.class)
        .hasMessageContaining("DYNO_TYPO")
        .satisfies(e -> assertThat(((EurekaException) e).applicationUnknown()).isTrue());
  }
}
