package io.dyno.eureka;

import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.core.internal.json.Json;
import io.dyno.core.internal.json.JsonException;
import io.dyno.eureka.internal.InstanceMapper;
import io.dyno.eureka.internal.ServiceUrl;
import io.dyno.eureka.internal.SkippedInstances;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes of a Dynomite cluster as registered in Eureka under one application name, read from
 * Eureka's REST API ({@code GET {serviceUrl}/apps/{APP}}, JSON) with the JDK's HTTP client: users
 * need no Eureka client library.
 *
 * <p>Service URLs are asked in turn, starting with the one that answered last, until one gives a
 * usable answer. If none does, {@link #getHosts()} throws an {@link EurekaException} naming every
 * URL and its failure; when every server answered 404 (the application has no instance registered)
 * the exception says so and {@link EurekaException#applicationUnknown()} is true. An unknown
 * application is an error, not an empty list, so a typo in the name is not mistaken for a cluster
 * that has lost all its nodes.
 *
 * <p>Mapping of one instance to a {@link Host} (first match wins):
 * <ul>
 *   <li>hostname ← {@code hostName} (or {@code ipAddr}); IP address ← {@code ipAddr};
 *   <li>client port ← the fixed {@link Builder#port(int)}, else metadata {@link Builder#portMetadataKey}
 *       (default {@value #DEFAULT_PORT_KEY}), else the registered {@code port} when enabled. Dynomite's
 *       client port (8102) is often not the registered port (a sidecar's is), hence the overrides;
 *   <li>secure port ← metadata {@value #DEFAULT_SECURE_PORT_KEY}, else {@code securePort} when enabled;
 *   <li>datastore port ← metadata {@value #DEFAULT_DATASTORE_PORT_KEY} (absent: unknown);
 *   <li>rack ← metadata {@value #DEFAULT_RACK_KEY}, else the AWS {@code availability-zone} in
 *       {@code dataCenterInfo.metadata}, else {@link Builder#defaultRack};
 *   <li>datacenter ← metadata {@value #DEFAULT_DATACENTER_KEY}, else the AWS region derived from the
 *       availability zone ({@code us-east-1c} → {@code us-east-1}), else {@link Builder#defaultDatacenter};
 *   <li>status ← {@code UP} is up; anything else (DOWN, OUT_OF_SERVICE, STARTING, UNKNOWN) is down.
 * </ul>
 * An instance that cannot be mapped (no rack, a metadata port that is not a number, a second
 * instance with the same address and port) is left out and logged once as a warning; the others
 * are returned. If no instance at all could be mapped the call throws with the reasons.
 *
 * <p>Thread-safe. Its HTTP threads are daemon threads; {@link #close()} is idempotent.
 */
public final class EurekaHostSupplier implements HostSupplier, AutoCloseable {
  public static final String DEFAULT_PORT_KEY = "dynomite_port";
  public static final String DEFAULT_SECURE_PORT_KEY = "dynomite_secure_port";
  public static final String DEFAULT_DATASTORE_PORT_KEY = "datastore_port";
  public static final String DEFAULT_RACK_KEY = "rack";
  public static final String DEFAULT_DATACENTER_KEY = "datacenter";

  private static final Logger log = LoggerFactory.getLogger(EurekaHostSupplier.class);
  private static final AtomicInteger CLIENT_IDS = new AtomicInteger();
  private static final int MAX_BODY_IN_MESSAGE = 200;

  private final String application;
  private final List<ServiceUrl> endpoints;
  private final Duration requestTimeout;
  private final InstanceMapper mapper;
  private final ExecutorService executor;
  private final HttpClient http;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Index of the endpoint that answered last: asked first next time. */
  private volatile int preferred;
  /** Warnings already logged, so a lasting misregistration is reported once, not every refresh. */
  private final SkippedInstances skippedLog = new SkippedInstances(log);

  private EurekaHostSupplier(Builder b) {
    this.application = b.application;
    this.endpoints = List.copyOf(b.endpoints);
    this.requestTimeout = b.requestTimeout;
    this.mapper = new InstanceMapper(new InstanceMapper.Settings(
        b.port,
        b.portKey,
        b.securePortKey,
        b.datastorePortKey,
        b.rackKey,
        b.datacenterKey,
        b.defaultRack,
        b.defaultDatacenter));
    int id = CLIENT_IDS.incrementAndGet();
    AtomicInteger threads = new AtomicInteger();
    this.executor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "dyno-eureka-" + id + "-http-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.http = HttpClient.newBuilder()
        .executor(executor)
        .connectTimeout(b.connectTimeout)
        .version(HttpClient.Version.HTTP_1_1)
        // No redirects: credentials from a service URL must not follow one to another host.
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The application name whose instances this supplier reads. */
  public String application() {
    return application;
  }

  @Override
  public List<Host> getHosts() throws InterruptedException {
    if (closed.get()) {
      throw new IllegalStateException(
          "EurekaHostSupplier for application " + application + " is closed");
    }
    int start = preferred;
    List<String> failures = new ArrayList<>();
    int notFound = 0;
    Exception lastCause = null;
    for (int i = 0; i < endpoints.size(); i++) {
      int index = (start + i) % endpoints.size();
      ServiceUrl ep = endpoints.get(index);
      try {
        List<Host> hosts = fetch(ep);
        preferred = index;
        return hosts;
      } catch (NotFound e) {
        notFound++;
        failures.add(ep.shown() + ": HTTP 404, application not registered");
      } catch (HttpTimeoutException e) {
        lastCause = e;
        failures.add(ep.shown() + ": timed out (" + e.getMessage() + ")");
      } catch (IOException e) {
        lastCause = e;
        failures.add(ep.shown() + ": " + describe(e));
      } catch (IllegalArgumentException e) {
        // Bad status, malformed JSON or a document of the wrong shape.
        lastCause = e;
        failures.add(ep.shown() + ": " + e.getMessage());
      }
      if (log.isDebugEnabled()) {
        log.debug("Eureka application {}: {}", application, failures.get(failures.size() - 1));
      }
    }
    boolean unknown = notFound == endpoints.size();
    String message = unknown
        ? "Eureka application '" + application + "' is not registered (no instance) at " + failures
        : "no Eureka server gave the instances of application '" + application + "': " + failures;
    throw new EurekaException(message, unknown, lastCause);
  }

  private List<Host> fetch(ServiceUrl ep) throws IOException, InterruptedException {
    HttpRequest.Builder req = HttpRequest.newBuilder(ep.uri())
        .timeout(requestTimeout)
        .header("Accept", "application/json")
        .GET();
    if (ep.authorization() != null) {
      req.header("Authorization", ep.authorization());
    }
    HttpResponse<String> resp =
        http.send(req.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    int code = resp.statusCode();
    if (code == 404) {
      throw new NotFound();
    }
    if (code != 200) {
      throw new IllegalArgumentException("HTTP " + code + snippet(resp.body()));
    }
    Object doc;
    try {
      doc = Json.parse(resp.body());
    } catch (JsonException e) {
      String type = resp.headers().firstValue("Content-Type").orElse("none");
      throw new IllegalArgumentException(
          "malformed JSON (Content-Type " + type + "): " + e.getMessage(), e);
    }
    InstanceMapper.Result result = mapper.map(doc, application);
    skippedLog.report(result.skipped());
    if (result.hosts().isEmpty() && !result.skipped().isEmpty()) {
      throw new IllegalArgumentException("no usable instance: " + result.skipped());
    }
    return result.hosts();
  }

  private static String describe(IOException e) {
    String kind = e.getClass().getSimpleName();
    String msg = e.getMessage();
    if (msg == null && e.getCause() != null) {
      msg = e.getCause().toString();
    }
    return kind + (msg != null ? ": " + msg : "");
  }

  private static String snippet(String body) {
    if (body == null || body.isBlank()) {
      return "";
    }
    String oneLine = body.strip().replaceAll("\\s+", " ");
    return ": "
        + (oneLine.length() > MAX_BODY_IN_MESSAGE
            ? oneLine.substring(0, MAX_BODY_IN_MESSAGE) + "…"
            : oneLine);
  }

  /** Stops the HTTP threads. Idempotent; {@link #getHosts()} then throws. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      executor.shutdownNow();
    }
  }

  @Override
  public String toString() {
    List<String> shown = new ArrayList<>();
    for (ServiceUrl ep : endpoints) {
      shown.add(ep.shown());
    }
    return "EurekaHostSupplier{application=" + application + ", urls=" + shown + "}";
  }

  private static final class NotFound extends IOException {
    NotFound() {
      super(null, null);
    }
  }

  /** Builds an {@link EurekaHostSupplier}; {@link #build()} checks every setting and names the bad one. */
  public static final class Builder {
    private String application;
    private final List<ServiceUrl> endpoints = new ArrayList<>();
    private final List<String> serviceUrls = new ArrayList<>();
    private int port = -1;
    private String portKey = DEFAULT_PORT_KEY;
    private String securePortKey = DEFAULT_SECURE_PORT_KEY;
    private String datastorePortKey = DEFAULT_DATASTORE_PORT_KEY;
    private String rackKey = DEFAULT_RACK_KEY;
    private String datacenterKey = DEFAULT_DATACENTER_KEY;
    private String defaultRack;
    private String defaultDatacenter;
    private Duration connectTimeout = Duration.ofSeconds(2);
    private Duration requestTimeout = Duration.ofSeconds(5);

    private Builder() {}

    /** The Eureka application name of the Dynomite nodes (Eureka ignores its case). Required. */
    public Builder application(String name) {
      this.application = name;
      return this;
    }

    /**
     * Eureka service URLs, asked in this order, e.g. {@code http://eureka1:8761/eureka/} (the same
     * value as Eureka clients' {@code defaultZone}). {@code user:password@} in a URL becomes HTTP
     * basic authentication and is never printed. At least one is required.
     */
    public Builder serviceUrls(String... urls) {
      serviceUrls.addAll(List.of(urls));
      return this;
    }

    public Builder serviceUrls(List<String> urls) {
      serviceUrls.addAll(urls);
      return this;
    }

    /** A client port for every instance, whatever Eureka says (e.g. 8102). Default: not fixed. */
    public Builder port(int clientPort) {
      if (clientPort < 1 || clientPort > 65535) {
        throw new IllegalArgumentException("eureka port must be 1..65535, was " + clientPort);
      }
      this.port = clientPort;
      return this;
    }

    /** Instance metadata key holding the client port. Default {@value #DEFAULT_PORT_KEY}; null: none. */
    public Builder portMetadataKey(String key) {
      this.portKey = key;
      return this;
    }

    /** Instance metadata key holding the TLS client port. Default {@value #DEFAULT_SECURE_PORT_KEY}. */
    public Builder securePortMetadataKey(String key) {
      this.securePortKey = key;
      return this;
    }

    /** Instance metadata key holding the datastore (Redis) port. Default {@value #DEFAULT_DATASTORE_PORT_KEY}. */
    public Builder datastorePortMetadataKey(String key) {
      this.datastorePortKey = key;
      return this;
    }

    /** Instance metadata key holding the rack; wins over the AWS availability zone. Default {@value #DEFAULT_RACK_KEY}. */
    public Builder rackMetadataKey(String key) {
      this.rackKey = key;
      return this;
    }

    /** Instance metadata key holding the datacenter; wins over the AWS region. Default {@value #DEFAULT_DATACENTER_KEY}. */
    public Builder datacenterMetadataKey(String key) {
      this.datacenterKey = key;
      return this;
    }

    /** The rack of instances that name none (no metadata, not on AWS). Default: none (such instances are left out). */
    public Builder defaultRack(String rack) {
      this.defaultRack = rack;
      return this;
    }

    /** The datacenter of instances that name none (no metadata, not on AWS). Default: none (left out). */
    public Builder defaultDatacenter(String datacenter) {
      this.defaultDatacenter = datacenter;
      return this;
    }

    /** TCP connect timeout per server. Default 2 s. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive(timeout, "connectTimeout");
      return this;
    }

    /** Whole-request timeout per server. Default 5 s. */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = positive(timeout, "requestTimeout");
      return this;
    }

    public EurekaHostSupplier build() {
      if (application == null || application.isBlank()) {
        throw new IllegalArgumentException("eureka application name must be set");
      }
      if (serviceUrls.isEmpty()) {
        throw new IllegalArgumentException(
            "eureka service URLs: at least one is required (application " + application + ")");
      }
      endpoints.clear();
      for (String url : serviceUrls) {
        Objects.requireNonNull(url, "eureka service URL");
        endpoints.add(ServiceUrl.of(url, application.trim()));
      }
      application = application.trim();
      return new EurekaHostSupplier(this);
    }

    private static Duration positive(Duration d, String name) {
      if (d == null || d.isZero() || d.isNegative()) {
        throw new IllegalArgumentException("eureka " + name + " must be positive, was " + d);
      }
      return d;
    }
  }
}
