package io.dyno.eureka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.Host;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link EurekaHostSupplier} against a real Eureka server, instances registered through its REST API. */
class EurekaHostSupplierTest {
  private static RealEurekaServer eureka;

  @BeforeAll
  static void startEureka() {
    eureka = RealEurekaServer.start();
  }

  @AfterAll
  static void stopEureka() {
    if (eureka != null) {
      eureka.close();
    }
  }

  @Test
  void awsInstanceTakesItsRackFromTheAvailabilityZoneAndItsDatacenterFromTheRegion() throws Exception {
    eureka.register("DYNO_AWS", awsInstance("i-1", "DYNO_AWS", "10.0.0.1", 8102, "us-east-1c", "{}"));
    try (EurekaHostSupplier supplier = supplier("dyno_aws").build()) {
      List<Host> hosts = supplier.getHosts();
      assertThat(hosts).hasSize(1);
      Host h = hosts.get(0);
      assertThat(h.hostname()).isEqualTo("i-1.example");
      assertThat(h.ipAddress()).isEqualTo("10.0.0.1");
      assertThat(h.port()).isEqualTo(8102);
      assertThat(h.rack()).isEqualTo("us-east-1c");
      assertThat(h.datacenter()).isEqualTo("us-east-1");
      assertThat(h.status()).isEqualTo(Host.Status.UP);
    }
  }

  private static EurekaHostSupplier.Builder supplier(String app) {
    return EurekaHostSupplier.builder().application(app).serviceUrls(eureka.serviceUrl());
  }

  static String awsInstance(String id, String app, String ip, int port, String zone, String metadata) {
    return """
        {"instanceId":"%1$s","hostName":"%1$s.example","app":"%2$s","ipAddr":"%3$s","status":"UP",
         "port":{"$":%4$d,"@enabled":"true"},"securePort":{"$":443,"@enabled":"false"},
         "vipAddress":"%2$s",
         "dataCenterInfo":{"@class":"com.netflix.appinfo.AmazonInfo","name":"Amazon",
           "metadata":{"availability-zone":"%5$s","instance-id":"%1$s","local-ipv4":"%3$s"}},
         "metadata":%6$s}
        """.formatted(id, app, ip, port, zone, metadata);
  }
}
