package io.dyno.eureka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.dyno.core.Host;
import io.dyno.eureka.testing.RealEurekaServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link EurekaHostSupplier} against a real Eureka server (Spring Cloud Netflix, started once for
 * the class), with instances registered, changed and removed through Eureka's own REST API. Each
 * test uses its own application name, so tests do not see each other's instances.
 */
class EurekaHostSupplierTest {
  private static RealEurekaServer eureka;

  @BeforeAll
  static void startEureka() {
    // The server has no peers on purpose; its warning about that is noise here.
    System.setProperty(
        "org.slf4j.simpleLogger.log.com.netflix.eureka.cluster.PeerEurekaNodes", "error");
    eureka = RealEurekaServer.start();
  }

  @AfterAll
  static void stopEureka() {
    if (eureka != null) {
      eureka.close();
    }
  }

  @Test
  void awsInstanceTakesItsRackFromTheAvailabilityZoneAndItsDatacenterFromTheRegion()
      throws Exception {
    eureka.register(
        "DYNO_AWS", awsInstance("i-1", "DYNO_AWS", "10.0.0.1", 8102, "us-east-1c", "{}"));
    try (EurekaHostSupplier supplier = supplier("dyno_aws").build()) {
      List<Host> hosts = supplier.getHosts();
      assertThat(hosts).hasSize(1);
      Host h = hosts.get(0);
      assertThat(h.hostname()).isEqualTo("i-1.example");
      assertThat(h.ipAddress()).isEqualTo("10.0.0.1");
      assertThat(h.port()).isEqualTo(8102);
      assertThat(h.securePort()).as("securePort is registered but disabled").isEqualTo(-1);
      assertThat(h.datastorePort()).isEqualTo(-1);
      assertThat(h.rack()).isEqualTo("us-east-1c");
      assertThat(h.datacenter()).isEqualTo("us-east-1");
      assertThat(h.status()).isEqualTo(Host.Status.UP);
    }
  }

  @Test
  void metadataGivesRackDatacenterAndDynomitePortsOfAnInstanceOutsideAws() throws Exception {
    // A sidecar registered on 8080; Dynomite itself listens on 8102.
    eureka.register("DYNO_META", myOwnInstance("n1", "DYNO_META", "10.0.1.1", 8080, """
        {"rack":"rack2","datacenter":"dc-west","dynomite_port":"8102",
         "dynomite_secure_port":"8103","datastore_port":"22122"}"""));
    try (EurekaHostSupplier supplier = supplier("DYNO_META").build()) {
      Host h = single(supplier.getHosts());
      assertThat(h.port()).isEqualTo(8102);
      assertThat(h.securePort()).isEqualTo(8103);
      assertThat(h.datastorePort()).isEqualTo(22122);
      assertThat(h.rack()).isEqualTo("rack2");
      assertThat(h.datacenter()).isEqualTo("dc-west");
    }
  }

  @Test
  void metadataRackAndDatacenterWinOverTheAwsZoneAndRegion() throws Exception {
    eureka.register(
        "DYNO_AWS_META",
        awsInstance(
            "i-2",
            "DYNO_AWS_META",
            "10.0.0.2",
            8102,
            "eu-west-1a",
            "{\"rack\":\"r-custom\",\"datacenter\":\"dc-custom\"}"));
    try (EurekaHostSupplier supplier = supplier("DYNO_AWS_META").build()) {
      Host h = single(supplier.getHosts());
      assertThat(h.rack()).isEqualTo("r-custom");
      assertThat(h.datacenter()).isEqualTo("dc-custom");
    }
    // And the keys are configurable.
    try (EurekaHostSupplier supplier = supplier("DYNO_AWS_META")
        .rackMetadataKey("no-such-key")
        .datacenterMetadataKey("no-such-key")
        .build()) {
      Host h = single(supplier.getHosts());
      assertThat(h.rack()).isEqualTo("eu-west-1a");
      assertThat(h.datacenter()).isEqualTo("eu-west-1");
    }
  }

  @Test
  void registeredPortAndBuilderDefaultsApplyWhenMetadataSaysNothing() throws Exception {
    eureka.register("DYNO_PLAIN", myOwnInstance("p1", "DYNO_PLAIN", "10.0.2.1", 8102, "{}"));
    try (EurekaHostSupplier supplier =
        supplier("DYNO_PLAIN").defaultRack("rack1").defaultDatacenter("dc1").build()) {
      Host h = single(supplier.getHosts());
      assertThat(h.port()).isEqualTo(8102);
      assertThat(h.rack()).isEqualTo("rack1");
      assertThat(h.datacenter()).isEqualTo("dc1");
    }
  }

  @Test
  void fixedPortOverridesBothTheRegisteredAndTheMetadataPort() throws Exception {
    eureka.register(
        "DYNO_FIXED",
        myOwnInstance(
            "f1",
            "DYNO_FIXED",
            "10.0.3.1",
            8080,
            "{\"rack\":\"r1\",\"datacenter\":\"d1\",\"dynomite_port\":\"9999\"}"));
    try (EurekaHostSupplier supplier = supplier("DYNO_FIXED").port(8102).build()) {
      assertThat(single(supplier.getHosts()).port()).isEqualTo(8102);
    }
    try (EurekaHostSupplier supplier =
        supplier("DYNO_FIXED").portMetadataKey(null).build()) {
      assertThat(single(supplier.getHosts()).port())
          .as("metadata key switched off")
          .isEqualTo(8080);
    }
  }

  @Test
  void twoDynomiteProcessesOnOneMachineAreTwoHosts() throws Exception {
    eureka.register(
        "DYNO_TWO",
        myOwnInstance(
            "m-a",
            "DYNO_TWO",
            "10.0.4.1",
            8080,
            "{\"rack\":\"r1\",\"datacenter\":\"d1\",\"dynomite_port\":\"8102\"}"));
    eureka.register(
        "DYNO_TWO",
        myOwnInstance(
            "m-b",
            "DYNO_TWO",
            "10.0.4.1",
            8080,
            "{\"rack\":\"r2\",\"datacenter\":\"d1\",\"dynomite_port\":\"8112\"}"));
    try (EurekaHostSupplier supplier = supplier("DYNO_TWO").build()) {
      assertThat(supplier.getHosts())
          .extracting(Host::id, Host::rack)
          .containsExactlyInAnyOrder(tuple("10.0.4.1:8102", "r1"), tuple("10.0.4.1:8112", "r2"));
    }
  }

  @Test
  void outOfServiceInstanceIsDownUntilTheOverrideIsRemoved() throws Exception {
    String app = "DYNO_STATUS";
    eureka.register(app, awsInstance("s-1", app, "10.0.5.1", 8102, "us-east-1a", "{}"));
    eureka.register(app, awsInstance("s-2", app, "10.0.5.2", 8102, "us-east-1b", "{}"));
    try (EurekaHostSupplier supplier = supplier(app).build()) {
      assertThat(statuses(supplier))
          .containsExactlyInAnyOrder(
              tuple("10.0.5.1:8102", Host.Status.UP), tuple("10.0.5.2:8102", Host.Status.UP));

      eureka.setStatus(app, "s-2", "OUT_OF_SERVICE");
      assertThat(statuses(supplier))
          .containsExactlyInAnyOrder(
              tuple("10.0.5.1:8102", Host.Status.UP), tuple("10.0.5.2:8102", Host.Status.DOWN));

      eureka.clearStatus(app, "s-2");
      assertThat(statuses(supplier))
          .containsExactlyInAnyOrder(
              tuple("10.0.5.1:8102", Host.Status.UP), tuple("10.0.5.2:8102", Host.Status.UP));
    }
  }

  @Test
  void instanceRegisteredAsStartingIsDown() throws Exception {
    eureka.register(
        "DYNO_STARTING",
        awsInstance("st-1", "DYNO_STARTING", "10.0.6.1", 8102, "us-east-1a", "{}")
            .replace("\"status\":\"UP\"", "\"status\":\"STARTING\""));
    try (EurekaHostSupplier supplier = supplier("DYNO_STARTING").build()) {
      assertThat(single(supplier.getHosts()).status()).isEqualTo(Host.Status.DOWN);
    }
  }

  @Test
  void deregisteredInstanceIsNoLongerReturned() throws Exception {
    String app = "DYNO_LEAVE";
    eureka.register(app, awsInstance("l-1", app, "10.0.7.1", 8102, "us-east-1a", "{}"));
    eureka.register(app, awsInstance("l-2", app, "10.0.7.2", 8102, "us-east-1b", "{}"));
    try (EurekaHostSupplier supplier = supplier(app).build()) {
      assertThat(supplier.getHosts())
          .extracting(Host::id)
          .containsExactlyInAnyOrder("10.0.7.1:8102", "10.0.7.2:8102");

      eureka.deregister(app, "l-1");
      assertThat(supplier.getHosts()).extracting(Host::id).containsExactly("10.0.7.2:8102");

      // The last one leaving makes the application unknown to Eureka: an error, not an empty
      // cluster.
      eureka.deregister(app, "l-2");
      assertThatThrownBy(supplier::getHosts)
          .isInstanceOfSatisfying(
              EurekaException.class, e -> assertThat(e.applicationUnknown()).isTrue());
    }
  }

  @Test
  void unknownApplicationIsAnErrorNamingTheApplicationAndTheUrl() {
    try (EurekaHostSupplier supplier = supplier("NO_SUCH_APP").build()) {
      assertThatThrownBy(supplier::getHosts)
          .isInstanceOfSatisfying(
              EurekaException.class,
              e -> assertThat(e.applicationUnknown()).as(e.getMessage()).isTrue())
          .hasMessageContaining("'NO_SUCH_APP'")
          .hasMessageContaining(eureka.serviceUrl() + "apps/NO_SUCH_APP")
          .hasMessageContaining("404");
    }
  }

  @Test
  void serviceUrlsAreAskedInTurnUntilOneAnswers() throws Exception {
    eureka.register(
        "DYNO_FAILOVER",
        awsInstance("fo-1", "DYNO_FAILOVER", "10.0.8.1", 8102, "us-east-1a", "{}"));
    String dead = "http://127.0.0.1:" + closedPort() + "/eureka/";
    try (EurekaHostSupplier supplier = EurekaHostSupplier.builder()
        .application("DYNO_FAILOVER")
        .serviceUrls(dead, eureka.serviceUrl())
        .build()) {
      assertThat(supplier.getHosts()).extracting(Host::id).containsExactly("10.0.8.1:8102");
      // Asked again: the server that answered is asked first, and still answers.
      assertThat(supplier.getHosts()).extracting(Host::id).containsExactly("10.0.8.1:8102");
    }
  }

  @Test
  void everyServerFailingGivesOneErrorNamingEachUrlWithoutItsPassword() throws Exception {
    int p1 = closedPort();
    int p2 = closedPort();
    try (EurekaHostSupplier supplier = EurekaHostSupplier.builder()
        .application("DYNOMITE")
        .serviceUrls(
            "http://admin:s3cret@127.0.0.1:" + p1 + "/eureka",
            "http://127.0.0.1:" + p2 + "/eureka/")
        .build()) {
      assertThatThrownBy(supplier::getHosts)
          .isInstanceOfSatisfying(
              EurekaException.class, e -> assertThat(e.applicationUnknown()).isFalse())
          .hasMessageContaining("'DYNOMITE'")
          .hasMessageContaining("http://127.0.0.1:" + p1 + "/eureka/apps/DYNOMITE")
          .hasMessageContaining("http://127.0.0.1:" + p2 + "/eureka/apps/DYNOMITE")
          .hasMessageContaining("ConnectException")
          .hasMessageNotContaining("s3cret");
      assertThat(supplier.toString()).doesNotContain("s3cret");
    }
  }

  @Test
  void instanceThatCannotBeMappedIsLeftOutAndTheOthersAreReturned() throws Exception {
    String app = "DYNO_PARTIAL";
    eureka.register(app, awsInstance("ok-1", app, "10.0.9.1", 8102, "us-east-1a", "{}"));
    eureka.register(app, myOwnInstance("norack", app, "10.0.9.2", 8102, "{}"));
    eureka.register(
        app,
        awsInstance(
            "badport", app, "10.0.9.3", 8102, "us-east-1b", "{\"dynomite_port\":\"eighty\"}"));
    try (EurekaHostSupplier supplier = supplier(app).build()) {
      assertThat(supplier.getHosts()).extracting(Host::id).containsExactly("10.0.9.1:8102");
    }
    eureka.deregister(app, "ok-1");
    try (EurekaHostSupplier supplier = supplier(app).build()) {
      assertThatThrownBy(supplier::getHosts)
          .isInstanceOf(EurekaException.class)
          .hasMessageContaining("no usable instance")
          .hasMessageContaining("'norack': no rack")
          .hasMessageContaining(
              "'badport': metadata \"dynomite_port\" is not a port (1..65535): 'eighty'");
    }
  }

  @Test
  void httpThreadsAreDaemonsAndCloseIsIdempotent() throws Exception {
    eureka.register(
        "DYNO_THREADS", awsInstance("t-1", "DYNO_THREADS", "10.0.10.1", 8102, "us-east-1a", "{}"));
    EurekaHostSupplier supplier = supplier("DYNO_THREADS").build();
    assertThat(supplier.getHosts()).hasSize(1);
    Set<Thread> ours = Thread.getAllStackTraces().keySet().stream()
        .filter(
            t -> t.getName().startsWith("dyno-eureka-") || t.getName().startsWith("HttpClient-"))
        .collect(Collectors.toSet());
    assertThat(ours).anyMatch(t -> t.getName().startsWith("dyno-eureka-"));
    assertThat(ours).allMatch(Thread::isDaemon);

    supplier.close();
    supplier.close();
    assertThatThrownBy(supplier::getHosts)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("DYNO_THREADS");
  }

  private static List<Tuple> statuses(EurekaHostSupplier supplier) throws Exception {
    return supplier.getHosts().stream().map(h -> tuple(h.id(), h.status())).toList();
  }

  private static Host single(List<Host> hosts) {
    assertThat(hosts).hasSize(1);
    return hosts.get(0);
  }

  /** A loopback port nothing listens on (bound, then released): connecting is refused. */
  static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static EurekaHostSupplier.Builder supplier(String app) {
    return EurekaHostSupplier.builder().application(app).serviceUrls(eureka.serviceUrl());
  }

  /** An instance as an AWS-hosted Eureka client registers it: AmazonInfo with an availability zone. */
  static String awsInstance(
      String id, String app, String ip, int port, String zone, String metadata) {
    return """
        {"instanceId":"%1$s","hostName":"%1$s.example","app":"%2$s","ipAddr":"%3$s","status":"UP",
         "port":{"$":%4$d,"@enabled":"true"},"securePort":{"$":443,"@enabled":"false"},
         "vipAddress":"%2$s",
         "dataCenterInfo":{"@class":"com.netflix.appinfo.AmazonInfo","name":"Amazon",
           "metadata":{"availability-zone":"%5$s","instance-id":"%1$s","local-ipv4":"%3$s"}},
         "metadata":%6$s}
        """.formatted(id, app, ip, port, zone, metadata);
  }

  /** An instance registered from outside AWS ("MyOwn" data center): no zone, only metadata. */
  static String myOwnInstance(String id, String app, String ip, int port, String metadata) {
    return """
        {"instanceId":"%1$s","hostName":"%1$s.example","app":"%2$s","ipAddr":"%3$s","status":"UP",
         "port":{"$":%4$d,"@enabled":"true"},"securePort":{"$":443,"@enabled":"false"},
         "vipAddress":"%2$s",
         "dataCenterInfo":{"@class":"com.netflix.appinfo.InstanceInfo$DefaultDataCenterInfo","name":"MyOwn"},
         "metadata":%5$s}
        """.formatted(id, app, ip, port, metadata);
  }
}
