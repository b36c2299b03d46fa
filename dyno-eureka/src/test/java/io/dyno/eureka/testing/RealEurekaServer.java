package io.dyno.eureka.testing;

import io.dyno.eureka.server.EurekaServerApp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real Eureka server (Spring Cloud Netflix, from Maven Central) in this JVM, on 127.0.0.1 and a
 * free port, and a small client for its registration REST API, which the tests use the way a
 * Dynomite sidecar would. Shared with dyno-eureka-client's tests through this module's test jar.
 */
public final class RealEurekaServer implements AutoCloseable {
  /** Never contacted: it is also declared as the server's own URL, so the server has no peers. */
  private static final String NO_PEER = "http://127.0.0.1:1/eureka/";

  private final ConfigurableApplicationContext context;
  private final int port;
  private final HttpClient http = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(2))
      .version(HttpClient.Version.HTTP_1_1)
      .build();

  private RealEurekaServer(ConfigurableApplicationContext context) {
    this.context = context;
    this.port = ((WebServerApplicationContext) context).getWebServer().getPort();
  }

  public static RealEurekaServer start() {
    ConfigurableApplicationContext ctx = new SpringApplicationBuilder(EurekaServerApp.class)
        .web(WebApplicationType.SERVLET)
        .logStartupInfo(false)
        .properties(
            "spring.main.banner-mode=off",
            "spring.jmx.enabled=false",
            "logging.level.root=WARN",
            "server.address=127.0.0.1",
            "server.port=0",
            "spring.cloud.compatibility-verifier.enabled=false",
            "spring.cloud.loadbalancer.cache.enabled=false",
            "spring.freemarker.check-template-location=false",
            "eureka.dashboard.enabled=false",
            "eureka.instance.hostname=127.0.0.1",
            // Spring Cloud looks for a non-loopback interface and reverse-resolves its address
            // through
            // DNS; with every interface ignored it settles for the local host name, from
            // /etc/hosts.
            "spring.cloud.inetutils.ignored-interfaces=.*",
            // A standalone server: it neither registers itself nor fetches from or replicates to
            // peers.
            "eureka.client.register-with-eureka=false",
            "eureka.client.fetch-registry=false",
            "eureka.client.service-url.defaultZone=" + NO_PEER,
            "eureka.server.my-url=" + NO_PEER,
            "eureka.server.enable-self-preservation=false",
            "eureka.server.wait-time-in-ms-when-sync-empty=0",
            // Reads come straight from the registry's cache, which writes invalidate: no 30 s lag.
            "eureka.server.use-read-only-response-cache=false")
        .run();
    RealEurekaServer server = new RealEurekaServer(ctx);
    server.warmUp();
    return server;
  }

  /**
   * The first answers initialise the servlet and the error page (seconds on a loaded machine); asked
   * here, without a timeout, so that the tests' own requests with their timeouts meet a ready server.
   */
  private void warmUp() {
    for (String path : new String[] {"apps/", "apps/WARM_UP_NOT_REGISTERED"}) {
      try {
        http.send(
            HttpRequest.newBuilder(URI.create(serviceUrl() + path))
                .header("Accept", "application/json")
                .build(),
            HttpResponse.BodyHandlers.discarding());
      } catch (IOException e) {
        throw new IllegalStateException("Eureka at " + serviceUrl() + " does not answer", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while Eureka started", e);
      }
    }
  }

  /** What Eureka clients call {@code defaultZone}: {@code http://127.0.0.1:PORT/eureka/}. */
  public String serviceUrl() {
    return "http://127.0.0.1:" + port + "/eureka/";
  }

  public int port() {
    return port;
  }

  /** {@code POST /eureka/apps/{app}} with an instance document; Eureka answers 204. */
  public void register(String app, String instanceJson) throws IOException, InterruptedException {
    HttpRequest req = HttpRequest.newBuilder(URI.create(serviceUrl() + "apps/" + app))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(
            "{\"instance\":" + instanceJson + "}", StandardCharsets.UTF_8))
        .build();
    expect2xx(req, "register " + app);
  }

  /** {@code PUT /eureka/apps/{app}/{id}/status?value=...}: an operator's status override. */
  public void setStatus(String app, String instanceId, String status)
      throws IOException, InterruptedException {
    HttpRequest req = HttpRequest.newBuilder(
            URI.create(serviceUrl() + "apps/" + app + "/" + instanceId + "/status?value=" + status))
        .PUT(HttpRequest.BodyPublishers.noBody())
        .build();
    expect2xx(req, "set status of " + app + "/" + instanceId);
  }

  /** {@code DELETE /eureka/apps/{app}/{id}/status?value=UP}: removes the override, back to UP. */
  public void clearStatus(String app, String instanceId) throws IOException, InterruptedException {
    HttpRequest req = HttpRequest.newBuilder(
            URI.create(serviceUrl() + "apps/" + app + "/" + instanceId + "/status?value=UP"))
        .DELETE()
        .build();
    expect2xx(req, "clear status of " + app + "/" + instanceId);
  }

  /** {@code DELETE /eureka/apps/{app}/{id}}: the instance leaves. */
  public void deregister(String app, String instanceId) throws IOException, InterruptedException {
    HttpRequest req = HttpRequest.newBuilder(
            URI.create(serviceUrl() + "apps/" + app + "/" + instanceId))
        .DELETE()
        .build();
    expect2xx(req, "deregister " + app + "/" + instanceId);
  }

  private void expect2xx(HttpRequest req, String what) throws IOException, InterruptedException {
    HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
    if (resp.statusCode() / 100 != 2) {
      throw new IllegalStateException(
          what + ": Eureka answered HTTP " + resp.statusCode() + " " + resp.body());
    }
  }

  @Override
  public void close() {
    context.close();
  }
}
