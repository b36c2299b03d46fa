package io.dyno.eureka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.dyno.core.Host;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Faults a real Eureka server will not produce on demand (server errors, broken JSON, a stalled
 * answer), scripted with the JDK's HTTP server on loopback. Not a Eureka fake: each handler
 * answers one fixed fault.
 */
class EurekaHostSupplierFaultTest {
  private HttpServer server;
  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicReference<String> authorization = new AtomicReference<>();
  private final AtomicInteger failingHits = new AtomicInteger();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/e500/apps/", ex -> reply(ex, 500, "text/plain", "registry\n  exploded"));
    server.createContext(
        "/broken/apps/",
        ex -> reply(
            ex,
            200,
            "application/json",
            "{\"application\":{\"name\":\"DYNOMITE\",\n\"instance\":[{\"hostName\" \"h\"}]}}"));
    server.createContext("/count500/apps/", ex -> {
      failingHits.incrementAndGet();
      reply(ex, 503, "text/plain", "");
    });
    server.createContext("/xml/apps/", ex -> reply(ex, 200, "application/xml", "<application/>"));
    server.createContext("/shape/apps/", ex -> reply(ex, 200, "application/json", "[1,2]"));
    server.createContext("/auth/apps/", ex -> {
      authorization.set(ex.getRequestHeaders().getFirst("Authorization"));
      reply(ex, 200, "application/json", """
          {"application":{"name":"DYNOMITE","instance":[{"hostName":"h1","ipAddr":"10.1.1.1","status":"UP",
           "port":{"$":8102,"@enabled":"true"},"metadata":{"rack":"r1","datacenter":"d1"}}]}}""");
    });
    server.createContext("/stall/apps/", ex -> {
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      reply(ex, 200, "application/json", "{}");
    });
    server.setExecutor(Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "fault-http");
      t.setDaemon(true);
      return t;
    }));
    server.start();
  }

  @AfterEach
  void stop() {
    release.countDown();
    server.stop(0);
  }

  @Test
  void serverErrorNamesTheUrlTheStatusAndTheBody() {
    try (EurekaHostSupplier s = supplier("/e500/").build()) {
      assertThatThrownBy(s::getHosts)
          .isInstanceOf(EurekaException.class)
          .hasMessageContaining(url("/e500/apps/DYNOMITE"))
          .hasMessageContaining("HTTP 500: registry exploded");
    }
  }

  @Test
  void malformedJsonNamesTheUrlAndThePosition() {
    try (EurekaHostSupplier s = supplier("/broken/").build()) {
      assertThatThrownBy(s::getHosts)
          .isInstanceOf(EurekaException.class)
          .hasMessageContaining(url("/broken/apps/DYNOMITE"))
          .hasMessageContaining("malformed JSON")
          .hasMessageContaining("line 2, column 25");
    }
  }

  @Test
  void nonJsonAnswerNamesItsContentType() {
    try (EurekaHostSupplier s = supplier("/xml/").build()) {
      assertThatThrownBy(s::getHosts)
          .isInstanceOf(EurekaException.class)
          .hasMessageContaining("Content-Type application/xml");
    }
  }

  @Test
  void jsonOfTheWrongShapeIsAnError() {
    try (EurekaHostSupplier s = supplier("/shape/").build()) {
      assertThatThrownBy(s::getHosts)
          .isInstanceOf(EurekaException.class)
          .hasMessageContaining(url("/shape/apps/DYNOMITE"))
          .hasMessageContaining("\"application\" field but found an array");
    }
  }

  @Test
  void stalledServerTimesOutAndTheNextUrlAnswers() throws Exception {
    try (EurekaHostSupplier s = EurekaHostSupplier.builder()
        .application("DYNOMITE")
        .serviceUrls(url("/stall/"), url("/auth/"))
        .requestTimeout(Duration.ofMillis(300))
        .build()) {
      assertThat(s.getHosts()).extracting(Host::id).containsExactly("10.1.1.1:8102");
    }
    try (EurekaHostSupplier s =
        supplier("/stall/").requestTimeout(Duration.ofMillis(300)).build()) {
      assertThatThrownBy(s::getHosts)
          .isInstanceOf(EurekaException.class)
          .hasMessageContaining(url("/stall/apps/DYNOMITE") + ": timed out");
    }
  }

  @Test
  void theServerThatAnsweredIsAskedFirstNextTime() throws Exception {
    try (EurekaHostSupplier s = EurekaHostSupplier.builder()
        .application("DYNOMITE")
        .serviceUrls(url("/count500/"), url("/auth/"))
        .build()) {
      assertThat(s.getHosts()).hasSize(1);
      assertThat(s.getHosts()).hasSize(1);
      assertThat(s.getHosts()).hasSize(1);
    }
    assertThat(failingHits.get())
        .as("the failing server was asked only the first time")
        .isEqualTo(1);
  }

  @Test
  void credentialsInTheUrlBecomeBasicAuthentication() throws Exception {
    String withUser = url("/auth/").replace("http://", "http://dyno:p%40ss@");
    try (EurekaHostSupplier s = EurekaHostSupplier.builder()
        .application("DYNOMITE")
        .serviceUrls(withUser)
        .build()) {
      assertThat(s.getHosts()).hasSize(1);
      assertThat(s.toString()).doesNotContain("p%40ss").doesNotContain("p@ss");
    }
    assertThat(authorization.get())
        .isEqualTo("Basic "
            + Base64.getEncoder().encodeToString("dyno:p@ss".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void builderRejectsBadSettingsByName() {
    assertThatThrownBy(() -> EurekaHostSupplier.builder().serviceUrls(url("/")).build())
        .hasMessageContaining("application name");
    assertThatThrownBy(
            () -> EurekaHostSupplier.builder().application("DYNOMITE").build())
        .hasMessageContaining("at least one");
    assertThatThrownBy(() -> EurekaHostSupplier.builder()
            .application("DYNOMITE")
            .serviceUrls("ftp://x/eureka")
            .build())
        .hasMessageContaining("http or https")
        .hasMessageContaining("ftp://x/eureka");
    assertThatThrownBy(() -> EurekaHostSupplier.builder()
            .application("DYNOMITE")
            .serviceUrls("http://u:secret@ho st/eureka")
            .build())
        .hasMessageContaining("not a URI")
        .hasMessageNotContaining("secret");
    assertThatThrownBy(() -> EurekaHostSupplier.builder().port(0)).hasMessageContaining("port");
    assertThatThrownBy(() -> EurekaHostSupplier.builder().requestTimeout(Duration.ZERO))
        .hasMessageContaining("requestTimeout");
  }

  private EurekaHostSupplier.Builder supplier(String path) {
    return EurekaHostSupplier.builder().application("DYNOMITE").serviceUrls(url(path));
  }

  private String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  private static void reply(HttpExchange ex, int code, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }
}
